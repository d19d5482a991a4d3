package org.structlr.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.structlr.data.Dataset;
import org.structlr.data.DenoisingGenerator;
import org.structlr.data.ExampleIO;
import org.structlr.data.NpyArray;
import org.structlr.data.Npz;
import org.structlr.features.HorseLoader;
import org.structlr.features.ImageFeatures;
import org.structlr.learn.LearnListener;
import org.structlr.learn.LearnSettings;
import org.structlr.learn.Training;

/**
 * {@code predict --spark local[2]} writes the files one machine writes: a folder of .npz examples
 * (same arrays) and a folder of images (same mask PNG bytes, same probabilities); bad input is
 * refused on the driver before any task runs.
 */
class SparkPredictTest {
    @TempDir
    Path tmp;

    record Run(int code, String err) {}

    static Run run(String... args) {
        StringWriter out = new StringWriter(), err = new StringWriter();
        int code = Main.execute(new PrintWriter(out, true), new PrintWriter(err, true), args);
        return new Run(code, err.toString());
    }

    static List<String> names(Path dir) throws IOException {
        try (Stream<Path> s = Files.list(dir)) {
            return s.map(p -> p.getFileName().toString()).sorted().toList();
        }
    }

    static void assertSameNpz(Path expected, Path actual) {
        Map<String, NpyArray> e = Npz.read(expected), a = Npz.read(actual);
        assertEquals(e.keySet(), a.keySet(), actual.toString());
        for (String k : e.keySet()) assertEquals(e.get(k), a.get(k), actual + ": " + k);
    }

    @Test
    void npzFolderGivesTheOneMachineOutputs() throws IOException {
        Dataset data = new DenoisingGenerator().generate(2, 5, 16, 16, 23);
        Path model = tmp.resolve("model"), in = tmp.resolve("in"), one = tmp.resolve("one"), spark = tmp.resolve("spark");
        Training.train(data, "linear", "linear", new LearnSettings(2, 0.1, 10, 0, 1), 1, LearnListener.NONE).model().save(model);
        Files.createDirectories(in);
        for (int k = 0; k < data.test().size(); k++) ExampleIO.write(in.resolve("ex" + k + ".npz"), data.test().get(k));

        Run r1 = run("predict", "--model", model.toString(), "--input", in.toString(), "--output", one.toString(), "--threads", "1", "--quiet");
        assertEquals(Main.EXIT_OK, r1.code(), r1.err());
        Run r2 = run("predict", "--model", model.toString(), "--input", in.toString(), "--output", spark.toString(), "--threads", "1",
                "--spark", "local[2]");
        assertEquals(Main.EXIT_OK, r2.code(), r2.err());
        assertEquals(names(one), names(spark));
        assertEquals(5, names(spark).size());
        for (String n : names(one)) assertSameNpz(one.resolve(n), spark.resolve(n));
        // the executors' log lines come back in input order
        List<String> lines = r2.err().lines().filter(l -> l.contains(" -> ")).toList();
        assertEquals(5, lines.size(), r2.err());
        for (int k = 0; k < 5; k++) assertTrue(lines.get(k).contains("ex" + k + ".npz"), lines.get(k));

        // a truncated example among good ones: one error naming it, no output at all
        Path bad = tmp.resolve("bad"), badOut = tmp.resolve("bad-out");
        Files.createDirectories(bad);
        for (String n : names(in)) Files.copy(in.resolve(n), bad.resolve(n));
        byte[] b = Files.readAllBytes(in.resolve("ex0.npz"));
        Files.write(bad.resolve("ex2.npz"), java.util.Arrays.copyOf(b, b.length / 2));
        Run r3 = run("predict", "--model", model.toString(), "--input", bad.toString(), "--output", badOut.toString(), "--spark", "local[2]", "--quiet");
        assertEquals(Main.EXIT_USAGE, r3.code(), r3.err());
        assertEquals(1, r3.err().strip().lines().count(), r3.err());
        assertTrue(r3.err().startsWith("error: ") && r3.err().contains("ex2.npz"), r3.err());
        assertFalse(Files.exists(badOut) && names(badOut).size() > 0, "no output written");
    }

    @Test
    void imageFolderGivesTheOneMachineMasks() throws IOException {
        Path db = tmp.resolve("db");
        Random rnd = new Random(7);
        List<PredictImagesTest.Blob> blobs = new ArrayList<>();
        for (int n = 1; n <= 4; n++) {
            int h = 30 + rnd.nextInt(20), w = 40 + rnd.nextInt(20);
            PredictImagesTest.Blob b = new PredictImagesTest.Blob(h, w, h * (0.35 + 0.3 * rnd.nextDouble()), w * (0.3 + 0.4 * rnd.nextDouble()),
                    Math.min(h, w) * 0.3);
            blobs.add(b);
            String name = String.format("horse%03d.png", n);
            PredictImagesTest.write(PredictImagesTest.image(b, n, false), db.resolve("rgb").resolve(name));
            PredictImagesTest.write(PredictImagesTest.mask(b), db.resolve("figure_ground").resolve(name));
        }
        Dataset data = new HorseLoader(db, 18, 24).dataset(new ImageFeatures());
        Path model = tmp.resolve("model");
        Training.train(data, "linear", "linear", new LearnSettings(2, 0.1, 10, 0, 1), 1, LearnListener.NONE).model().save(model);
        Path in = db.resolve("rgb");
        List<String> args = List.of("predict", "--model", model.toString(), "--input", in.toString(), "--size", "18x24", "--threads", "1", "--quiet");
        List<String> a1 = new ArrayList<>(args), a2 = new ArrayList<>(args);
        a1.addAll(List.of("--output", tmp.resolve("one").toString(), "--probabilities", tmp.resolve("one-p").toString()));
        a2.addAll(List.of("--output", tmp.resolve("spark").toString(), "--probabilities", tmp.resolve("spark-p").toString(), "--spark", "local[2]"));
        Run r1 = run(a1.toArray(String[]::new)), r2 = run(a2.toArray(String[]::new));
        assertEquals(Main.EXIT_OK, r1.code(), r1.err());
        assertEquals(Main.EXIT_OK, r2.code(), r2.err());
        assertEquals(4, names(tmp.resolve("spark")).size());
        assertEquals(names(tmp.resolve("one")), names(tmp.resolve("spark")));
        for (String n : names(tmp.resolve("one"))) {
            assertArrayEquals(Files.readAllBytes(tmp.resolve("one").resolve(n)), Files.readAllBytes(tmp.resolve("spark").resolve(n)), n);
        }
        assertEquals(names(tmp.resolve("one-p")), names(tmp.resolve("spark-p")));
        for (String n : names(tmp.resolve("one-p"))) assertSameNpz(tmp.resolve("one-p").resolve(n), tmp.resolve("spark-p").resolve(n));
        // the masks are masks of the blobs (not just equal): the mask of the first image is mostly right
        PredictImagesTest.assertGoodMask(tmp.resolve("spark").resolve("horse001.png"), blobs.get(0));
    }
}
