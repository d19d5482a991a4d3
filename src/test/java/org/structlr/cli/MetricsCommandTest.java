package org.structlr.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.structlr.data.Dataset;
import org.structlr.data.DenoisingGenerator;
import org.structlr.data.Example;
import org.structlr.data.ExampleIO;
import org.structlr.model.CrfModel;
import org.structlr.model.ExampleBatch;
import org.structlr.model.Predictor;

/**
 * The segmentation metrics of evaluate and train --report on a set whose test and val examples have
 * void labels: pixel accuracy, per-class IoU, mean IoU and the confusion matrix, void left out,
 * checked against counts made here from the model's own predictions; and training on void labels.
 */
class MetricsCommandTest {
    @TempDir
    static Path shared;

    static Path data;
    static Path model;
    static Path report;
    static TrainPredictCommandTest.Run trained;

    /** A copy of {@code e} with every third variable void. */
    static Example withVoid(Example e, java.nio.file.Path source) {
        int[] y = e.labels();
        for (int i = 0; i < y.length; i += 3) y[i] = Example.VOID;
        Example.Builder b = Example.builder(e.unary(), e.unaryDim(), e.edges(), e.pairwise(), e.pairDim()).labels(y).source(source);
        e.numLabels().ifPresent(b::numLabels);
        e.shape().ifPresent(s -> b.shape(s[0], s[1]));
        e.edgeTypes().ifPresent(b::edgeType);
        return b.build();
    }

    @BeforeAll
    static void trainOnce() throws IOException {
        data = shared.resolve("data");
        Dataset d = new DenoisingGenerator().generateTo(data, 2, 4, 12, 12, 7);
        // test examples get void labels; the last two test examples become the val split
        Files.createDirectories(data.resolve("val"));
        for (int k = 0; k < 4; k++) {
            Path f = data.resolve("test").resolve(String.format("%03d.npz", k));
            Example e = withVoid(ExampleIO.read(f), f);
            Files.delete(f);
            ExampleIO.write(k < 2 ? f : data.resolve("val").resolve(f.getFileName()), e);
        }
        model = shared.resolve("model");
        report = shared.resolve("r.json");
        trained = TrainPredictCommandTest.run(TrainPredictCommandTest.train(data, null, "--output", model.toString(), "--report", report.toString()));
    }

    /** Counts made here: the model's predictions (as evaluate runs them) against the labels, void skipped. */
    static long[][] counts(CrfModel m, List<Example> examples) {
        ExampleBatch b = new ExampleBatch(examples, m.numLabels(), m.pairTypes());
        int[] p = Predictor.predict(m, b, Predictor.defaultStop(b, 500, 1e-5)).labels();
        int[] y = b.labels();
        long[][] c = new long[2][2];
        for (int i = 0; i < y.length; i++) if (y[i] != Example.VOID) c[y[i]][p[i]]++;
        return c;
    }

    static void assertMetrics(JsonNode m, long[][] c, String what) {
        long n = c[0][0] + c[0][1] + c[1][0] + c[1][1];
        assertEquals(n, m.get("labelled_pixels").asLong(), what);
        assertEquals((double) (c[0][0] + c[1][1]) / n, m.get("pixel_accuracy").asDouble(), 1e-12, what);
        double iou0 = (double) c[0][0] / (c[0][0] + c[0][1] + c[1][0]), iou1 = (double) c[1][1] / (c[1][1] + c[1][0] + c[0][1]);
        assertEquals(iou0, m.get("per_class").get(0).get("iou").asDouble(), 1e-12, what);
        assertEquals(iou1, m.get("per_class").get(1).get("iou").asDouble(), 1e-12, what);
        assertEquals((iou0 + iou1) / 2, m.get("mean_iou").asDouble(), 1e-12, what);
        for (int t = 0; t < 2; t++) for (int p = 0; p < 2; p++) assertEquals(c[t][p], m.get("confusion").get(t).get(p).asLong(), what);
    }

    @Test
    void trainReportHasTheTestAndValMetrics() throws IOException {
        assertEquals(0, trained.code(), trained.err());
        assertTrue(trained.out().contains("test: pixel accuracy") && trained.out().contains("mean IoU"), trained.out());
        JsonNode r = new ObjectMapper().readTree(report.toFile());
        Dataset ds = Dataset.load(data);
        CrfModel m = CrfModel.load(model);
        assertMetrics(r.get("metrics").get("test"), counts(m, ds.test()), "report test");
        assertMetrics(r.get("metrics").get("val"), counts(m, ds.val()), "report val");
        assertEquals("0", r.get("classes").get("classes").get(0).get("name").asText());
        assertTrue(Files.size(shared.resolve("r-confusion-test.png")) > 1000);
        assertTrue(Files.size(shared.resolve("r-confusion-val.png")) > 1000);
    }

    @Test
    void evaluateGivesTheSameMetricsForEverySplit() throws IOException {
        Path out = shared.resolve("e.json");
        TrainPredictCommandTest.Run r = TrainPredictCommandTest.run("evaluate", "--model", model.toString(), "--data", data.toString(),
                "--output", out.toString(), "--quiet", "--threads", "1");
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().matches("(?s).*test error [01]\\.\\d{4} \\(2 examples\\)  pixel accuracy [01]\\.\\d{4}  mean IoU [01]\\.\\d{4}.*"), r.out());
        JsonNode e = new ObjectMapper().readTree(out.toFile());
        Dataset ds = Dataset.load(data);
        CrfModel m = CrfModel.load(model);
        for (String split : List.of("train", "test", "val")) {
            long[][] c = counts(m, ds.split(split));
            assertMetrics(e.get("metrics").get(split), c, "evaluate " + split);
            double err = (double) (c[0][1] + c[1][0]) / (c[0][0] + c[0][1] + c[1][0] + c[1][1]);
            assertEquals(err, e.get(split + "_error").asDouble(), 1e-12, "the error skips void too");
            assertTrue(Files.size(shared.resolve("e-confusion-" + split + ".png")) > 1000);
        }
    }

    /** A labelled variable turned void leaves exactly its own cell of the counts (its prediction no longer counts). */
    @Test
    void aVariableTurnedVoidLeavesTheCounts() {
        Dataset ds = Dataset.load(data);
        CrfModel m = CrfModel.load(model);
        List<Example> test = ds.test();
        org.structlr.metrics.ConfusionMatrix a = org.structlr.metrics.Evaluation.confusion(m, test, 500, 1e-5);
        Example first = test.get(0);
        int[] y = first.labels();
        int i = 1;
        while (y[i] == Example.VOID) i++;
        ExampleBatch b = new ExampleBatch(List.of(first), m.numLabels(), m.pairTypes());
        int predicted = Predictor.predict(m, b, Predictor.defaultStop(b, 500, 1e-5)).labels()[i];
        int truth = y[i];
        y[i] = Example.VOID;
        Example changed = Example.builder(first.unary(), first.unaryDim(), first.edges(), first.pairwise(), first.pairDim())
                .labels(y).shape(12, 12).edgeType(first.edgeTypes().orElseThrow()).numLabels(2).build();
        org.structlr.metrics.ConfusionMatrix c = org.structlr.metrics.Evaluation.confusion(m, List.of(changed, test.get(1)), 500, 1e-5);
        for (int t = 0; t < 2; t++) {
            for (int p = 0; p < 2; p++) assertEquals(a.count(t, p) - (t == truth && p == predicted ? 1 : 0), c.count(t, p), "cell " + t + "," + p);
        }
    }

    /** Training on void labels (the simple form: no term of their own) through the command; extrapolation refuses it for now. */
    @Test
    void trainingOnVoidLabels() throws IOException {
        Path d2 = shared.resolve("void-train");
        new DenoisingGenerator().generateTo(d2, 2, 1, 8, 8, 3);
        Path f = d2.resolve("train/000.npz");
        Example e = withVoid(ExampleIO.read(f), f);
        ExampleIO.write(f, e);
        TrainPredictCommandTest.Run r = TrainPredictCommandTest.run(TrainPredictCommandTest.train(d2, null, "--output", shared.resolve("m2").toString()));
        assertEquals(0, r.code(), r.err());
        assertTrue(Files.isRegularFile(shared.resolve("m2/model.json")));
        r = TrainPredictCommandTest.run(TrainPredictCommandTest.train(d2, null, "--output", shared.resolve("m3").toString(), "--schedule", "extrapolate"));
        assertEquals(2, r.code(), r.err());
        assertTrue(r.err().contains("void labels") && r.err().contains("use --schedule paper or adaptive"), r.err());
        assertFalse(Files.exists(shared.resolve("m3")));
    }
}
