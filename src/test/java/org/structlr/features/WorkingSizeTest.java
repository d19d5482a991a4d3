package org.structlr.features;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import javax.imageio.ImageIO;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.structlr.data.Dataset;
import org.structlr.data.Example;

/** Working sizes, and the horse loader keeping each image's aspect ratio (longest side N). */
class WorkingSizeTest {
    @TempDir
    Path tmp;

    @Test
    void longestSideKeepsTheAspectRatio() {
        WorkingSize.Longest l = new WorkingSize.Longest(12);
        assertArrayEquals(new int[] {8, 12}, l.shapeOf(40, 60), "landscape");
        assertArrayEquals(new int[] {12, 6}, l.shapeOf(60, 30), "portrait");
        assertArrayEquals(new int[] {12, 12}, l.shapeOf(33, 33), "square");
        assertArrayEquals(new int[] {5, 12}, new WorkingSize.Longest(12).shapeOf(3, 7), "12 * 3 / 7 = 5.14 rounds to 5");
        assertArrayEquals(new int[] {2, 12}, l.shapeOf(1, 500), "the short side stays at least 2");
        assertArrayEquals(new int[] {9, 12}, l.shapeOf(3, 4), "small images are brought up to the longest side too");
        assertArrayEquals(new int[] {7, 9}, new WorkingSize.Fixed(7, 9).shapeOf(100, 20), "fixed ignores the image");
        assertEquals(Map.of("longest", 12), l.recipe());
        assertEquals(l, WorkingSize.fromRecipe(Map.of("longest", 12, "unary_features", "handmade")));
        assertEquals(new WorkingSize.Fixed(36, 48), WorkingSize.fromRecipe(Map.of("height", 36, "width", 48)));
        assertThrows(IllegalArgumentException.class, () -> new WorkingSize.Longest(1));
    }

    /** h x w image whose mask is the block rows [r0, r1) x cols [c0, c1); colour BRIGHT there, DARK elsewhere. */
    static void put(Path db, int number, int h, int w, int r0, int r1, int c0, int c1) throws IOException {
        BufferedImage rgb = new BufferedImage(w, h, BufferedImage.TYPE_INT_RGB), mask = new BufferedImage(w, h, BufferedImage.TYPE_BYTE_GRAY);
        for (int r = 0; r < h; r++) {
            for (int c = 0; c < w; c++) {
                boolean in = r >= r0 && r < r1 && c >= c0 && c < c1;
                rgb.setRGB(c, r, in ? 0xE6C8AA : 0x14283C);
                mask.getRaster().setSample(c, r, 0, in ? 255 : 0);
            }
        }
        String name = String.format("horse%03d.png", number);
        Files.createDirectories(db.resolve("rgb"));
        Files.createDirectories(db.resolve("figure_ground"));
        ImageIO.write(rgb, "png", db.resolve("rgb").resolve(name).toFile());
        ImageIO.write(mask, "png", db.resolve("figure_ground").resolve(name).toFile());
    }

    @Test
    void loaderKeepsEachImagesAspectRatioAndItsMaskAligned() throws IOException {
        Path db = tmp.resolve("db");
        put(db, 1, 40, 60, 10, 30, 20, 45);   // landscape, 5 source pixels per working pixel
        put(db, 2, 60, 30, 15, 50, 5, 20);    // portrait, also 5
        put(db, 3, 24, 24, 0, 12, 0, 24);     // square, 2
        HorseLoader loader = new HorseLoader(db, new WorkingSize.Longest(12));
        int[][] shapes = {{8, 12}, {12, 6}, {12, 12}};
        int[][] blocks = {{2, 6, 4, 9}, {3, 10, 1, 4}, {0, 6, 0, 12}};   // the mask blocks in working pixels
        List<LabelledImage> all = loader.loadAll();
        for (int k = 0; k < 3; k++) {
            LabelledImage img = all.get(k);
            assertEquals(shapes[k][0], img.height(), "image " + k + " height");
            assertEquals(shapes[k][1], img.width(), "image " + k + " width");
            int[] b = blocks[k];
            for (int r = 0; r < img.height(); r++) {
                for (int c = 0; c < img.width(); c++) {
                    boolean in = r >= b[0] && r < b[1] && c >= b[2] && c < b[3];
                    assertEquals(in ? 1 : 0, img.labels()[r * img.width() + c], "image " + k + " label at " + r + "," + c);
                    assertEquals(in ? 0xE6 / 255f : 0x14 / 255f, img.rgb()[3 * (r * img.width() + c)], 1e-6f, "image " + k + " red at " + r + "," + c);
                }
            }
        }
        // the examples carry their own shapes; the info file records the mode
        Path out = tmp.resolve("data");
        loader.writeDataset(out, new ImageFeatures(), null);
        Dataset ds = Dataset.load(out);
        List<Example> train = ds.train(), test = ds.test();
        assertArrayEquals(new int[] {8, 12}, train.get(0).shape().orElseThrow());
        assertArrayEquals(new int[] {12, 12}, train.get(1).shape().orElseThrow());
        assertArrayEquals(new int[] {12, 6}, test.get(0).shape().orElseThrow());
        assertEquals(8 * 12, train.get(0).numVariables());
        assertEquals(12, ((Number) ds.info().get("longest")).intValue());
        assertTrue(!ds.info().containsKey("height") && !ds.info().containsKey("width"), "no fixed size recorded: " + ds.info());
    }

    /**
     * The real data set at longest side 96, when present (STRUCTLR_HORSE_DB overrides
     * ../shared/data/weizmann_horse_db); a failure under CI=true when missing.
     */
    @Test
    void realImagesKeepTheirAspectRatio() throws IOException {
        String override = System.getenv("STRUCTLR_HORSE_DB");
        Path db = override != null && !override.isBlank() ? Path.of(override) : Path.of("..", "shared", "data", "weizmann_horse_db");
        if (!Files.isDirectory(db.resolve("rgb"))) {
            if ("true".equals(System.getenv("CI"))) fail("the horse data set is missing at " + db.toAbsolutePath() + " (CI=true)");
            Assumptions.abort("the horse data set is not at " + db.toAbsolutePath());
        }
        HorseLoader loader = new HorseLoader(db, new WorkingSize.Longest(96));
        for (Path f : loader.imageFiles().subList(0, 4)) {
            BufferedImage src = ImageIO.read(f.toFile());
            LabelledImage img = loader.load(f);
            assertEquals(96, Math.max(img.height(), img.width()), f + ": longest side");
            // short / long side: the short side is rounded to the nearest pixel of 96
            double own = (double) Math.min(src.getHeight(), src.getWidth()) / Math.max(src.getHeight(), src.getWidth());
            double got = Math.min(img.height(), img.width()) / 96.0;
            assertTrue(Math.abs(own - got) <= 0.5 / 96 + 1e-12, f + ": aspect " + own + " became " + got);
            assertEquals(src.getWidth() >= src.getHeight(), img.width() >= img.height(), f + ": orientation kept");
            double frac = img.fraction(1);
            assertTrue(frac > 0.1 && frac < 0.9, f + ": horse fraction " + frac);
        }
    }
}
