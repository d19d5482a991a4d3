package org.structlr.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.awt.image.BufferedImage;
import java.awt.image.DataBufferByte;
import java.awt.image.IndexColorModel;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.structlr.data.ClassTable;
import org.structlr.data.Dataset;
import org.structlr.data.Example;
import org.structlr.data.ExampleIO;

/**
 * {@code images-data} on small synthetic trees in the layouts of Pascal VOC 2012 and Cityscapes,
 * colour masks, augmentation and bad input. Images are made so that every pixel's colour encodes
 * its class (red = 40 * class + 20), so that labels can be checked against the image they came with.
 */
class ImagesDataCommandTest {
    @TempDir
    Path tmp;

    static final Path DOCS = Path.of("docs", "classes");

    /** Random labels 0..classes-1 in blocks (so a resize has regions to keep), void (255) on a random tenth. */
    static int[] labels(Random rnd, int h, int w, int classes) {
        int[] y = new int[h * w];
        int bh = 1 + rnd.nextInt(4), bw = 1 + rnd.nextInt(4);
        int[][] block = new int[h / bh + 1][w / bw + 1];
        for (int[] row : block) for (int k = 0; k < row.length; k++) row[k] = rnd.nextInt(classes);
        for (int r = 0; r < h; r++) for (int c = 0; c < w; c++) y[r * w + c] = rnd.nextInt(10) == 0 ? 255 : block[r / bh][c / bw];
        return y;
    }

    /** An RGB image whose red channel is 40 * class + 20 (void: 250), green and blue fixed. */
    static BufferedImage imageOf(int[] mask, int h, int w) {
        BufferedImage img = new BufferedImage(w, h, BufferedImage.TYPE_INT_RGB);
        for (int r = 0; r < h; r++) {
            for (int c = 0; c < w; c++) {
                int y = mask[r * w + c], red = y == 255 ? 250 : 40 * y + 20;
                img.setRGB(c, r, red << 16 | 100 << 8 | 50);
            }
        }
        return img;
    }

    static void palettePng(Path f, int[] values, int h, int w) throws IOException {
        byte[] r = new byte[256], g = new byte[256], b = new byte[256];
        for (int k = 0; k < 256; k++) {
            int c = ClassTable.vocColor(k);
            r[k] = (byte) (c >> 16);
            g[k] = (byte) (c >> 8);
            b[k] = (byte) c;
        }
        BufferedImage m = new BufferedImage(w, h, BufferedImage.TYPE_BYTE_INDEXED, new IndexColorModel(8, 256, r, g, b));
        byte[] px = ((DataBufferByte) m.getRaster().getDataBuffer()).getData();
        for (int i = 0; i < px.length; i++) px[i] = (byte) values[i];
        write(m, f, "png");
    }

    static void greyPng(Path f, int[] values, int h, int w) throws IOException {
        BufferedImage m = new BufferedImage(w, h, BufferedImage.TYPE_BYTE_GRAY);
        byte[] px = ((DataBufferByte) m.getRaster().getDataBuffer()).getData();
        for (int i = 0; i < px.length; i++) px[i] = (byte) values[i];
        write(m, f, "png");
    }

    static void write(BufferedImage img, Path f, String format) throws IOException {
        Files.createDirectories(f.getParent());
        assertTrue(ImageIO.write(img, format, f.toFile()));
    }

    /** The labels an example must have for a mask of {@code values} at own size: void 255 -> -1. */
    static int[] expected(int[] values) {
        int[] y = values.clone();
        for (int i = 0; i < y.length; i++) if (y[i] == 255) y[i] = Example.VOID;
        return y;
    }

    /**
     * Pascal VOC 2012's layout as it is: JPEGImages/*.jpg (more photos than masks), palette PNGs in
     * SegmentationClass/ with 255 on object outlines, ImageSets/Segmentation/train.txt and val.txt
     * (VOC has no public test.txt: the val list becomes the test split).
     */
    @Test
    void pascalVocLayoutAsItIs() throws IOException {
        Path voc = tmp.resolve("VOC2012");
        Random rnd = new Random(3);
        Map<String, int[]> masks = new java.util.TreeMap<>();
        List<String> train = new ArrayList<>(), val = new ArrayList<>();
        for (int k = 0; k < 7; k++) {
            String name = "2007_00" + (1000 + k);
            int h = 9 + rnd.nextInt(6), w = 9 + rnd.nextInt(6);
            int[] m = labels(rnd, h, w, 6);
            // PNG images: JPEG would blur the colours that encode the classes; VOC's JPEGs are read by the same path
            write(imageOf(m, h, w), voc.resolve("JPEGImages").resolve(name + (k % 2 == 0 ? ".png" : ".jpg")), k % 2 == 0 ? "png" : "jpg");
            palettePng(voc.resolve("SegmentationClass").resolve(name + ".png"), m, h, w);
            masks.put(name, m);
            (k < 5 ? train : val).add(name);
        }
        write(imageOf(new int[81], 9, 9), voc.resolve("JPEGImages").resolve("2008_000001.jpg"), "jpg");   // a photo without mask
        Files.createDirectories(voc.resolve("ImageSets/Segmentation"));
        Files.write(voc.resolve("ImageSets/Segmentation/train.txt"), train);
        Files.write(voc.resolve("ImageSets/Segmentation/val.txt"), val);

        Path out = tmp.resolve("voc-data");
        PredictImagesTest.Run r = PredictImagesTest.run("images-data", "--images", voc.resolve("JPEGImages").toString(),
                "--masks", voc.resolve("SegmentationClass").toString(), "--lists", voc.resolve("ImageSets/Segmentation").toString(),
                "--classes", DOCS.resolve("voc2012.json").toString(), "--own-size", "--out", out.toString(), "--quiet");
        assertEquals(0, r.code(), r.err());
        assertTrue(r.err().contains("1 of 8 images have no mask"), r.err());
        assertTrue(r.err().contains("no test images: the val images are the test split"), r.err());
        Dataset ds = Dataset.load(out);
        assertEquals(5, ds.train().size());
        assertEquals(2, ds.test().size());
        assertEquals(0, ds.val().size());
        assertEquals(21, ds.numLabels(), "the class table's 21 classes, whatever the masks hold");
        assertEquals("person", ds.classes().name(15));
        for (Example e : ds.all()) {
            String name = e.source().orElseThrow().getFileName().toString().replace(".npz", "");
            int[] m = masks.get(name);
            assertArrayEquals(expected(m), e.labels(), name + ": palette indices read as they are, 255 as void");
            // the colour that encodes each labelled pixel's class came through the image path (PNG photos: exactly;
            // the JPEG ones blur these sharp colour blocks)
            if (Files.exists(voc.resolve("JPEGImages").resolve(name + ".png"))) {
                for (int i = 0; i < m.length; i++) if (m[i] != 255) assertEquals((40 * m[i] + 20) / 255.0, e.unary(i, 1), 1e-6);
            }
        }

        // without a class table: the classes found in the masks (0..5), VOC's palette colours
        Path out2 = tmp.resolve("voc-data-2");
        r = PredictImagesTest.run("images-data", "--images", voc.resolve("JPEGImages").toString(), "--masks", voc.resolve("SegmentationClass").toString(),
                "--lists", voc.resolve("ImageSets/Segmentation").toString(), "--longest", "6", "--out", out2.toString(), "--quiet");
        assertEquals(0, r.code(), r.err());
        Dataset ds2 = Dataset.load(out2);
        assertEquals(6, ds2.numLabels());
        for (Example e : ds2.all()) {
            assertEquals(6, Math.max(e.shape().orElseThrow()[0], e.shape().orElseThrow()[1]));
            for (int y : e.labels()) assertTrue(y >= -1 && y < 6);
        }
    }

    /**
     * Cityscapes' layout as it is: leftImg8bit/SPLIT/CITY/X_leftImg8bit.png with
     * gtFine/SPLIT/CITY/X_gtFine_labelIds.png (label ids, mapped to the 19 train ids by
     * docs/classes/cityscapes.json); the public test masks hold only void ids, so those images are
     * left out and val is the test split.
     */
    @Test
    void cityscapesLayoutAsItIs() throws IOException {
        Path cs = tmp.resolve("cityscapes");
        int[] ids = {7, 8, 26, 24, 0, 1, 23};           // road, sidewalk, car, person, unlabeled (void), ego vehicle (void), sky
        int[] trainIds = {0, 1, 13, 11, -1, -1, 10};
        Random rnd = new Random(5);
        Map<String, int[]> expected = new java.util.HashMap<>();
        String[][] files = {{"train", "aachen", "aachen_000000_000019"}, {"train", "bochum", "bochum_000000_000313"},
                {"val", "frankfurt", "frankfurt_000000_000294"}, {"test", "berlin", "berlin_000000_000019"}};
        for (String[] f : files) {
            int h = 8, w = 16;
            int[] label = new int[h * w], want = new int[h * w];
            for (int i = 0; i < label.length; i++) {
                int k = f[0].equals("test") ? 4 + rnd.nextInt(2) : rnd.nextInt(ids.length);   // test: only void ids
                label[i] = ids[k];
                want[i] = trainIds[k];
            }
            Path dir = Path.of(f[0], f[1]);
            write(imageOf(new int[h * w], h, w), cs.resolve("leftImg8bit").resolve(dir).resolve(f[2] + "_leftImg8bit.png"), "png");
            greyPng(cs.resolve("gtFine").resolve(dir).resolve(f[2] + "_gtFine_labelIds.png"), label, h, w);
            // the other files of gtFine (colour, instance ids) must not be taken for masks
            write(imageOf(new int[h * w], h, w), cs.resolve("gtFine").resolve(dir).resolve(f[2] + "_gtFine_color.png"), "png");
            expected.put(f[2], want);
        }
        Path out = tmp.resolve("cs-data");
        PredictImagesTest.Run r = PredictImagesTest.run("images-data", "--images", cs.resolve("leftImg8bit").toString(),
                "--masks", cs.resolve("gtFine").toString(), "--image-suffix", "_leftImg8bit", "--mask-suffix", "_gtFine_labelIds",
                "--split-folders", "--classes", DOCS.resolve("cityscapes.json").toString(), "--own-size", "--out", out.toString(), "--quiet");
        assertEquals(0, r.code(), r.err());
        assertTrue(r.err().contains("1 images are void everywhere"), r.err());
        Dataset ds = Dataset.load(out);
        assertEquals(2, ds.train().size());
        assertEquals(1, ds.test().size());
        assertEquals(19, ds.numLabels());
        assertEquals("car", ds.classes().name(13));
        for (Example e : ds.all()) {
            String name = e.source().orElseThrow().getFileName().toString().replace(".npz", "");
            assertArrayEquals(expected.get(name), e.labels(), name);
        }
        Map<String, Object> info = ds.info();
        assertEquals(2, info.get("train"));
        assertTrue(info.get("split").toString().contains("first folder"), info.toString());
    }

    @Test
    void colourMasksByTheClassTable() throws IOException {
        Path root = tmp.resolve("colour");
        Path table = root.resolve("classes.json");
        Files.createDirectories(root);
        Files.writeString(table, """
                [{"name": "sky", "index": 0, "color": "#4682b4"}, {"name": "tree", "index": 1, "color": [107, 142, 35]},
                 {"void": true, "color": [0, 0, 0]}]""");
        int[] colours = {0x4682b4, 0x6b8e23, 0x000000};
        int h = 6, w = 7;
        Random rnd = new Random(2);
        List<int[]> truth = new ArrayList<>();
        for (int k = 0; k < 4; k++) {
            BufferedImage m = new BufferedImage(w, h, BufferedImage.TYPE_INT_RGB);
            int[] y = new int[h * w];
            for (int i = 0; i < y.length; i++) {
                int c = rnd.nextInt(3);
                y[i] = c == 2 ? Example.VOID : c;
                m.setRGB(i % w, i / w, colours[c]);
            }
            truth.add(y);
            write(m, root.resolve("masks").resolve("im" + k + ".png"), "png");
            write(imageOf(new int[h * w], h, w), root.resolve("images").resolve("im" + k + ".png"), "png");
        }
        Path out = tmp.resolve("colour-data");
        PredictImagesTest.Run r = PredictImagesTest.run("images-data", "--images", root.resolve("images").toString(), "--masks", root.resolve("masks").toString(),
                "--classes", table.toString(), "--split", "0.5,0,0.5", "--own-size", "--features", "rgb", "--out", out.toString(), "--quiet");
        assertEquals(0, r.code(), r.err());
        Dataset ds = Dataset.load(out);
        assertEquals(3, ds.unaryDim(), "rgb features: R, G, B");
        assertEquals(2, ds.train().size());
        for (Example e : ds.all()) {
            int k = Integer.parseInt(e.source().orElseThrow().getFileName().toString().substring(2, 3));
            assertArrayEquals(truth.get(k), e.labels());
        }
        assertEquals("tree", ds.classes().name(1));

        // a colour the table does not know: one error naming the file, the pixel and the colour; nothing written
        BufferedImage bad = ImageIO.read(root.resolve("masks/im3.png").toFile());
        bad.setRGB(2, 1, 0x123456);
        write(bad, root.resolve("masks/im3.png"), "png");
        Path out2 = tmp.resolve("colour-data-2");
        r = PredictImagesTest.run("images-data", "--images", root.resolve("images").toString(), "--masks", root.resolve("masks").toString(),
                "--classes", table.toString(), "--split", "0.5,0,0.5", "--out", out2.toString(), "--quiet");
        assertEquals(2, r.code());
        assertTrue(r.err().contains("im3.png") && r.err().contains("colour #123456 at pixel (x 2, y 1)"), r.err());
        assertFalse(Files.exists(out2));
    }

    /** Reduced masks hold only labels of their source (a vote, never an interpolation), and each image's pixels keep their class's colour on the whole. */
    @Test
    void resizedMasksOnlyHoldSourceLabels() throws IOException {
        Path root = tmp.resolve("resize");
        Random rnd = new Random(11);
        for (int k = 0; k < 6; k++) {
            int h = 20 + rnd.nextInt(20), w = 20 + rnd.nextInt(20);
            int[] m = labels(rnd, h, w, 3);
            for (int i = 0; i < m.length; i++) if (m[i] == 1) m[i] = 2;   // values 0 and 2 only: an interpolation would make 1s
            write(imageOf(m, h, w), root.resolve("images").resolve("r" + k + ".png"), "png");
            greyPng(root.resolve("masks").resolve("r" + k + ".png"), m, h, w);
        }
        Path out = tmp.resolve("resize-data");
        PredictImagesTest.Run r = PredictImagesTest.run("images-data", "--images", root.resolve("images").toString(), "--masks", root.resolve("masks").toString(),
                "--longest", "7", "--split", "0.5,0,0.5", "--out", out.toString(), "--quiet");
        assertEquals(0, r.code(), r.err());
        Dataset ds = Dataset.load(out);
        assertEquals(3, ds.numLabels());
        for (Example e : ds.all()) for (int y : e.labels()) assertTrue(y == 0 || y == 2 || y == Example.VOID, "label " + y);
    }

    /**
     * Augmented copies: the same geometric transform on image and mask (every labelled pixel's
     * colour still encodes its label, at the image's own size with flips and crops), masks holding
     * only source labels, seeded (a second run writes the same arrays).
     */
    @Test
    void augmentationMovesImageAndMaskTogether() throws IOException {
        Path root = tmp.resolve("aug");
        Random rnd = new Random(4);
        for (int k = 0; k < 4; k++) {
            int h = 12, w = 15;
            int[] m = labels(rnd, h, w, 4);
            write(imageOf(m, h, w), root.resolve("images").resolve("a" + k + ".png"), "png");
            palettePng(root.resolve("masks").resolve("a" + k + ".png"), m, h, w);
        }
        String[] args = {"images-data", "--images", root.resolve("images").toString(), "--masks", root.resolve("masks").toString(),
                "--own-size", "--split", "0.5,0,0.5", "--augment", "3", "--crop", "0.6", "--features", "rgb", "--quiet", "--out"};
        Path out = tmp.resolve("aug-data");
        List<String> a = new ArrayList<>(List.of(args));
        a.add(out.toString());
        PredictImagesTest.Run r = PredictImagesTest.run(a.toArray(String[]::new));
        assertEquals(0, r.code(), r.err());
        Dataset ds = Dataset.load(out);
        assertEquals(2 + 2 * 3, ds.train().size(), "two training images, three copies each");
        Set<String> shapes = new HashSet<>();
        for (Example e : ds.train()) {
            int[] s = e.shape().orElseThrow();
            shapes.add(s[0] + "x" + s[1]);
            for (int i = 0; i < e.numVariables(); i++) {
                int y = e.label(i);
                assertTrue(y >= -1 && y < 4);
                if (y >= 0) assertEquals((40 * y + 20) / 255.0, e.unary(i, 0), 1e-6, "the image pixel moved with its label");
            }
        }
        assertTrue(shapes.size() > 1, "crops change the size: " + shapes);
        Path again = tmp.resolve("aug-data-2");
        a.set(a.size() - 1, again.toString());
        assertEquals(0, PredictImagesTest.run(a.toArray(String[]::new)).code());
        Dataset ds2 = Dataset.load(again);
        for (int k = 0; k < ds.train().size(); k++) assertEquals(ds.train().get(k), ds2.train().get(k), "seeded: the same copies");
        for (Path f : Files.list(out.resolve("train")).toList()) {
            assertArrayEquals(Files.readAllBytes(f), Files.readAllBytes(again.resolve("train").resolve(f.getFileName())), "same bytes: " + f);
        }
    }

    @Test
    void badInputIsOneErrorAndNoOutput() throws IOException {
        Path root = tmp.resolve("bad");
        int[] m = {0, 1, 1, 0, 255, 1};
        write(imageOf(m, 2, 3), root.resolve("images/x.png"), "png");
        greyPng(root.resolve("masks/x.png"), m, 2, 3);
        write(imageOf(m, 2, 3), root.resolve("images/y.png"), "png");
        greyPng(root.resolve("masks/y.png"), m, 2, 3);
        Path out = tmp.resolve("bad-out");
        String im = root.resolve("images").toString(), mk = root.resolve("masks").toString(), o = out.toString();

        greyPng(root.resolve("masks/orphan.png"), m, 2, 3);
        assertError("orphan.png: mask without an image", "images-data", "--images", im, "--masks", mk, "--out", o);
        Files.delete(root.resolve("masks/orphan.png"));

        Files.createDirectories(root.resolve("lists"));
        Files.write(root.resolve("lists/train.txt"), List.of("x", "nothere"));
        assertError("train.txt: line 2: nothere is no image with a mask", "images-data", "--images", im, "--masks", mk, "--lists",
                root.resolve("lists").toString(), "--out", o);
        Files.write(root.resolve("lists/train.txt"), List.of("x"));
        Files.write(root.resolve("lists/test.txt"), List.of("x"));
        assertError("test.txt: line 1: x is also in train.txt", "images-data", "--images", im, "--masks", mk, "--lists",
                root.resolve("lists").toString(), "--out", o);
        assertError("option '--split' must be three fractions", "images-data", "--images", im, "--masks", mk, "--split", "0.5,0.5,0.5", "--out", o);
        assertError("exclude each other", "images-data", "--images", im, "--masks", mk, "--split", "0.5,0,0.5", "--split-folders", "--out", o);
        assertError("exclude each other", "images-data", "--images", im, "--masks", mk, "--size", "4x4", "--longest", "8", "--out", o);
        assertError("'--mask-threshold' cannot be used with '--mask-kind'", "images-data", "--images", im, "--masks", mk, "--mask-threshold", "128",
                "--mask-kind", "index", "--out", o);
        assertError("option '--augment' needs a transform", "images-data", "--images", im, "--masks", mk, "--augment", "2", "--no-flip", "--out", o);
        assertError("it holds --images", "images-data", "--images", im, "--masks", mk, "--out", root.toString());

        // a value the class table does not know (the masks hold 1, the table has classes 0 and 2)
        Path table = root.resolve("t.json");
        Files.writeString(table, "[{\"name\": \"a\", \"index\": 0}, {\"name\": \"b\", \"index\": 1, \"values\": [2]}]");
        assertError("mask value 1 at pixel (x 1, y 0) is no class of the class table and not void", "images-data", "--images", im, "--masks", mk,
                "--classes", table.toString(), "--split", "0.5,0,0.5", "--out", o);
        assertError("missing folder", "images-data", "--images", root.resolve("nope").toString(), "--masks", mk, "--out", o);
    }

    private void assertError(String message, String... args) {
        PredictImagesTest.Run r = PredictImagesTest.run(args);
        assertEquals(2, r.code(), "exit 2 for " + message + ": " + r.err());
        assertTrue(r.err().contains(message), "'" + message + "' in: " + r.err());
        assertFalse(Files.exists(tmp.resolve("bad-out")), "nothing written");
    }
}
