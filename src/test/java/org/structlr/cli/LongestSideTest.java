package org.structlr.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Map;
import java.util.Random;
import java.util.Set;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.structlr.data.Dataset;
import org.structlr.data.Example;
import org.structlr.model.CrfModel;

/**
 * {@code horses-data --longest N} end to end: examples of their own shapes, training on the ragged
 * batch, the mode in the model's image recipe, and {@code predict} reproducing it unasked with a
 * good mask at the photo's own size.
 */
class LongestSideTest {
    @TempDir
    Path tmp;

    @Test
    void horsesAtTheirOwnAspectRatioTrainAndPredict() throws IOException {
        Path db = tmp.resolve("db");
        Random rnd = new Random(3);
        for (int n = 1; n <= 6; n++) {
            boolean portrait = n % 3 == 0;
            int h = portrait ? 50 + rnd.nextInt(10) : 30 + rnd.nextInt(10), w = portrait ? 30 + rnd.nextInt(10) : 45 + rnd.nextInt(15);
            PredictImagesTest.Blob b = new PredictImagesTest.Blob(h, w, h * (0.4 + 0.2 * rnd.nextDouble()), w * (0.4 + 0.2 * rnd.nextDouble()), Math.min(h, w) * 0.3);
            String name = String.format("horse%03d.png", n);
            PredictImagesTest.write(PredictImagesTest.image(b, n, false), db.resolve("rgb").resolve(name));
            PredictImagesTest.write(PredictImagesTest.mask(b), db.resolve("figure_ground").resolve(name));
        }
        Path data = tmp.resolve("data"), model = tmp.resolve("model");
        PredictImagesTest.Run r = PredictImagesTest.run("horses-data", "--db", db.toString(), "--out", data.toString(), "--longest", "20", "--quiet");
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().contains("longest side 20"), r.out());
        Dataset ds = Dataset.load(data);
        Set<String> shapes = new HashSet<>();
        for (Example e : ds.all()) {
            int[] s = e.shape().orElseThrow();
            assertEquals(20, Math.max(s[0], s[1]), "longest side");
            shapes.add(s[0] + "x" + s[1]);
        }
        assertTrue(shapes.size() >= 3, "several shapes in one data set: " + shapes);

        r = PredictImagesTest.run("train", "--data", data.toString(), "--output", model.toString(), "--iterations", "2", "--sweeps", "10",
                "--eval-sweeps", "0", "--threads", "1", "--quiet");
        assertEquals(0, r.code(), r.err());
        Object recipe = CrfModel.load(model).provenance().get("images");
        assertTrue(recipe instanceof Map<?, ?> m && Integer.valueOf(20).equals(m.get("longest")) && !m.containsKey("height"),
                "the model records the mode: " + recipe);

        // a photo of another aspect ratio: the recipe is used unasked, the mask has the photo's own size and is right
        PredictImagesTest.Blob photo = new PredictImagesTest.Blob(45, 80, 22, 35, 13);
        Path in = tmp.resolve("photo.png"), mask = tmp.resolve("mask.png");
        PredictImagesTest.write(PredictImagesTest.image(photo, 99, false), in);
        r = PredictImagesTest.run("predict", "--model", model.toString(), "--input", in.toString(), "--output", mask.toString(), "--threads", "1");
        assertEquals(0, r.code(), r.err());
        assertTrue(r.err().contains("their own aspect ratio, longest side 20 (the model's image recipe)"), r.err());
        PredictImagesTest.assertGoodMask(mask, photo);

        // one mode at a time
        r = PredictImagesTest.run("predict", "--model", model.toString(), "--input", in.toString(), "--output", tmp.resolve("m2.png").toString(),
                "--longest", "20", "--size", "10x20");
        assertEquals(2, r.code());
        assertTrue(r.err().contains("--longest") && r.err().contains("--size"), r.err());
        assertFalse(Files.exists(tmp.resolve("m2.png")));
        r = PredictImagesTest.run("horses-data", "--db", db.toString(), "--out", tmp.resolve("d2").toString(), "--longest", "20", "--size", "10x20");
        assertEquals(2, r.code());
        assertTrue(r.err().startsWith("error: ") && r.err().contains("--longest"), r.err());
        assertFalse(Files.exists(tmp.resolve("d2")));
        r = PredictImagesTest.run("horses-data", "--db", db.toString(), "--out", tmp.resolve("d3").toString(), "--longest", "1");
        assertEquals(2, r.code(), r.err());
    }
}
