package org.structlr.features;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.awt.image.BufferedImage;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import javax.imageio.ImageIO;
import org.deeplearning4j.nn.conf.preprocessor.FeedForwardToCnnPreProcessor;
import org.deeplearning4j.nn.workspace.LayerWorkspaceMgr;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.structlr.cli.Main;
import org.structlr.data.BadInputException;
import org.structlr.data.Dataset;
import org.structlr.data.Example;
import org.structlr.graph.FactorGraph;
import org.structlr.graph.Grids;

/**
 * The horse loader and the image features on small synthetic images (written as PNG so that
 * pixel values are exact; the loader decodes by content) and, when present, on the real data set.
 */
class HorseFeaturesTest {
    static final int H = 16, W = 20;
    // the bright square: rows [R0, R1), columns [C0, C1)
    static final int R0 = 4, R1 = 12, C0 = 6, C1 = 14;
    static final int[] DARK = {20, 40, 60}, BRIGHT = {230, 200, 170};

    @TempDir
    Path tmp;

    // ------------------------------------------------------------------ synthetic image helpers

    /** An h x w image with the square scaled by {@code s} (square rows s*R0..s*R1 etc.). */
    static BufferedImage squareImage(int s) {
        BufferedImage im = new BufferedImage(W * s, H * s, BufferedImage.TYPE_INT_RGB);
        for (int r = 0; r < H * s; r++) {
            for (int c = 0; c < W * s; c++) {
                boolean in = r >= R0 * s && r < R1 * s && c >= C0 * s && c < C1 * s;
                int[] v = in ? BRIGHT : DARK;
                im.setRGB(c, r, (v[0] << 16) | (v[1] << 8) | v[2]);
            }
        }
        return im;
    }

    /** The mask of the square at scale s: 255 inside, 0 outside. */
    static BufferedImage squareMask(int s) {
        BufferedImage im = new BufferedImage(W * s, H * s, BufferedImage.TYPE_BYTE_GRAY);
        for (int r = 0; r < H * s; r++) {
            for (int c = 0; c < W * s; c++) {
                boolean in = r >= R0 * s && r < R1 * s && c >= C0 * s && c < C1 * s;
                im.getRaster().setSample(c, r, 0, in ? 255 : 0);
            }
        }
        return im;
    }

    static Path db(Path root) throws IOException {
        Files.createDirectories(root.resolve("rgb"));
        Files.createDirectories(root.resolve("figure_ground"));
        return root;
    }

    static void put(Path db, int number, BufferedImage rgb, BufferedImage mask) throws IOException {
        String name = String.format("horse%03d.png", number);
        if (rgb != null) ImageIO.write(rgb, "png", db.resolve("rgb").resolve(name).toFile());
        if (mask != null) ImageIO.write(mask, "png", db.resolve("figure_ground").resolve(name).toFile());
    }

    static float[] flat(int h, int w, float r, float g, float b) {
        float[] x = new float[3 * h * w];
        for (int i = 0; i < h * w; i++) {
            x[3 * i] = r;
            x[3 * i + 1] = g;
            x[3 * i + 2] = b;
        }
        return x;
    }

    /** Grey image: left of column {@code at} 0, from it on 1 (vertical edge), or the same along rows. */
    static float[] step(int h, int w, int at, boolean vertical) {
        float[] x = new float[3 * h * w];
        for (int r = 0; r < h; r++) {
            for (int c = 0; c < w; c++) {
                float v = (vertical ? c : r) >= at ? 1f : 0f;
                for (int ch = 0; ch < 3; ch++) x[3 * (r * w + c) + ch] = v;
            }
        }
        return x;
    }

    Example squareExample() throws IOException {
        Path db = db(tmp.resolve("db"));
        put(db, 1, squareImage(1), squareMask(1));
        HorseLoader loader = new HorseLoader(db, H, W); // native size: no resampling
        return ImageFeatures.example(loader.load(db.resolve("rgb/horse001.png")), new ImageFeatures(), 2);
    }

    // ------------------------------------------------------------------ features

    @Test
    void shapesEdgesAndTypesFollowTheGrid() throws IOException {
        Example ex = squareExample();
        int v = H * W, e = H * (W - 1) + (H - 1) * W;
        assertEquals(v, ex.numVariables());
        assertEquals(42, ex.unaryDim());
        assertEquals(e, ex.numEdges());
        assertEquals(3, ex.pairDim());
        assertArrayEquals(new int[] {H, W}, ex.shape().orElseThrow());
        assertEquals(2, ex.numLabels().getAsInt());
        assertEquals(v, ex.labels().length);
        FactorGraph g = Grids.grid(H, W, 2, true);
        int[] types = ex.edgeTypes().orElseThrow();
        for (int k = 0; k < e; k++) {
            assertEquals(g.edgeFrom(k), ex.edgeFrom(k), "edge " + k);
            assertEquals(g.edgeTo(k), ex.edgeTo(k), "edge " + k);
            assertEquals(g.edgeType(k), types[k], "edge type " + k);
        }
        assertEquals(0, types[0]);
        assertEquals(1, types[e - 1]);
    }

    @Test
    void constantRgbAndPositionColumns() throws IOException {
        Example ex = squareExample();
        for (int r = 0; r < H; r++) {
            for (int c = 0; c < W; c++) {
                int i = r * W + c;
                boolean in = r >= R0 && r < R1 && c >= C0 && c < C1;
                int[] col = in ? BRIGHT : DARK;
                assertEquals(1f, ex.unary(i, 0));
                for (int ch = 0; ch < 3; ch++) assertEquals(col[ch] / 255f, ex.unary(i, 1 + ch), 1e-6, "RGB of pixel " + i);
                assertEquals((float) r / (H - 1), ex.unary(i, 4), 1e-6);
                assertEquals((float) c / (W - 1), ex.unary(i, 5), 1e-6);
                assertEquals(in ? 1 : 0, ex.label(i));
            }
        }
        for (int k = 0; k < ex.numEdges(); k++) assertEquals(1f, ex.pairwise(k, 0));
        assertEquals(0f, ex.unary(0, 4));
        assertEquals(1f, ex.unary(H * W - 1, 4));
        assertEquals(1f, ex.unary(H * W - 1, 5));
    }

    @Test
    void hogIsZeroOnAFlatImage() {
        float[] f = new ImageFeatures().compute(10, 12, flat(10, 12, 0.3f, 0.6f, 0.9f));
        for (int i = 0; i < 120; i++) for (int k = 6; k < 42; k++) assertEquals(0f, f[i * 42 + k]);
    }

    @Test
    void hogPeaksInTheOrientationBinOfAnEdge() {
        int h = 12, w = 12, cell = 3;
        // vertical edge (intensity changes along the row): gradient at 0 degrees -> bin 0
        float[] vert = ImageFeatures.hog(h, w, step(h, w, 6, true), cell);
        // horizontal edge: gradient at 90 degrees -> halfway between bins 4 (80) and 5 (100)
        float[] hor = ImageFeatures.hog(h, w, step(h, w, 6, false), cell);
        int pixel = 6 * w + 6; // block rows/cols 3..8 straddle the edge
        double[] binV = binTotals(vert, pixel), binH = binTotals(hor, pixel);
        for (int b = 1; b < 9; b++) assertEquals(0, binV[b], 1e-6, "vertical edge, bin " + b);
        assertTrue(binV[0] > 0.9, "vertical edge: bin 0 holds the block's unit-ish norm, got " + binV[0]);
        assertEquals(binH[4], binH[5], 1e-6);
        for (int b = 0; b < 9; b++) if (b != 4 && b != 5) assertEquals(0, binH[b], 1e-6, "horizontal edge, bin " + b);
        assertTrue(binH[4] > 0.6);
        // L2 normalisation with eps: norm below 1, close to it for a strong edge
        double n2 = 0;
        for (int k = 0; k < 36; k++) n2 += vert[pixel * 36 + k] * vert[pixel * 36 + k];
        assertTrue(n2 < 1 && n2 > 0.95, "block norm^2 " + n2);
        // far from the edge the block sees nothing
        double far = 0;
        for (int k = 0; k < 36; k++) far += vert[(6 * w) * 36 + k];
        assertEquals(0, far, 1e-9);
    }

    /** The bin values of a pixel's block summed over its four cells. */
    static double[] binTotals(float[] hog, int pixel) {
        double[] t = new double[9];
        for (int cell = 0; cell < 4; cell++) for (int b = 0; b < 9; b++) t[b] += hog[pixel * 36 + cell * 9 + b];
        return t;
    }

    @Test
    void hogCellsSplitTheBlockAroundThePixel() {
        // a vertical edge at column 6 seen from pixel column 6 (cell 3: block columns 3..8): the
        // edge's gradient sits at columns 5 and 6, i.e. in the left cells (col 5) and right cells (col 6)
        int h = 12, w = 12;
        float[] hog = ImageFeatures.hog(h, w, step(h, w, 6, true), 3);
        int pixel = 6 * w + 6;
        for (int cell = 0; cell < 4; cell++) assertTrue(hog[pixel * 36 + cell * 9] > 0.3, "cell " + cell);
        // seen from column 10 (block columns 7..12, clipped to 7..11) there is no gradient at all
        int right = 6 * w + 10;
        for (int k = 0; k < 36; k++) assertEquals(0f, hog[right * 36 + k]);
    }

    @Test
    void sobelEdgeFeatureIsLargerAcrossTheBorderThanInside() throws IOException {
        Example ex = squareExample();
        double border = Double.POSITIVE_INFINITY, inside = 0;
        for (int k = 0; k < ex.numEdges(); k++) {
            int i = ex.edgeFrom(k), j = ex.edgeTo(k);
            boolean across = ex.label(i) != ex.label(j);
            boolean deepInside = isDeepInside(i) && isDeepInside(j);
            if (across) border = Math.min(border, ex.pairwise(k, 2));
            if (deepInside) inside = Math.max(inside, ex.pairwise(k, 2));
        }
        assertEquals(0, inside, 1e-6);
        assertTrue(border > 0.2, "weakest Sobel response across the border " + border);
        // a unit luma step gives 1 on both sides: edge straddling it has feature 1
        float[] sob = ImageFeatures.sobel(6, 6, step(6, 6, 3, true));
        assertEquals(1f, sob[2 * 6 + 2], 1e-6);
        assertEquals(1f, sob[2 * 6 + 3], 1e-6);
        assertEquals(0f, sob[2 * 6 + 0], 1e-6);
    }

    static boolean isDeepInside(int i) {
        int r = i / W, c = i % W;
        return r >= R0 + 2 && r < R1 - 2 && c >= C0 + 2 && c < C1 - 2;
    }

    @Test
    void colourDistanceIsExact() throws IOException {
        Example ex = squareExample();
        double want = Math.sqrt(sq(BRIGHT[0] - DARK[0]) + sq(BRIGHT[1] - DARK[1]) + sq(BRIGHT[2] - DARK[2])) / 255;
        // horizontal edge (R0, C0-1) -> (R0, C0): dark -> bright
        int e = R0 * (W - 1) + (C0 - 1);
        assertEquals(R0 * W + C0 - 1, ex.edgeFrom(e));
        assertEquals(R0 * W + C0, ex.edgeTo(e));
        assertEquals(want, ex.pairwise(e, 1), 1e-6);
        assertEquals(0f, ex.pairwise(0, 1), 1e-7);
        // a known pair of arbitrary colours
        float[] two = {0.1f, 0.5f, 0.9f, 0.4f, 0.1f, 0.3f};
        float[] p = ImageFeatures.pairwise(1, 2, two);
        assertEquals(Math.sqrt(0.09 + 0.16 + 0.36), p[1], 1e-6);
    }

    static double sq(double x) { return x * x; }

    @Test
    void patchFeaturesAreChannelMajorAndReadByDl4jAsKxKx3() {
        int h = 5, w = 6, k = 3;
        float[] rgb = new float[3 * h * w];
        for (int i = 0; i < h * w; i++) for (int ch = 0; ch < 3; ch++) rgb[3 * i + ch] = (i + 100 * ch) / 1000f;
        PatchFeatures pf = new PatchFeatures(k);
        assertEquals(27, pf.dim());
        float[] f = pf.compute(h, w, rgb);
        assertEquals(h * w * 27, f.length);
        // pixel (2, 3): patch rows 1..3, cols 2..4
        int pixel = 2 * w + 3;
        for (int ch = 0; ch < 3; ch++) {
            for (int dy = 0; dy < k; dy++) {
                for (int dx = 0; dx < k; dx++) {
                    int src = (1 + dy) * w + (2 + dx);
                    assertEquals(rgb[3 * src + ch], f[pixel * 27 + ch * 9 + dy * 3 + dx]);
                }
            }
        }
        // corner (0, 0): edge replication, the top-left patch entry is pixel (0, 0) itself
        assertEquals(rgb[0], f[0]);
        assertEquals(rgb[1], f[9]);
        // the centre of every patch is the pixel's own colour
        for (int i = 0; i < h * w; i++) assertEquals(rgb[3 * i + 2], f[i * 27 + 18 + 4]);
        // DL4J's convolutionalFlat preprocessor reads the row as [channel, row, col]
        INDArray row = Nd4j.createFromArray(java.util.Arrays.copyOfRange(f, pixel * 27, (pixel + 1) * 27)).reshape(1, 27);
        INDArray img = new FeedForwardToCnnPreProcessor(k, k, 3).preProcess(row, 1, LayerWorkspaceMgr.noWorkspaces());
        assertArrayEquals(new long[] {1, 3, k, k}, img.shape());
        assertEquals(rgb[3 * ((1 + 0) * w + (2 + 2)) + 1], img.getFloat(0, 1, 0, 2)); // G of pixel (1, 4)
        assertEquals(rgb[3 * ((1 + 2) * w + (2 + 1))], img.getFloat(0, 0, 2, 1));     // R of pixel (3, 3)
        assertThrows(IllegalArgumentException.class, () -> new PatchFeatures(4));
    }

    // ------------------------------------------------------------------ loader

    @Test
    void maskThresholdIsAt128() throws IOException {
        assertArrayEquals(new int[] {0, 0, 1, 1}, HorseLoader.threshold(new float[] {0, 127, 128, 255}));
        Path db = db(tmp.resolve("db"));
        BufferedImage mask = new BufferedImage(W, H, BufferedImage.TYPE_BYTE_GRAY);
        for (int c = 0; c < W; c++) for (int r = 0; r < H; r++) mask.getRaster().setSample(c, r, 0, c < 10 ? 127 : 128);
        put(db, 1, squareImage(1), mask);
        LabelledImage img = new HorseLoader(db, H, W).load(db.resolve("rgb/horse001.png"));
        for (int i = 0; i < H * W; i++) assertEquals(i % W < 10 ? 0 : 1, img.labels()[i]);
    }

    @Test
    void resizeKeepsTheMaskAligned() throws IOException {
        Path db = db(tmp.resolve("db"));
        // image at 4x the working size, masks at 2x and at 8x (the real masks have other sizes than their images)
        put(db, 1, squareImage(4), squareMask(2));
        put(db, 3, squareImage(4), squareMask(8));
        HorseLoader loader = new HorseLoader(db, H, W);
        for (Path f : loader.imageFiles()) {
            LabelledImage img = loader.load(f);
            for (int r = 0; r < H; r++) {
                for (int c = 0; c < W; c++) {
                    int i = r * W + c;
                    boolean in = r >= R0 && r < R1 && c >= C0 && c < C1;
                    assertEquals(in ? 1 : 0, img.labels()[i], f + " pixel " + r + "," + c);
                    // area averaging of whole 4x4 blocks of one colour gives that colour
                    assertEquals((in ? BRIGHT : DARK)[0] / 255f, img.rgb()[3 * i], 1e-6);
                }
            }
            assertEquals(64.0 / (H * W), img.fraction(1), 1e-12);
        }
        // 3 -> 2 pixels: output 0 covers source [0, 1.5), output 1 covers [1.5, 3)
        float[] x = HorseLoader.resizeArea(new float[] {0, 3, 6}, 1, 3, 1, 2);
        assertEquals((0 * 1 + 3 * 0.5) / 1.5, x[0], 1e-6);
        assertEquals((3 * 0.5 + 6 * 1) / 1.5, x[1], 1e-6);
        float[] same = {1, 2, 3, 4};
        assertArrayEquals(same, HorseLoader.resizeArea(same, 2, 2, 2, 2));
    }

    @Test
    void splitRuleOddTrainEvenTest() throws IOException {
        Path db = db(tmp.resolve("db"));
        for (int n = 1; n <= 5; n++) put(db, n, squareImage(1), squareMask(1));
        assertTrue(HorseLoader.isTrain(1));
        assertFalse(HorseLoader.isTrain(2));
        assertTrue(HorseLoader.isTrain(327));
        assertFalse(HorseLoader.isTrain(328));
        Dataset ds = new HorseLoader(db, 8, 10).dataset(new ImageFeatures());
        assertEquals(List.of("horse001.png", "horse003.png", "horse005.png"),
                ds.train().stream().map(e -> e.source().orElseThrow().getFileName().toString()).toList());
        assertEquals(List.of("horse002.png", "horse004.png"),
                ds.test().stream().map(e -> e.source().orElseThrow().getFileName().toString()).toList());
        assertEquals(2, ds.numLabels());
        assertEquals(2, ds.numPairTypes());
        assertArrayEquals(new int[] {8, 10}, ds.train().get(0).shape().orElseThrow());
    }

    @Test
    void writtenDataSetReadsBackEqual() throws IOException {
        Path db = db(tmp.resolve("db"));
        for (int n = 1; n <= 3; n++) put(db, n, squareImage(2), squareMask(1));
        HorseLoader loader = new HorseLoader(db, H, W);
        for (UnaryFeatures uf : List.of(new ImageFeatures(), new PatchFeatures(5))) {
            Path out = tmp.resolve("out-" + uf.name());
            assertArrayEquals(new int[] {2, 1}, loader.writeDataset(out, uf, null));
            Dataset back = Dataset.load(out);
            Dataset mem = loader.dataset(uf);
            assertEquals(mem.train(), back.train());
            assertEquals(mem.test(), back.test());
            assertEquals(uf.dim(), back.unaryDim());
            assertTrue(Files.readString(out.resolve(HorseLoader.INFO_FILE)).contains("\"unary_features\" : \"" + uf.name() + "\""));
        }
    }

    // ------------------------------------------------------------------ bad input

    static void assertBadNaming(Path file, Runnable r) {
        BadInputException ex = assertThrows(BadInputException.class, r::run);
        assertTrue(ex.getMessage().contains(file.toString()), "message names " + file + ": " + ex.getMessage());
    }

    @Test
    void missingMaskIsBadInputNamingIt() throws IOException {
        Path db = db(tmp.resolve("db"));
        put(db, 1, squareImage(1), squareMask(1));
        put(db, 2, squareImage(1), null);
        HorseLoader loader = new HorseLoader(db, H, W);
        assertBadNaming(db.resolve("figure_ground/horse002.png"), loader::loadAll);
    }

    @Test
    void maskOfAnotherShapeIsBadInputNamingIt() throws IOException {
        Path db = db(tmp.resolve("db"));
        BufferedImage wrong = new BufferedImage(W, H / 2, BufferedImage.TYPE_BYTE_GRAY);
        put(db, 7, squareImage(1), wrong);
        HorseLoader loader = new HorseLoader(db, H, W);
        Path mask = db.resolve("figure_ground/horse007.png");
        assertBadNaming(mask, () -> loader.load(db.resolve("rgb/horse007.png")));
        // one pixel of rounding is fine: 20x16 image, 11x9 mask (exact scale 0.55 gives 11 x 8.8)
        BufferedImage rounded = new BufferedImage(11, 9, BufferedImage.TYPE_BYTE_GRAY);
        put(db, 7, null, rounded);
        assertEquals(0.0, loader.load(db.resolve("rgb/horse007.png")).fraction(1));
    }

    @Test
    void unreadableImageIsBadInputNamingIt() throws IOException {
        Path db = db(tmp.resolve("db"));
        put(db, 1, null, squareMask(1));
        Path rgb = db.resolve("rgb/horse001.png");
        Files.write(rgb, new byte[] {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16});
        HorseLoader loader = new HorseLoader(db, H, W);
        assertBadNaming(rgb, loader::loadAll);
        // an unreadable mask names the mask
        put(db, 1, squareImage(1), null);
        Path mask = db.resolve("figure_ground/horse001.png");
        Files.writeString(mask, "not an image at all, just some text to fill the file");
        assertBadNaming(mask, loader::loadAll);
        // a missing data set folder names the folder
        Path none = tmp.resolve("nowhere");
        assertBadNaming(none, () -> new HorseLoader(none).imageFiles());
    }

    // ------------------------------------------------------------------ CLI

    @Test
    void cliWritesTheDataSetAndRefusesBadOptions() throws IOException {
        Path db = db(tmp.resolve("db"));
        for (int n = 1; n <= 2; n++) put(db, n, squareImage(1), squareMask(1));
        Path out = tmp.resolve("data");
        StringWriter so = new StringWriter(), se = new StringWriter();
        int rc = Main.execute(new PrintWriter(so), new PrintWriter(se), "horses-data", "--db", db.toString(), "--out", out.toString(),
                "--size", "8x10", "--features", "patch", "--patch", "3", "--quiet");
        assertEquals(0, rc, se.toString());
        Dataset ds = Dataset.load(out);
        assertEquals(27, ds.unaryDim());
        assertEquals(80, ds.train().get(0).numVariables());
        // rerun replaces its own folder
        assertEquals(0, Main.execute(new PrintWriter(so), new PrintWriter(se), "horses-data", "--db", db.toString(), "--out", out.toString(), "--quiet"));
        assertEquals(42, Dataset.load(out).unaryDim());
        assertEquals(36 * 48, Dataset.load(out).train().get(0).numVariables());
        // bad options and a foreign folder: exit 2
        assertEquals(2, Main.execute(new PrintWriter(so), new PrintWriter(se), "horses-data", "--db", db.toString(), "--out", out.toString(), "--size", "8by10"));
        assertEquals(2, Main.execute(new PrintWriter(so), new PrintWriter(se), "horses-data", "--db", db.toString(), "--out", out.toString(), "--features", "sift"));
        assertEquals(2, Main.execute(new PrintWriter(so), new PrintWriter(se), "horses-data", "--db", tmp.resolve("none").toString(), "--out", out.toString()));
        Path foreign = tmp.resolve("foreign");
        Files.createDirectories(foreign);
        Files.writeString(foreign.resolve("keep.txt"), "mine");
        assertEquals(2, Main.execute(new PrintWriter(so), new PrintWriter(se), "horses-data", "--db", db.toString(), "--out", foreign.toString()));
        assertTrue(Files.exists(foreign.resolve("keep.txt")));
    }

    /** A model trained on horses-data output carries its image recipe; predict featurises images by it unasked. */
    @Test
    void predictUsesTheImageRecipeTheModelWasTrainedWith() throws IOException {
        Path db = db(tmp.resolve("db"));
        for (int n = 1; n <= 2; n++) put(db, n, squareImage(n), squareMask(n));
        Path data = tmp.resolve("data"), model = tmp.resolve("model");
        StringWriter so = new StringWriter(), se = new StringWriter();
        assertEquals(0, Main.execute(new PrintWriter(so), new PrintWriter(se), "horses-data", "--db", db.toString(), "--out", data.toString(),
                "--size", "8x10", "--features", "patch", "--patch", "3", "--quiet"), se.toString());
        assertEquals(0, Main.execute(new PrintWriter(so), new PrintWriter(se), "train", "--data", data.toString(), "--output", model.toString(),
                "--iterations", "1", "--sweeps", "2", "--eval-sweeps", "0", "--quiet"), se.toString());
        Object recipe = org.structlr.model.CrfModel.load(model).provenance().get("images");
        assertEquals(java.util.Map.of("unary_features", "patch", "height", 8, "width", 10, "patch", 3), recipe);

        // no image option given: the recipe (27 patch features at 8x10) is used, and said
        Path mask = tmp.resolve("mask.png");
        StringWriter err = new StringWriter();
        int rc = Main.execute(new PrintWriter(so), new PrintWriter(err), "predict", "--model", model.toString(),
                "--input", db.resolve("rgb/horse001.png").toString(), "--output", mask.toString());
        assertEquals(0, rc, err.toString());
        assertTrue(err.toString().contains("patch(3x3") && err.toString().contains("at 8x10 (the model's image recipe)"), err.toString());
        BufferedImage written = javax.imageio.ImageIO.read(mask.toFile());
        assertEquals(squareImage(1).getWidth(), written.getWidth());
        // an explicit option still wins, and a mismatch is refused with a hint
        StringWriter err2 = new StringWriter();
        assertEquals(2, Main.execute(new PrintWriter(so), new PrintWriter(err2), "predict", "--model", model.toString(),
                "--input", db.resolve("rgb/horse001.png").toString(), "--output", tmp.resolve("mask2.png").toString(), "--features", "handmade"));
        assertTrue(err2.toString().contains("--features patch --patch 3"), err2.toString());
        assertFalse(Files.exists(tmp.resolve("mask2.png")));
    }

    // ------------------------------------------------------------------ the real data set

    /**
     * ../shared/data/weizmann_horse_db relative to the project root; the environment variable
     * STRUCTLR_HORSE_DB overrides it (a git worktree elsewhere has no ../shared).
     */
    @Test
    void realDataSetLoadsWithSensibleShapesAndHorseFractions() {
        String override = System.getenv("STRUCTLR_HORSE_DB");
        Path db = override != null && !override.isBlank() ? Path.of(override) : Path.of("..", "shared", "data", "weizmann_horse_db");
        if (!Files.isDirectory(db.resolve("rgb"))) {
            if ("true".equals(System.getenv("CI"))) fail("the horse data set is missing at " + db.toAbsolutePath() + " (CI=true)");
            Assumptions.abort("the horse data set is not at " + db.toAbsolutePath());
        }
        HorseLoader loader = new HorseLoader(db);
        List<Path> files = loader.imageFiles();
        assertEquals(328, files.size());
        for (Path f : files.subList(0, 6)) {
            LabelledImage img = loader.load(f);
            Example ex = ImageFeatures.example(img, new ImageFeatures(), 2);
            assertEquals(HorseLoader.DEFAULT_HEIGHT * HorseLoader.DEFAULT_WIDTH, ex.numVariables());
            assertEquals(42, ex.unaryDim());
            assertEquals(3, ex.pairDim());
            double frac = img.fraction(1);
            assertTrue(frac > 0.1 && frac < 0.9, f + ": horse fraction " + frac);
            for (float x : ex.unary()) assertTrue(x >= 0 && x <= 1, f + ": feature outside [0, 1]: " + x);
        }
    }
}
