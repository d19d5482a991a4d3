package org.structlr.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.structlr.data.Dataset;
import org.structlr.experiment.AllPairsTest;
import org.structlr.model.CrfModel;

/**
 * {@code demo}: the README's first command, at CI size. It generates the data, trains (linear,
 * linear), and writes the model, the report, the curve and two figures; the model must beat the
 * unary-only baseline (the generator's per-pixel Bayes rule) on its training images, and a rerun
 * replaces the data it made but never a folder it did not make.
 */
class DemoCommandTest {
    @TempDir
    Path tmp;

    static final byte[] PNG = {(byte) 0x89, 'P', 'N', 'G'};

    private TrainPredictCommandTest.Run demo(Path out, int train) {
        return TrainPredictCommandTest.run("demo", "--out", out.toString(), "--iterations", "6", "--train", String.valueOf(train),
                "--test", "1", "--size", "16", "--seed", "11", "--threads", "1", "--quiet");
    }

    @Test
    void writesModelReportCurveAndFiguresAndLearns() throws Exception {
        Path out = tmp.resolve("demo");
        TrainPredictCommandTest.Run r = demo(out, 2);
        assertEquals(0, r.code(), r.err());
        for (String f : List.of("model/model.json", "report.json", "curve.csv", "errors.png", "objective.png"))
            assertTrue(Files.isRegularFile(out.resolve(f)), f + " written");
        for (String png : List.of("errors.png", "objective.png")) {
            byte[] head = java.util.Arrays.copyOf(Files.readAllBytes(out.resolve(png)), 4);
            assertArrayEquals(PNG, head, png + " is a PNG");
        }
        JsonNode report = new ObjectMapper().readTree(out.resolve("report.json").toFile());
        List<Double> objective = new ArrayList<>();
        for (JsonNode row : report.get("iterations")) objective.add(row.get("objective").asDouble());
        assertEquals(6, objective.size(), "one curve row per iteration at this size (eval-every = max(1, iterations / 20))");
        for (int i = 1; i < objective.size(); i++)
            assertTrue(objective.get(i) <= objective.get(i - 1) * (1 + 1e-6), "the objective never rises: " + objective);

        Dataset data = Dataset.load(out.resolve("data"));
        assertEquals(2, data.train().size());
        double baseline = AllPairsTest.unaryOnlyError(data.train());
        double trainError = report.get("final").get("train_error").asDouble();
        assertTrue(trainError < baseline, "training error " + trainError + " below the unary-only baseline " + baseline);
        CrfModel model = CrfModel.load(out.resolve("model"));
        assertEquals("linear", model.settings().get("unary"));
        assertEquals("linear", model.settings().get("pairwise"));
    }

    @Test
    void zeroIterationsIsOneUsageErrorAndWritesNothing() {
        Path out = tmp.resolve("zero");
        TrainPredictCommandTest.Run r = TrainPredictCommandTest.run("demo", "--out", out.toString(), "--iterations", "0", "--quiet");
        assertEquals(2, r.code(), r.err());
        assertEquals("error: option '--iterations' must be at least 1 for demo, got 0", r.err().strip());
        assertTrue(Files.notExists(out), "nothing written");
    }

    @Test
    void aRerunReplacesItsDataButNotAFolderItDidNotMake() throws Exception {
        Path out = tmp.resolve("demo");
        assertEquals(0, demo(out, 2).code());
        TrainPredictCommandTest.Run again = demo(out, 3);
        assertEquals(0, again.code(), again.err());
        assertEquals(3, Dataset.load(out.resolve("data")).train().size(), "the rerun's data replaced the first");

        Path other = tmp.resolve("other");
        Files.createDirectories(other.resolve("data"));
        Files.writeString(other.resolve("data").resolve("mine.txt"), "keep me");
        TrainPredictCommandTest.Run refused = demo(other, 2);
        assertEquals(2, refused.code(), refused.err());
        assertTrue(refused.err().contains("not written by structlr"), refused.err());
        assertEquals("keep me", Files.readString(other.resolve("data").resolve("mine.txt")));
    }
}
