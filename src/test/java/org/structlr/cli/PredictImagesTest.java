package org.structlr.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.awt.image.BufferedImage;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.Stream;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.structlr.data.Dataset;
import org.structlr.data.NpyArray;
import org.structlr.data.Npz;
import org.structlr.features.HorseLoader;
import org.structlr.features.ImageFeatures;
import org.structlr.features.LabelImages;
import org.structlr.learn.LearnSettings;
import org.structlr.learn.Training;
import org.structlr.model.CrfModel;

/**
 * {@code predict} on images: a tiny linear/linear model trained on synthetic "bright blob on a dark
 * background" images (loaded through {@link HorseLoader} with hand-made features, like the horses),
 * then masks for a PNG, a JPEG, a grey PNG and a folder, and every kind of bad input.
 */
class PredictImagesTest {
    @TempDir
    static Path shared;

    @TempDir
    Path tmp;

    static Path model;
    static final String SIZE = "18x24";

    record Run(int code, String out, String err) {}

    static Run run(String... args) {
        StringWriter out = new StringWriter(), err = new StringWriter();
        int code = Main.execute(new PrintWriter(out, true), new PrintWriter(err, true), args);
        return new Run(code, out.toString(), err.toString());
    }

    /** A blob: the disc of radius r around (cy, cx), in pixels of an h x w image. */
    record Blob(int h, int w, double cy, double cx, double r) {
        boolean inside(int y, int x) {
            double dy = y + 0.5 - cy, dx = x + 0.5 - cx;
            return dy * dy + dx * dx <= r * r;
        }

        /** Clearly inside or outside (more than 2 pixels from the outline, which resizing blurs). */
        boolean clear(int y, int x) {
            double d = Math.sqrt(Math.pow(y + 0.5 - cy, 2) + Math.pow(x + 0.5 - cx, 2));
            return Math.abs(d - r) > 2 + 0.04 * Math.max(h, w);
        }
    }

    /** A colour image: dark noisy background, a bright orange-white disc. */
    static BufferedImage image(Blob b, long seed, boolean grey) {
        Random rnd = new Random(seed);
        BufferedImage img = new BufferedImage(b.w, b.h, grey ? BufferedImage.TYPE_BYTE_GRAY : BufferedImage.TYPE_INT_RGB);
        for (int y = 0; y < b.h; y++) {
            for (int x = 0; x < b.w; x++) {
                int r, g, bl;
                if (b.inside(y, x)) {
                    r = 235 + rnd.nextInt(20);
                    g = 215 + rnd.nextInt(20);
                    bl = 190 + rnd.nextInt(20);
                } else {
                    r = 20 + rnd.nextInt(40);
                    g = 30 + rnd.nextInt(40);
                    bl = 40 + rnd.nextInt(40);
                }
                if (grey) {
                    int v = (r + g + bl) / 3;
                    img.getRaster().setSample(x, y, 0, v);
                } else {
                    img.setRGB(x, y, (r << 16) | (g << 8) | bl);
                }
            }
        }
        return img;
    }

    static BufferedImage mask(Blob b) {
        BufferedImage img = new BufferedImage(b.w, b.h, BufferedImage.TYPE_BYTE_GRAY);
        for (int y = 0; y < b.h; y++) for (int x = 0; x < b.w; x++) img.getRaster().setSample(x, y, 0, b.inside(y, x) ? 255 : 0);
        return img;
    }

    static void write(BufferedImage img, Path file) throws IOException {
        Files.createDirectories(file.getParent());
        String fmt = file.toString().endsWith(".png") ? "png" : "jpg";
        assertTrue(ImageIO.write(img, fmt, file.toFile()), "wrote " + file);
    }

    @BeforeAll
    static void trainOnce() throws IOException {
        Path db = shared.resolve("db");
        Random rnd = new Random(7);
        for (int n = 1; n <= 6; n++) {
            int h = 30 + rnd.nextInt(20), w = 40 + rnd.nextInt(20);
            Blob b = new Blob(h, w, h * (0.35 + 0.3 * rnd.nextDouble()), w * (0.3 + 0.4 * rnd.nextDouble()), Math.min(h, w) * 0.3);
            String name = String.format("horse%03d.png", n);
            write(image(b, n, false), db.resolve("rgb").resolve(name));
            write(mask(b), db.resolve("figure_ground").resolve(name));
        }
        String[] hw = SIZE.split("x");
        Dataset data = new HorseLoader(db, Integer.parseInt(hw[0]), Integer.parseInt(hw[1])).dataset(new ImageFeatures());
        assertEquals(42, data.unaryDim());
        CrfModel m = Training.train(data, "linear", "linear", new LearnSettings(2, 0.1, 10, 0, 1), 1, (r, t) -> {}).model();
        model = shared.resolve("model");
        m.save(model);
    }

    static Run predict(Path in, Path out, String... extra) {
        List<String> a = new java.util.ArrayList<>(List.of("predict", "--model", model.toString(), "--input", in.toString(),
                "--output", out.toString(), "--size", SIZE, "--threads", "1"));
        a.addAll(List.of(extra));
        if (!a.contains("--verbose")) a.add("--quiet");
        else a.remove("--verbose");
        return run(a.toArray(String[]::new));
    }

    /** The mask's size is the image's, its values 0 or 255, and the clear blob / background pixels mostly right. */
    static void assertGoodMask(Path maskFile, Blob b) throws IOException {
        assertTrue(Files.isRegularFile(maskFile), maskFile + " written");
        BufferedImage m = ImageIO.read(maskFile.toFile());
        assertEquals(b.w, m.getWidth());
        assertEquals(b.h, m.getHeight());
        int in = 0, inWhite = 0, out = 0, outBlack = 0;
        for (int y = 0; y < b.h; y++) {
            for (int x = 0; x < b.w; x++) {
                int v = m.getRaster().getSample(x, y, 0);
                assertTrue(v == 0 || v == 255, "binary mask value " + v);
                if (!b.clear(y, x)) continue;
                if (b.inside(y, x)) {
                    in++;
                    if (v == 255) inWhite++;
                } else {
                    out++;
                    if (v == 0) outBlack++;
                }
            }
        }
        assertTrue(in > 20 && out > 20, "both regions present");
        assertTrue(inWhite >= 0.9 * in, "blob labelled 1: " + inWhite + " of " + in);
        assertTrue(outBlack >= 0.9 * out, "background labelled 0: " + outBlack + " of " + out);
    }

    static final Blob PNG = new Blob(53, 71, 25, 30, 14);
    static final Blob JPG = new Blob(47, 61, 20, 38, 13);
    static final Blob GREY = new Blob(40, 40, 21, 19, 12);

    @Test
    void pngJpegAndGreyImagesGiveMasksOfTheirOwnSize() throws IOException {
        Path png = tmp.resolve("in/a.png"), jpg = tmp.resolve("in/b.JPG"), grey = tmp.resolve("in/c.png");
        write(image(PNG, 11, false), png);
        write(image(JPG, 12, false), jpg);
        write(image(GREY, 13, true), grey);
        for (Map.Entry<Path, Blob> e : Map.of(png, PNG, jpg, JPG, grey, GREY).entrySet()) {
            Path out = tmp.resolve("out").resolve(e.getKey().getFileName() + ".mask.png");
            Run r = predict(e.getKey(), out);
            assertEquals(0, r.code(), r.err());
            assertGoodMask(out, e.getValue());
        }
    }

    @Test
    void probabilitiesAtTheOriginalSize() throws IOException {
        Path png = tmp.resolve("a.png");
        write(image(PNG, 11, false), png);
        Path out = tmp.resolve("m.png"), probs = tmp.resolve("p.npz");
        Run r = predict(png, out, "--probabilities", probs.toString());
        assertEquals(0, r.code(), r.err());
        Map<String, NpyArray> a = Npz.read(probs);
        NpyArray p = a.get("probabilities");
        assertEquals(NpyArray.DType.FLOAT32, p.dtype());
        assertArrayEquals(new long[] {PNG.h, PNG.w, 2}, p.shape());
        assertArrayEquals(new int[] {PNG.h, PNG.w}, a.get("shape").toIntArray());
        float[] f = p.toFloatArray();
        int[] y = a.get("labels").toIntArray();
        BufferedImage m = ImageIO.read(out.toFile());
        for (int i = 0; i < PNG.h * PNG.w; i++) {
            assertTrue(f[2 * i] >= 0 && f[2 * i + 1] >= 0);
            assertEquals(1.0, f[2 * i] + f[2 * i + 1], 1e-4);
            assertEquals(f[2 * i + 1] > f[2 * i] ? 1 : 0, y[i]);
            assertEquals(y[i] * 255, m.getRaster().getSample(i % PNG.w, i / PNG.w, 0));
        }
    }

    /**
     * --format index (palette PNG: values = class indices, palette = class colours), --format color
     * (class colours) and --marginals (one grey map per class): all at the image's own size and all
     * the same labels as the probabilities.
     */
    @Test
    void indexColourAndMarginalOutputs() throws IOException {
        Path png = tmp.resolve("b.png");
        write(image(PNG, 12, false), png);
        Path probs = tmp.resolve("p.npz"), index = tmp.resolve("index.png"), colour = tmp.resolve("colour.png"), maps = tmp.resolve("maps");
        Run r = predict(png, index, "--probabilities", probs.toString(), "--format", "index", "--marginals", maps.toString());
        assertEquals(0, r.code(), r.err());
        assertEquals(0, predict(png, colour, "--format", "color").code());
        int[] y = Npz.read(probs).get("labels").toIntArray();
        float[] f = Npz.read(probs).get("probabilities").toFloatArray();
        BufferedImage ix = ImageIO.read(index.toFile()), co = ImageIO.read(colour.toFile());
        BufferedImage m0 = ImageIO.read(maps.resolve("b-0-0.png").toFile()), m1 = ImageIO.read(maps.resolve("b-1-1.png").toFile());
        assertTrue(ix.getColorModel() instanceof java.awt.image.IndexColorModel, "a palette PNG");
        org.structlr.data.ClassTable classes = CrfModel.load(model).classes();
        for (int i = 0; i < PNG.h * PNG.w; i++) {
            int x = i % PNG.w, yy = i / PNG.w;
            assertEquals(y[i], ix.getRaster().getSample(x, yy, 0), "index value = class");
            assertEquals(classes.color(y[i]), ix.getRGB(x, yy) & 0xFFFFFF, "palette colour = class colour");
            assertEquals(classes.color(y[i]), co.getRGB(x, yy) & 0xFFFFFF);
            assertEquals(Math.round(255 * f[2 * i]), m0.getRaster().getSample(x, yy, 0), 1);
            assertEquals(Math.round(255 * f[2 * i + 1]), m1.getRaster().getSample(x, yy, 0), 1);
        }
        assertEquals(2, Files.list(maps).count(), "one map per class");
        Run bad = predict(png, tmp.resolve("x.png"), "--format", "jpeg");
        assertEquals(2, bad.code());
        assertTrue(bad.err().contains("option '--format' must be one of mask, index, color"), bad.err());
    }

    @Test
    void folderOfImagesGivesOneMaskEach() throws IOException {
        Path in = tmp.resolve("in");
        write(image(PNG, 11, false), in.resolve("a.png"));
        write(image(JPG, 12, false), in.resolve("b.jpeg"));
        write(image(GREY, 13, true), in.resolve("c.png"));
        Files.writeString(in.resolve("notes.txt"), "ignored");
        Path out = tmp.resolve("masks"), probs = tmp.resolve("probs");
        Run r = predict(in, out, "--probabilities", probs.toString(), "--verbose"); // with the progress bar
        assertEquals(0, r.code(), r.err());
        assertEquals(List.of("a.png", "b.png", "c.png"), list(out));
        assertEquals(List.of("a.npz", "b.npz", "c.npz"), list(probs));
        assertGoodMask(out.resolve("a.png"), PNG);
        assertGoodMask(out.resolve("b.png"), JPG);
        assertGoodMask(out.resolve("c.png"), GREY);

        // the same mask as for the image alone
        Path single = tmp.resolve("single.png");
        assertEquals(0, predict(in.resolve("a.png"), single).code());
        assertArrayEquals(Files.readAllBytes(single), Files.readAllBytes(out.resolve("a.png")));
    }

    @Test
    void bilinearUpsamplingKeepsDistributionsAndConstants() {
        float[] p = {0.2f, 0.8f, 0.6f, 0.4f, 1f, 0f, 0f, 1f}; // 2x2 pixels, 2 labels
        float[] up = LabelImages.resizeBilinear(p, 2, 2, 2, 5, 7);
        for (int i = 0; i < 35; i++) assertEquals(1.0, up[2 * i] + up[2 * i + 1], 1e-6);
        // the corners of the output keep the corner values (clamped at the borders)
        assertEquals(0.8f, up[1], 1e-6);
        assertEquals(1f, up[2 * 34 + 1], 1e-6);
        assertArrayEquals(p, LabelImages.resizeBilinear(p, 2, 2, 2, 2, 2));
    }

    // ------------------------------------------------------------------------------------------
    // bad input: exit 2, one line naming the file, nothing written

    static void assertBad(Run r, String... parts) {
        assertEquals(2, r.code(), r.err());
        String[] lines = r.err().strip().split("\n");
        assertEquals(1, lines.length, r.err());
        assertTrue(lines[0].startsWith("error: "), r.err());
        for (String p : parts) assertTrue(lines[0].contains(p), "'" + p + "' in: " + r.err());
    }

    @Test
    void unreadableImage() throws IOException {
        Path bad = tmp.resolve("in/bad.png");
        Files.createDirectories(bad.getParent());
        Files.writeString(bad, "this is not a PNG");
        Path out = tmp.resolve("m.png");
        assertBad(predict(bad, out), bad.toString(), "unreadable image");
        assertFalse(Files.exists(out));

        // in a folder with good images: nothing is written for them either
        write(image(PNG, 11, false), tmp.resolve("in/a.png"));
        Path dir = tmp.resolve("masks");
        assertBad(predict(bad.getParent(), dir), bad.toString(), "unreadable image");
        assertFalse(Files.exists(dir));

        // an empty image file
        Path empty = tmp.resolve("empty.jpg");
        Files.write(empty, new byte[0]);
        assertBad(predict(empty, out), empty.toString(), "unreadable image");
        assertFalse(Files.exists(out));

        // a truncated PNG: the right signature, then nothing decodable
        Path cut = tmp.resolve("cut.png");
        byte[] whole = Files.readAllBytes(tmp.resolve("in/a.png"));
        Files.write(cut, java.util.Arrays.copyOf(whole, 40));
        assertBad(predict(cut, out), cut.toString(), "unreadable image");
        assertFalse(Files.exists(out));
    }

    @Test
    void unknownExtension() throws IOException {
        Path gif = tmp.resolve("a.gif");
        Files.write(gif, new byte[] {1, 2, 3});
        Path out = tmp.resolve("m.png");
        assertBad(predict(gif, out), gif.toString(), "unknown extension");
        assertFalse(Files.exists(out));

        Path dir = tmp.resolve("only-gifs");
        Files.createDirectories(dir);
        Files.copy(gif, dir.resolve("a.gif"));
        assertBad(predict(dir, tmp.resolve("masks")), dir.toString(), "no images");
        assertFalse(Files.exists(tmp.resolve("masks")));
    }

    @Test
    void unwritableOutputs() throws IOException {
        Path png = tmp.resolve("in/a.png");
        write(image(PNG, 11, false), png);
        Path file = tmp.resolve("FILE");
        Files.writeString(file, "x");
        assertBad(predict(png, file.resolve("m.png")), file.resolve("m.png").toString(), "cannot write");
        assertBad(predict(png, tmp.resolve("m.png"), "--probabilities", file.resolve("p.npz").toString()),
                file.resolve("p.npz").toString(), "cannot write");
        assertFalse(Files.exists(tmp.resolve("m.png")));
        assertBad(predict(png, tmp.resolve("m.npz")), "m.npz", ".png");
        assertBad(predict(png.getParent(), file), file.toString(), "cannot write");
        assertBad(predict(png.getParent(), png.getParent()), "input folder");
        assertBad(predict(png, png), "input image");
        assertEquals(List.of("FILE", "in"), list(tmp));
        assertEquals(List.of("a.png"), list(png.getParent()));
    }

    @Test
    void featuresThatDoNotMatchTheModel() throws IOException {
        Path png = tmp.resolve("a.png");
        write(image(PNG, 11, false), png);
        Path out = tmp.resolve("m.png");
        assertBad(predict(png, out, "--features", "patch"), model.toString(), "42 unary features", "243", "--features handmade");
        assertBad(predict(png, out, "--features", "sift"), "--features");
        assertBad(run("predict", "--model", model.toString(), "--input", png.toString(), "--output", out.toString(), "--size", "1x5", "--quiet"),
                "--size", "at least 2x2");
        assertFalse(Files.exists(out));
    }

    @Test
    void sameNamesInOneFolder() throws IOException {
        Path in = tmp.resolve("in");
        write(image(PNG, 11, false), in.resolve("a.png"));
        write(image(JPG, 12, false), in.resolve("a.jpg"));
        assertBad(predict(in, tmp.resolve("masks")), "a.png");
        assertFalse(Files.exists(tmp.resolve("masks")));
    }

    static List<String> list(Path dir) throws IOException {
        try (Stream<Path> s = Files.list(dir)) {
            return s.map(p -> p.getFileName().toString()).sorted().toList();
        }
    }

    /**
     * A fully convolutional unary scores an image of any shape, so predict with the shipped
     * models/horses-fcn (recipe: 36x48) keeps a 40x100 photo's aspect ratio by default: the same
     * probabilities as --longest 48, not those of the squashed --size 36x48.
     */
    @Test
    void fcnModelKeepsThePhotosAspectRatioByDefault() throws IOException {
        Path png = tmp.resolve("wide.png");
        Blob wide = new Blob(40, 100, 20, 55, 15);
        write(image(wide, 5, false), png);
        Path fcn = Path.of("models", "horses-fcn");
        float[][] probs = new float[3][];
        String[][] extra = {{}, {"--longest", "48"}, {"--size", "36x48"}};
        for (int k = 0; k < 3; k++) {
            List<String> a = new java.util.ArrayList<>(List.of("predict", "--model", fcn.toString(), "--input", png.toString(),
                    "--output", tmp.resolve("m" + k + ".png").toString(), "--probabilities", tmp.resolve("p" + k + ".npz").toString(),
                    "--threads", "1", "--quiet"));
            a.addAll(List.of(extra[k]));
            Run r = run(a.toArray(String[]::new));
            assertEquals(0, r.code(), r.err());
            NpyArray p = Npz.read(tmp.resolve("p" + k + ".npz")).get("probabilities");
            assertArrayEquals(new long[] {wide.h, wide.w, 2}, p.shape());
            probs[k] = p.toFloatArray();
        }
        assertArrayEquals(probs[1], probs[0], "default = --longest 48");
        double diff = 0;
        for (int i = 0; i < probs[0].length; i++) diff = Math.max(diff, Math.abs(probs[0][i] - probs[2][i]));
        assertTrue(diff > 1e-3, "the squashed 36x48 working size gives other probabilities (max difference " + diff + ")");
    }
}
