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

    static TrainPredictCommandTest.Run train(String... extra) {
        List<String> a = new java.util.ArrayList<>(List.of("train", "--data", images.toString(), "--sweeps", "3", "--eval-sweeps", "3", "--seed", "5",
                "--quiet", "--threads", "1"));
        a.addAll(List.of(extra));
        return TrainPredictCommandTest.run(a.toArray(String[]::new));
    }

    /**
     * {@code --checkpoint} after 2 of 4 iterations and {@code --resume} (no --regions given: the
     * checkpoint's) equal the uninterrupted run: every curve row and every test marginal; the checkpoint
     * records the layout; a resume with another layout is one error.
     */
    @Test
    void aResumedPatchRunEqualsTheUninterruptedOne() throws IOException {
        Path plain = tmp.resolve("plain"), ck = tmp.resolve("ck"), resumed = tmp.resolve("resumed");
        TrainPredictCommandTest.Run r = train("--regions", "patches2x2", "--iterations", "4", "--output", plain.resolve("model").toString(),
                "--report", plain.resolve("r.json").toString());
        assertEquals(0, r.code(), r.err());
        r = train("--regions", "patches2x2", "--iterations", "2", "--checkpoint", ck.toString(), "--checkpoint-every", "1");
        assertEquals(0, r.code(), r.err());
        JsonNode manifest = new ObjectMapper().readTree(ck.resolve("iteration-000002").resolve("checkpoint.json").toFile());
        assertEquals("patches2x2", manifest.path("regions").asText());
        assertEquals(3, manifest.path("version").asInt());
        assertEquals(1, manifest.path("oracles").path("regions").size());
        assertTrue(Files.isDirectory(ck.resolve("iteration-000002").resolve("region-0")));
        r = TrainPredictCommandTest.run("train", "--resume", ck.toString(), "--data", images.toString(), "--iterations", "4", "--quiet",
                "--output", resumed.resolve("model").toString(), "--report", resumed.resolve("r.json").toString());
        assertEquals(0, r.code(), r.err());
        TrainPredictCommandTest.assertSameCurve(plain.resolve("r.json"), resumed.resolve("r.json"), 4, "resumed after 2");
        CrfModel ma = CrfModel.load(plain.resolve("model")), mb = CrfModel.load(resumed.resolve("model"));
        assertEquals(RegionLayout.PATCHES_2X2, mb.regionLayout());
        assertEquals("patches2x2", mb.settings().get("regions"));
        List<Example> test = Dataset.load(images).test();
        List<Predictor.Prediction> pa = Predictor.predictEach(ma, test, 50, 1e-5), pb = Predictor.predictEach(mb, test, 50, 1e-5);
        for (int k = 0; k < pa.size(); k++) {
            assertArrayEquals(pa.get(k).marginals().reshape(-1).toFloatVector(), pb.get(k).marginals().reshape(-1).toFloatVector(), "test example " + k);
        }
        // another layout (or none) given to the resume: one error, nothing written
        for (String other : List.of("triplets", "none")) {
            Path out = tmp.resolve("other-" + other);
            r = TrainPredictCommandTest.run("train", "--resume", ck.toString(), "--data", images.toString(), "--iterations", "4", "--quiet",
                    "--regions", other, "--output", out.toString());
            assertEquals(2, r.code(), r.err());
            assertEquals("error: " + ck + ": the checkpoint was trained with --regions patches2x2, not " + other
                    + "; resume it without --regions or start a new run", r.err().strip());
            assertFalse(Files.exists(out));
        }
    }

    /**
     * {@code export} of a patch model: the region function is a DL4J zip beside the others, its manifest
     * entry says so (role region, L^4 classes, 4 x the pairwise width), the manifest describes the regions
     * (version 2), and the restored network gives the function's scores.
     */
    @Test
    void exportWritesTheRegionFunction() throws Exception {
        Path out = tmp.resolve("export");
        TrainPredictCommandTest.Run r = TrainPredictCommandTest.run("export", "--model", model.toString(), "--output", out.toString());
        assertEquals(0, r.code(), r.err());
        JsonNode m = new ObjectMapper().readTree(out.resolve("manifest.json").toFile());
        assertEquals(2, m.path("version").asInt());
        assertEquals("patches2x2", m.path("regions").path("layout").asText());
        assertTrue(m.path("energy").path("formula").asText().contains("sum_r eps * g_type(r)"), m.path("energy").toString());
        JsonNode region = null;
        for (JsonNode t : m.path("factorTypes")) if (t.path("role").asText().equals("region")) region = t;
        assertTrue(region != null, m.path("factorTypes").toString());
        CrfModel loaded = CrfModel.load(model);
        assertEquals("patch2x2", region.path("name").asText());
        assertEquals(16, region.path("numClasses").asInt());
        assertEquals(4 * loaded.pairFeatures(), region.path("features").asInt());
        assertEquals(0, region.path("regionType").asInt());
        Path zip = out.resolve(region.path("file").asText());
        assertEquals("region-0.zip", zip.getFileName().toString());
        org.deeplearning4j.nn.multilayer.MultiLayerNetwork net = org.deeplearning4j.util.ModelSerializer.restoreMultiLayerNetwork(zip.toFile(), false);
        org.nd4j.linalg.api.ndarray.INDArray x = org.nd4j.linalg.factory.Nd4j.rand(org.nd4j.linalg.api.buffer.DataType.FLOAT, 12, 4L * loaded.pairFeatures());
        double[] want = loaded.regions().get(0).scores(x).reshape(-1).castTo(org.nd4j.linalg.api.buffer.DataType.DOUBLE).toDoubleVector();
        double[] got = net.output(x).reshape(-1).castTo(org.nd4j.linalg.api.buffer.DataType.DOUBLE).toDoubleVector();
        assertArrayEquals(want, got, 1e-4, "the exported region network's scores");
    }

    /**
     * {@code --val-every} with patches: the val examples get the patches too, and the model kept is the best
     * check's (unary, pairwise and patch functions): measured again, its val mean IoU is the best check's.
     */
    @Test
    void validationKeepsTheBestCheckOfAPatchModel() throws IOException {
        Path withVal = tmp.resolve("with-val");
        new DenoisingGenerator().generateTo(withVal, 3, 3, 8, 8, 6);
        Files.createDirectories(withVal.resolve("val"));
        Files.move(withVal.resolve("test/001.npz"), withVal.resolve("val/001.npz"));
        Files.move(withVal.resolve("test/002.npz"), withVal.resolve("val/002.npz"));
        Path out = tmp.resolve("val-model"), report = tmp.resolve("val.json");
        TrainPredictCommandTest.Run r = TrainPredictCommandTest.run("train", "--data", withVal.toString(), "--regions", "patches2x2",
                "--iterations", "4", "--val-every", "1", "--sweeps", "3", "--eval-sweeps", "3", "--quiet", "--threads", "1",
                "--output", out.toString(), "--report", report.toString());
        assertEquals(0, r.code(), r.err());
        JsonNode checks = new ObjectMapper().readTree(report.toFile()).get("validation");
        assertEquals(4, checks.size());
        double best = Double.NEGATIVE_INFINITY;
        for (JsonNode c : checks) best = Math.max(best, c.get("mean_iou").asDouble());
        CrfModel m = CrfModel.load(out);
        assertEquals(RegionLayout.PATCHES_2X2, m.regionLayout());
        assertTrue(m.regions().get(0) != null);
        assertEquals(best, org.structlr.metrics.Evaluation.confusion(m, Dataset.load(withVal).val(), 100, 1e-5).meanIou(), 1e-3,
                "the kept model's val mean IoU, measured again");
    }

    @Test
    void whatRegionsDoNotDoYetIsOneErrorAndNoModel() throws IOException {
        Path out = tmp.resolve("m");
        TrainPredictCommandTest.Run r = TrainPredictCommandTest.run(TrainPredictCommandTest.train(images, null, "--regions", "hexagons", "--output", out.toString()));
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
