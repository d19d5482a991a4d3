package org.structlr.cli;

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
import org.structlr.data.DenoisingGenerator;
import org.structlr.data.NpyArray;
import org.structlr.data.Npz;

/** {@code --engine} on train, experiment, predict, evaluate: recorded, enforced on resume, refused when it cannot run. */
class EngineOptionTest {
    @TempDir
    static Path shared;

    @TempDir
    Path tmp;

    static Path images;
    static Path noImages;

    @BeforeAll
    static void data() throws IOException {
        images = shared.resolve("images");
        new DenoisingGenerator().generateTo(images, 2, 2, 10, 10, 3);
        // the same examples without their 'shape': graphs, not images
        noImages = shared.resolve("graphs");
        for (String part : List.of("train", "test")) {
            Files.createDirectories(noImages.resolve(part));
            try (Stream<Path> files = Files.list(images.resolve(part))) {
                for (Path f : files.toList()) {
                    Map<String, NpyArray> a = new LinkedHashMap<>(Npz.read(f));
                    a.remove("shape");
                    Npz.write(noImages.resolve(part).resolve(f.getFileName()), a);
                }
            }
        }
    }

    static TrainPredictCommandTest.Run run(String... args) {
        return TrainPredictCommandTest.run(args);
    }

    private static JsonNode settings(Path model) throws IOException {
        return new ObjectMapper().readTree(model.resolve("model.json").toFile()).path("settings");
    }

    @Test
    void theEngineIsRecordedInTheModel() throws IOException {
        Path nd4j = tmp.resolve("nd4j"), auto = tmp.resolve("auto");
        TrainPredictCommandTest.Run r = run(TrainPredictCommandTest.train(images, null, "--engine", "nd4j", "--output", nd4j.toString()));
        assertEquals(0, r.code(), r.err());
        assertEquals("nd4j", settings(nd4j).path("engine").asText());
        r = run(TrainPredictCommandTest.train(images, null, "--output", auto.toString()));
        assertEquals(0, r.code(), r.err());
        assertEquals("auto", settings(auto).path("engine").asText());
    }

    @Test
    void theFusedEngineOnGraphsThatAreNoImagesIsOneErrorAndNoModel() {
        Path out = tmp.resolve("m");
        TrainPredictCommandTest.Run r = run(TrainPredictCommandTest.train(noImages, null, "--engine", "fused", "--output", out.toString()));
        assertEquals(2, r.code(), r.err());
        assertTrue(r.err().startsWith("error: --engine fused runs only on images"), r.err());
        assertEquals(1, r.err().lines().count(), r.err());
        assertFalse(Files.exists(out));
        // the same data trains with the engines that run any graph
        for (String engine : List.of("nd4j", "loop", "auto")) {
            TrainPredictCommandTest.Run ok = run(TrainPredictCommandTest.train(noImages, null, "--engine", engine));
            assertEquals(0, ok.code(), engine + ": " + ok.err());
        }
    }

    @Test
    void aResumeOnAnotherEngineIsRefused() throws IOException {
        Path cp = tmp.resolve("cp");
        TrainPredictCommandTest.Run r = run(TrainPredictCommandTest.train(images, null, "--engine", "nd4j", "--checkpoint", cp.toString()));
        assertEquals(0, r.code(), r.err());
        TrainPredictCommandTest.Run again = run("train", "--data", images.toString(), "--resume", cp.toString(), "--iterations", "3",
                "--engine", "loop", "--quiet", "--threads", "1");
        assertEquals(2, again.code(), again.err());
        assertTrue(again.err().contains("the checkpoint was trained with --engine nd4j, not loop"), again.err());
        TrainPredictCommandTest.Run same = run("train", "--data", images.toString(), "--resume", cp.toString(), "--iterations", "3",
                "--quiet", "--threads", "1");
        assertEquals(0, same.code(), same.err());
    }

    @Test
    void predictAndEvaluateRunTheNamedEngine() throws IOException {
        Path model = tmp.resolve("model");
        assertEquals(0, run(TrainPredictCommandTest.train(noImages, null, "--output", model.toString())).code());
        Path example = Files.list(noImages.resolve("test")).sorted().findFirst().orElseThrow();
        TrainPredictCommandTest.Run fused = run("predict", "--model", model.toString(), "--input", example.toString(),
                "--output", tmp.resolve("p.npz").toString(), "--engine", "fused", "--quiet");
        assertEquals(2, fused.code(), fused.err());
        assertTrue(fused.err().startsWith("error: --engine fused runs only on images"), fused.err());
        assertFalse(Files.exists(tmp.resolve("p.npz")));
        Path a = tmp.resolve("loop.npz"), b = tmp.resolve("nd4j.npz");
        assertEquals(0, run("predict", "--model", model.toString(), "--input", example.toString(), "--output", a.toString(), "--engine", "loop",
                "--quiet").code());
        assertEquals(0, run("predict", "--model", model.toString(), "--input", example.toString(), "--output", b.toString(), "--engine", "nd4j",
                "--quiet").code());
        org.junit.jupiter.api.Assertions.assertArrayEquals(Npz.read(a).get("labels").toIntArray(), Npz.read(b).get("labels").toIntArray());
        Path json = tmp.resolve("e.json");
        TrainPredictCommandTest.Run e = run("evaluate", "--model", model.toString(), "--data", noImages.toString(), "--engine", "nd4j",
                "--output", json.toString(), "--quiet");
        assertEquals(0, e.code(), e.err());
        assertEquals("nd4j", new ObjectMapper().readTree(json.toFile()).path("engine").asText());
    }

    @Test
    void everyCommandThatRunsInferenceTakesIt() {
        for (String[] cmd : List.of(new String[] {"train"}, new String[] {"experiment", "denoise"}, new String[] {"infer"},
                new String[] {"predict"}, new String[] {"evaluate"})) {
            String[] help = java.util.Arrays.copyOf(cmd, cmd.length + 1);
            help[cmd.length] = "--help";
            TrainPredictCommandTest.Run h = run(help);
            assertEquals(0, h.code());
            assertTrue(h.out().contains("--engine=ENGINE"), String.join(" ", cmd) + ": " + h.out());
        }
        TrainPredictCommandTest.Run bad = run(TrainPredictCommandTest.train(images, null, "--engine", "gpu"));
        assertEquals(2, bad.code());
        assertTrue(bad.err().contains("unknown engine 'gpu': one of auto, fused, nd4j, loop"), bad.err());
    }
}
