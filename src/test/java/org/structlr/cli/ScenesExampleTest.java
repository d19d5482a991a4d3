package org.structlr.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.structlr.data.Dataset;
import org.structlr.data.Example;
import org.structlr.model.CrfModel;

/**
 * The multi-class example end to end, as the README runs it (small): scenes, images-data with the
 * VOC-style lists and class table, training on the void-bordered labels, the report's metrics and
 * a colour prediction naming the classes; validation checks on the void-bordered val images. Learning
 * must fit the labelled training pixels far better than their majority class.
 */
class ScenesExampleTest {
    @TempDir
    Path tmp;

    @Test
    void scenesToDataToModelToMetrics() throws Exception {
        Path raw = tmp.resolve("raw"), data = tmp.resolve("data"), model = tmp.resolve("model"), report = tmp.resolve("r.json");
        PredictImagesTest.Run r = PredictImagesTest.run("scenes", "--out", raw.toString(), "--count", "10", "--min-side", "16", "--max-side", "24");
        assertEquals(0, r.code(), r.err());
        r = PredictImagesTest.run("images-data", "--images", raw.resolve("images").toString(), "--masks", raw.resolve("masks").toString(),
                "--classes", raw.resolve("classes.json").toString(), "--lists", raw.resolve("lists").toString(), "--own-size",
                "--out", data.toString(), "--quiet");
        assertEquals(0, r.code(), r.err());
        Dataset ds = Dataset.load(data);
        assertEquals(6, ds.train().size());
        assertEquals(2, ds.val().size());
        assertEquals(2, ds.test().size());
        assertEquals(5, ds.numLabels());
        assertTrue(ds.hasVoid("train"), "void boundaries");
        long voids = 0, all = 0;
        for (Example e : ds.train()) {
            all += e.numVariables();
            voids += e.numVariables() - e.numLabelled();
        }
        assertTrue(voids > 0.05 * all && voids < 0.5 * all, voids + " void of " + all);
        r = PredictImagesTest.run("train", "--data", data.toString(), "--iterations", "8", "--sweeps", "5", "--eval-sweeps", "5",
                "--val-every", "2", "--output", model.toString(), "--report", report.toString(), "--quiet", "--threads", "1");
        assertEquals(0, r.code(), r.err());
        JsonNode rep = new ObjectMapper().readTree(report.toFile());
        JsonNode m = rep.get("metrics");
        assertEquals(5, m.get("test").get("per_class").size());
        assertEquals("stripes", m.get("test").get("per_class").get(1).get("name").asText());
        assertTrue(m.has("val"));
        assertTrue(rep.get("validation").size() >= 2, "checks on val");
        // learning fits the labelled pixels: the train error (void left out) far below the majority class's
        long[] count = new long[5];
        long labelled = 0;
        for (Example e : ds.train()) {
            for (int y : e.labels()) {
                if (y == Example.VOID) continue;
                count[y]++;
                labelled++;
            }
        }
        long major = java.util.Arrays.stream(count).max().getAsLong();
        double baseline = 1 - (double) major / labelled;
        double trainError = rep.get("final").get("train_error").asDouble();
        assertTrue(trainError < baseline / 2, "train error " + trainError + " vs the majority class's " + baseline);
        assertEquals(ds.test().stream().mapToLong(Example::numLabelled).sum(), m.get("test").get("labelled_pixels").asLong(), "void left out");
        assertEquals("plain", CrfModel.load(model).classes().name(4));
        Path png = tmp.resolve("pred.png");
        r = PredictImagesTest.run("predict", "--model", model.toString(), "--input", raw.resolve("images/scene009.png").toString(),
                "--output", png.toString(), "--format", "color", "--quiet", "--threads", "1");
        assertEquals(0, r.code(), r.err());
        java.awt.image.BufferedImage in = javax.imageio.ImageIO.read(raw.resolve("images/scene009.png").toFile());
        java.awt.image.BufferedImage out = javax.imageio.ImageIO.read(png.toFile());
        assertEquals(in.getWidth(), out.getWidth());
        assertEquals(in.getHeight(), out.getHeight());
        java.util.Set<Integer> colours = new java.util.HashSet<>();
        for (int k = 0; k < 5; k++) colours.add(org.structlr.data.ClassTable.vocColor(k));
        for (int y = 0; y < out.getHeight(); y++) {
            for (int x = 0; x < out.getWidth(); x++) assertTrue(colours.contains(out.getRGB(x, y) & 0xFFFFFF), "a class colour at " + x + "," + y);
        }
    }
}
