package org.structlr.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.structlr.data.Dataset;
import org.structlr.data.DenoisingGenerator;
import org.structlr.data.Example;
import org.structlr.data.NpyArray;
import org.structlr.data.Npz;
import org.structlr.model.CrfModel;
import org.structlr.model.Predictor;
import org.structlr.model.RegionLayout;

/** {@code train --regions}: the model records its regions, saves and loads them, and predict/evaluate use them; what is not supported yet is refused. */
class RegionsCommandTest {
    @TempDir
    static Path shared;

    @TempDir
    Path tmp;

    static Path images;
    static Path model;

    @BeforeAll
    static void data() throws IOException {
        images = shared.resolve("images");
        new DenoisingGenerator().generateTo(images, 3, 2, 8, 8, 3);
        model = shared.resolve("patches");
        TrainPredictCommandTest.Run r = TrainPredictCommandTest.run(TrainPredictCommandTest.train(images, null, "--regions", "patches2x2",
                "--output", model.toString()));
        assertEquals(0, r.code(), r.err());
    }

    @Test
    void theModelRecordsItsRegions() throws IOException {
        JsonNode m = new ObjectMapper().readTree(model.resolve("model.json").toFile());
        assertEquals(CrfModel.REGIONS_VERSION, m.path("version").asInt());
        assertEquals("patches2x2", m.path("regions").path("layout").asText());
        assertEquals("patch2x2", m.path("regions").path("types").get(0).path("name").asText());
        assertEquals("patches2x2", m.path("settings").path("regions").asText());
        CrfModel loaded = CrfModel.load(model);
        assertEquals(RegionLayout.PATCHES_2X2, loaded.regionLayout());
        assertEquals(16, loaded.regions().get(0).numClasses());
    }

    /**
     * Saved and loaded, a patch model predicts exactly what the trained one does (labels and
     * marginals), and its patches matter: without them the same unary and pairwise functions predict otherwise.
     */
    @Test
    void saveAndLoadGiveIdenticalPredictionsAndThePatchesCount() throws IOException {
        Dataset d = Dataset.load(images);
        CrfModel trained = org.structlr.learn.Training.train(d, org.structlr.oracle.FunctionSpec.unary("linear"),
                org.structlr.oracle.FunctionSpec.pairwise("linear"), RegionLayout.PATCHES_2X2,
                new org.structlr.learn.LearnSettings(3, 0.1, 3, 3, 1, 1L), org.structlr.learn.RowWeights.NONE, 1,
                org.structlr.learn.LearnListener.NONE, null, org.structlr.learn.StateSink.NONE).model();
        Path dir = tmp.resolve("m");
        trained.save(dir);
        CrfModel loaded = CrfModel.load(dir);
        List<Predictor.Prediction> a = Predictor.predictEach(trained, d.test(), 50, 1e-5), b = Predictor.predictEach(loaded, d.test(), 50, 1e-5);
        CrfModel noPatches = new CrfModel(trained.numLabels(), trained.eps(), trained.unaryFeatures(), trained.pairFeatures(), trained.pairTypes(),
                trained.unary(), trained.pair(), trained.settings(), trained.provenance(), trained.classes());
        List<Predictor.Prediction> c = Predictor.predictEach(noPatches, d.test(), 50, 1e-5);
        boolean differs = false;
        for (int k = 0; k < a.size(); k++) {
            assertArrayEquals(a.get(k).labels(), b.get(k).labels());
            assertArrayEquals(a.get(k).marginals().reshape(-1).toFloatVector(), b.get(k).marginals().reshape(-1).toFloatVector());
            differs |= !java.util.Arrays.equals(a.get(k).marginals().reshape(-1).toFloatVector(), c.get(k).marginals().reshape(-1).toFloatVector());
        }
        assertTrue(differs, "the patches change no marginal: prediction does not use them");
    }

    @Test
    void predictAndEvaluateUseTheSavedModel() throws IOException {
        CrfModel loaded = CrfModel.load(model);
        Path example;
        try (Stream<Path> s = Files.list(images.resolve("test"))) {
            example = s.sorted().findFirst().orElseThrow();
        }
        Path out = tmp.resolve("p.npz");
        TrainPredictCommandTest.Run p = TrainPredictCommandTest.run("predict", "--model", model.toString(), "--input", example.toString(),
                "--output", out.toString(), "--quiet");
        assertEquals(0, p.code(), p.err());
        Example ex = Dataset.load(images).test().get(0);
        assertArrayEquals(Predictor.predictEach(loaded, List.of(ex), 100, 1e-5).get(0).labels(), Npz.read(out).get("labels").toIntArray());
        Path json = tmp.resolve("e.json");
        TrainPredictCommandTest.Run e = TrainPredictCommandTest.run("evaluate", "--model", model.toString(), "--data", images.toString(),
                "--output", json.toString(), "--quiet");
        assertEquals(0, e.code(), e.err());
    }

    @Test
    void whatRegionsDoNotDoYetIsOneErrorAndNoModel() throws IOException {
        Path out = tmp.resolve("m");
        TrainPredictCommandTest.Run r = TrainPredictCommandTest.run(TrainPredictCommandTest.train(images, null, "--regions", "patches2x2",
                "--checkpoint", tmp.resolve("cp").toString(), "--output", out.toString()));
        assertEquals(2, r.code(), r.err());
        assertEquals("error: option '--regions patches2x2' does not work with --checkpoint/--resume yet", r.err().strip());
        assertFalse(Files.exists(out));
        r = TrainPredictCommandTest.run(TrainPredictCommandTest.train(images, null, "--regions", "hexagons", "--output", out.toString()));
        assertEquals(2, r.code(), r.err());
        assertTrue(r.err().contains("unknown region layout 'hexagons'"), r.err());
        // graphs that are no images
        Path graphs = tmp.resolve("graphs");
        for (String part : List.of("train", "test")) {
            Files.createDirectories(graphs.resolve(part));
            try (Stream<Path> files = Files.list(images.resolve(part))) {
                for (Path f : files.toList()) {
                    Map<String, NpyArray> a = new LinkedHashMap<>(Npz.read(f));
                    a.remove("shape");
                    Npz.write(graphs.resolve(part).resolve(f.getFileName()), a);
                }
            }
        }
        r = TrainPredictCommandTest.run(TrainPredictCommandTest.train(graphs, null, "--regions", "triplets", "--output", out.toString()));
        assertEquals(2, r.code(), r.err());
        assertTrue(r.err().contains("--regions triplets needs images (a 'shape' array)"), r.err());
        assertEquals(1, r.err().strip().lines().count(), r.err());
        assertFalse(Files.exists(out));
    }
}
