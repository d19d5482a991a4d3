package org.structlr.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.structlr.data.DenoisingGenerator;

/** No command replaces one of its inputs with its output: refused before any work, inputs unchanged. */
class OutputIsNotInputTest {
    @TempDir
    static Path tmp;
    static Path data, model;

    @BeforeAll
    static void train() throws IOException {
        data = tmp.resolve("data");
        new DenoisingGenerator().generateTo(data, 2, 2, 6, 6, 3);
        TrainPredictCommandTest.Run r = TrainPredictCommandTest.run(TrainPredictCommandTest.train(data, tmp.resolve("out")));
        model = tmp.resolve("out").resolve("model");
        assertEquals(0, r.code(), r.err());
    }

    static void assertRefusedUnchanged(Path input, TrainPredictCommandTest.Run r, String... parts) throws IOException {
        PredictImagesTest.assertBad(new PredictImagesTest.Run(r.code(), r.out(), r.err()), parts);
    }

    @Test
    void predictOnAnExampleRefusesToWriteOverIt() throws IOException {
        Path in = data.resolve("test").resolve("000.npz");
        byte[] before = Files.readAllBytes(in);
        TrainPredictCommandTest.Run r = TrainPredictCommandTest.run("predict", "--model", model.toString(), "--input", in.toString(),
                "--output", in.toString(), "--quiet");
        assertRefusedUnchanged(in, r, in.toString(), "cannot write --output: it is the input file");
        assertArrayEquals(before, Files.readAllBytes(in));
        // through a symbolic link to it
        Path link = tmp.resolve("link.npz");
        Files.createSymbolicLink(link, in);
        r = TrainPredictCommandTest.run("predict", "--model", model.toString(), "--input", in.toString(), "--output", link.toString(), "--quiet");
        assertRefusedUnchanged(in, r, link.toString(), "it is the input file");
        assertArrayEquals(before, Files.readAllBytes(in));
        // a folder of examples into itself: each prediction would replace its example
        Path folder = data.resolve("test");
        r = TrainPredictCommandTest.run("predict", "--model", model.toString(), "--input", folder.toString(), "--output", folder.toString(), "--quiet");
        assertRefusedUnchanged(in, r, folder.toString(), "it is the input folder");
        assertArrayEquals(before, Files.readAllBytes(in));
        // the same folder written another way (with a trailing "/.")
        r = TrainPredictCommandTest.run("predict", "--model", model.toString(), "--input", folder.toString(), "--output",
                folder.resolve(".").toString(), "--quiet");
        assertRefusedUnchanged(in, r, "it is the input folder");
        assertArrayEquals(before, Files.readAllBytes(in));
    }

    @Test
    void inferRefusesToWriteOverItsUaiOrEvidence() throws IOException {
        Path uai = tmp.resolve("m.uai");
        String text = "MARKOV\n2\n2 2\n1\n2 0 1\n4\n1 2 3 4\n";
        Files.writeString(uai, text);
        TrainPredictCommandTest.Run r = TrainPredictCommandTest.run("infer", uai.toString(), "--output", uai.toString());
        assertRefusedUnchanged(uai, r, uai.toString(), "cannot write --output: it is the model file");
        assertEquals(text, Files.readString(uai));
        Path evid = tmp.resolve("m.evid");
        Files.writeString(evid, "1 0 1\n");
        r = TrainPredictCommandTest.run("infer", uai.toString(), "--evidence", evid.toString(), "--output", evid.toString());
        assertRefusedUnchanged(evid, r, evid.toString(), "it is the evidence file");
        assertEquals("1 0 1\n", Files.readString(evid));
        // a different output is fine
        r = TrainPredictCommandTest.run("infer", uai.toString(), "--output", tmp.resolve("m.json").toString());
        assertEquals(0, r.code(), r.err());
    }

    /** Executors keep only the most recently used models per task thread (they live on across jobs). */
    @Test
    void executorModelCacheIsBounded() throws IOException {
        java.util.List<String> dirs = new java.util.ArrayList<>();
        for (int k = 0; k < 4; k++) {
            Path copy = tmp.resolve("copies").resolve("m" + k);
            Files.createDirectories(copy.getParent());
            try (java.util.stream.Stream<Path> s = Files.walk(model)) {
                for (Path p : s.toList()) Files.copy(p, copy.resolve(model.relativize(p).toString()));
            }
            dirs.add(copy.toString());
        }
        for (String d : dirs) PredictTasks.loadedModel(d);
        assertEquals(java.util.Set.of(dirs.get(2), dirs.get(3)), PredictTasks.loadedModels());
        PredictTasks.loadedModel(dirs.get(2));     // used again: the other one goes
        PredictTasks.loadedModel(dirs.get(0));
        assertEquals(java.util.Set.of(dirs.get(2), dirs.get(0)), PredictTasks.loadedModels());
        assertEquals(PredictTasks.MODELS_KEPT, PredictTasks.loadedModels().size());
    }
}
