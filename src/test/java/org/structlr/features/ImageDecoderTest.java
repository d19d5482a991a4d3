package org.structlr.features;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.awt.Transparency;
import java.awt.color.ColorSpace;
import java.awt.image.BufferedImage;
import java.awt.image.ComponentColorModel;
import java.awt.image.DataBuffer;
import java.awt.image.Raster;
import java.awt.image.WritableRaster;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.SplittableRandom;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * One decoding path for training and prediction: 8- and 16-bit PNGs of the same picture give the
 * same pixels and features in {@link HorseLoader} and {@link ImageReader}, and the area resize is
 * the mean over each output pixel's source area (brute force below).
 */
class ImageDecoderTest {
    @TempDir
    Path tmp;

    static final int H = 23, W = 31;

    /** An 8-bit RGB picture with varied values (every byte value 0..255 can occur). */
    static int[][] pixels(long seed) {
        SplittableRandom r = new SplittableRandom(seed);
        int[][] p = new int[H * W][3];
        for (int i = 0; i < H * W; i++) for (int c = 0; c < 3; c++) p[i][c] = r.nextInt(256);
        p[0] = new int[] {0, 0, 0};
        p[1] = new int[] {255, 255, 255};
        return p;
    }

    static void write8(Path f, int[][] p) throws IOException {
        BufferedImage im = new BufferedImage(W, H, BufferedImage.TYPE_INT_RGB);
        for (int i = 0; i < H * W; i++) im.setRGB(i % W, i / W, (p[i][0] << 16) | (p[i][1] << 8) | p[i][2]);
        assertTrue(ImageIO.write(im, "png", f.toFile()));
    }

    /** The same picture with 16 bits per channel: each byte b repeated, b * 257. */
    static void write16(Path f, int[][] p) throws IOException {
        ComponentColorModel cm = new ComponentColorModel(ColorSpace.getInstance(ColorSpace.CS_sRGB), new int[] {16, 16, 16},
                false, false, Transparency.OPAQUE, DataBuffer.TYPE_USHORT);
        WritableRaster raster = Raster.createInterleavedRaster(DataBuffer.TYPE_USHORT, W, H, 3, null);
        for (int i = 0; i < H * W; i++) for (int c = 0; c < 3; c++) raster.setSample(i % W, i / W, c, p[i][c] * 257);
        assertTrue(ImageIO.write(new BufferedImage(cm, raster, false, null), "png", f.toFile()));
    }

    @Test
    void sixteenAndEightBitPngsDecodeToTheSameValues() throws IOException {
        int[][] p = pixels(3);
        Path f8 = tmp.resolve("a8.png"), f16 = tmp.resolve("a16.png");
        write8(f8, p);
        write16(f16, p);
        ImageDecoder.Decoded d8 = ImageDecoder.decode(f8, 3), d16 = ImageDecoder.decode(f16, 3);
        assertEquals(H, d16.height());
        assertEquals(W, d16.width());
        for (int ch = 0; ch < 3; ch++) {
            for (int i = 0; i < H * W; i++) {
                assertEquals(p[i][ch], d8.planes()[ch][i], 0f, "8-bit, channel " + ch + " pixel " + i);
                assertEquals(p[i][ch], d16.planes()[ch][i], 1e-4f, "16-bit, channel " + ch + " pixel " + i);
            }
        }
        // grey (a mask) from the 16-bit file is in 8-bit units too
        float[] g8 = ImageDecoder.decode(f8, 1).planes()[0], g16 = ImageDecoder.decode(f16, 1).planes()[0];
        for (int i = 0; i < H * W; i++) assertEquals(g8[i], g16[i], 1e-3f, "grey pixel " + i);
        assertEquals(255f, g16[1], 1e-3f);
        // grey is the BT.601 luma of the 8-bit values
        for (int i = 0; i < H * W; i++) assertEquals(0.299 * p[i][0] + 0.587 * p[i][1] + 0.114 * p[i][2], g8[i], 1e-3, "luma " + i);
    }

    @Test
    void trainingAndPredictionSeeTheSameFeaturesFor8And16BitFiles() throws IOException {
        int[][] p = pixels(5);
        Path db = tmp.resolve("db");
        Files.createDirectories(db.resolve("rgb"));
        Files.createDirectories(db.resolve("figure_ground"));
        write16(db.resolve("rgb").resolve("horse001.png"), p);
        BufferedImage mask = new BufferedImage(W, H, BufferedImage.TYPE_BYTE_GRAY);
        for (int i = 0; i < H * W; i++) mask.getRaster().setSample(i % W, i / W, 0, (i % W) > W / 2 ? 255 : 0);
        ImageIO.write(mask, "png", db.resolve("figure_ground").resolve("horse001.png").toFile());
        Path f8 = tmp.resolve("horse001.png");
        write8(f8, p);

        int th = 9, tw = 12;
        LabelledImage trained = new HorseLoader(db, th, tw).load(db.resolve("rgb").resolve("horse001.png"));
        ImageReader.WorkingImage predicted = new ImageReader().read(f8, th, tw);
        assertEquals(H, predicted.originalHeight());
        assertEquals(W, predicted.originalWidth());
        float[] a = trained.rgb(), b = predicted.rgb();
        double largest = 0;
        for (int i = 0; i < a.length; i++) largest = Math.max(largest, Math.abs(a[i] - b[i]));
        assertTrue(largest < 1e-6, "16-bit training image vs 8-bit image to predict: largest RGB difference " + largest);
        // and the features computed from them
        ImageFeatures features = new ImageFeatures();
        float[] fa = features.compute(th, tw, a), fb = features.compute(th, tw, b);
        for (int i = 0; i < fa.length; i++) assertEquals(fa[i], fb[i], 1e-5f, "unary feature " + i);
        // values are the area means of the 8-bit values / 255 (brute force)
        float[][] planes = new float[3][H * W];
        for (int i = 0; i < H * W; i++) for (int c = 0; c < 3; c++) planes[c][i] = p[i][c];
        for (int c = 0; c < 3; c++) {
            double[] want = areaMean(planes[c], H, W, th, tw);
            for (int i = 0; i < th * tw; i++) assertEquals(want[i] / 255, b[3 * i + c], 1e-6, "channel " + c + " pixel " + i);
        }
    }

    /** Brute force: output (r, c) is the mean of the source over [r H/th, (r+1) H/th) x [c W/tw, (c+1) W/tw). */
    static double[] areaMean(float[] src, int sh, int sw, int th, int tw) {
        double[] out = new double[th * tw];
        // on a grid refined th*tw times, every output cell covers whole fine cells
        for (int r = 0; r < th; r++) {
            for (int c = 0; c < tw; c++) {
                double s = 0;
                for (int fr = r * sh; fr < (r + 1) * sh; fr++) {
                    for (int fc = c * sw; fc < (c + 1) * sw; fc++) s += src[(fr / th) * sw + fc / tw];
                }
                out[r * tw + c] = s / ((double) sh * sw);
            }
        }
        return out;
    }

    @Test
    void areaResizeIsTheMeanOverEachOutputPixelsArea() {
        SplittableRandom r = new SplittableRandom(9);
        int[][] cases = {{40, 60, 9, 12}, {23, 31, 7, 10}, {8, 8, 3, 5}, {5, 7, 11, 13}, {6, 9, 6, 9}, {1, 3, 1, 2}};
        for (int[] c : cases) {
            float[] src = new float[c[0] * c[1]];
            for (int i = 0; i < src.length; i++) src[i] = (float) (255 * r.nextDouble());
            float[] got = ImageDecoder.resizeArea(src, c[0], c[1], c[2], c[3]);
            double[] want = areaMean(src, c[0], c[1], c[2], c[3]);
            assertEquals(want.length, got.length);
            for (int i = 0; i < want.length; i++) {
                assertEquals(want[i], got[i], 1e-3, c[0] + "x" + c[1] + " -> " + c[2] + "x" + c[3] + ", pixel " + i);
            }
        }
        assertArrayEquals(new float[] {1f, 5f}, ImageDecoder.resizeArea(new float[] {0, 3, 6}, 1, 3, 1, 2), 1e-5f);
    }

    // ---------------------------------------------------------------- format, limits, orientation

    static byte[] png(BufferedImage im) throws IOException {
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        assertTrue(ImageIO.write(im, "png", out));
        return out.toByteArray();
    }

    static byte[] jpeg(BufferedImage im) throws IOException {
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        javax.imageio.ImageWriter w = ImageIO.getImageWritersByFormatName("jpeg").next();
        javax.imageio.ImageWriteParam param = w.getDefaultWriteParam();
        param.setCompressionMode(javax.imageio.ImageWriteParam.MODE_EXPLICIT);
        param.setCompressionQuality(1f);
        try (javax.imageio.stream.ImageOutputStream ios = ImageIO.createImageOutputStream(out)) {
            w.setOutput(ios);
            w.write(null, new javax.imageio.IIOImage(im, null, null), param);
        }
        w.dispose();
        return out.toByteArray();
    }

    /** A picture whose pixel (r, c) has grey level 10 r + c, so every position is recognisable. */
    static BufferedImage ramp(int h, int w) {
        BufferedImage im = new BufferedImage(w, h, BufferedImage.TYPE_BYTE_GRAY);
        for (int r = 0; r < h; r++) for (int c = 0; c < w; c++) im.getRaster().setSample(c, r, 0, 10 * r + c);
        return im;
    }

    static void assertBad(Path file, Runnable r, String... parts) {
        org.structlr.data.BadInputException ex = org.junit.jupiter.api.Assertions.assertThrows(org.structlr.data.BadInputException.class, r::run);
        assertTrue(ex.getMessage().startsWith(file.toString() + ": "), ex.getMessage());
        for (String p : parts) assertTrue(ex.getMessage().contains(p), "'" + p + "' in: " + ex.getMessage());
    }

    @Test
    void formatIsToldByContentNeverByName() throws IOException {
        BufferedImage im = ramp(4, 6);
        Path pngNamedJpg = tmp.resolve("a.jpg"), jpgNamedPng = tmp.resolve("b.png");
        Files.write(pngNamedJpg, png(im));
        Files.write(jpgNamedPng, jpeg(im));
        ImageDecoder.Decoded a = ImageDecoder.decode(pngNamedJpg, 1), b = ImageDecoder.decode(jpgNamedPng, 1);
        for (int i = 0; i < 24; i++) assertEquals(10 * (i / 6) + i % 6, a.planes()[0][i], 0f, "png pixel " + i);
        for (int i = 0; i < 24; i++) assertEquals(10 * (i / 6) + i % 6, b.planes()[0][i], 2f, "jpeg pixel " + i);
        // a GIF (which the runtime could decode) and a BMP named .png are refused before any decoder
        for (String fmt : new String[] {"gif", "bmp"}) {
            Path f = tmp.resolve("c-" + fmt + ".png");
            assertTrue(ImageIO.write(new BufferedImage(4, 4, BufferedImage.TYPE_3BYTE_BGR), fmt, f.toFile()));
            assertBad(f, () -> ImageDecoder.decode(f, 3), "not a PNG or JPEG file");
        }
    }

    /** A PNG signature and an IHDR chunk declaring {@code w x h} 8-bit RGB, then nothing. */
    static byte[] pngHeader(int w, int h) {
        java.nio.ByteBuffer b = java.nio.ByteBuffer.allocate(8 + 25);
        b.put(new byte[] {(byte) 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'});
        b.putInt(13).put("IHDR".getBytes(java.nio.charset.StandardCharsets.US_ASCII)).putInt(w).putInt(h).put((byte) 8).put((byte) 2)
                .put((byte) 0).put((byte) 0).put((byte) 0);
        java.util.zip.CRC32 crc = new java.util.zip.CRC32();
        crc.update(b.array(), 12, 17);
        b.putInt((int) crc.getValue());
        return b.array();
    }

    @Test
    void pixelLimitIsCheckedFromTheHeaderBeforeDecoding() throws IOException {
        Path giant = tmp.resolve("giant.png");
        Files.write(giant, pngHeader(100_000, 100_000));   // 10^10 pixels in 33 bytes
        assertBad(giant, () -> ImageDecoder.decode(giant, 3), "image (100000x100000) of 10000000000 pixels exceeds the limit", "structlr.limit.imagePixels");
        // within the limit but not there: a clear decoding error, not the limit
        Path small = tmp.resolve("small.png");
        Files.write(small, pngHeader(20, 20));
        assertBad(small, () -> ImageDecoder.decode(small, 3), "unreadable image");
        // the limit is a property: lowered, a real 4x6 image is refused, raised again it decodes
        Path real = tmp.resolve("real.png");
        Files.write(real, png(ramp(4, 6)));
        System.setProperty("structlr.limit.imagePixels", "23");
        try {
            assertBad(real, () -> ImageDecoder.decode(real, 3), "image (6x4) of 24 pixels exceeds the limit of 23 pixels");
            System.setProperty("structlr.limit.imagePixels", "24");
            assertEquals(4, ImageDecoder.decode(real, 3).height());
        } finally {
            System.clearProperty("structlr.limit.imagePixels");
        }
    }

    @Test
    void truncatedOrCorruptJpegIsAnErrorNotGreyBlocks() throws IOException {
        byte[] whole = jpeg(ramp(40, 60));
        Path cut = tmp.resolve("cut.jpg");
        Files.write(cut, java.util.Arrays.copyOf(whole, whole.length * 2 / 3));
        assertBad(cut, () -> ImageDecoder.decode(cut, 3), "unreadable image");
        Path onlyMagic = tmp.resolve("magic.jpg");
        Files.write(onlyMagic, new byte[] {(byte) 0xff, (byte) 0xd8, (byte) 0xff});
        assertBad(onlyMagic, () -> ImageDecoder.decode(onlyMagic, 3), "unreadable image");
    }

    @Test
    void paletteAndGreyAlphaPngs() throws IOException {
        // a palette image: the palette's colours, not the indices
        byte[] r = {0, (byte) 200, 10}, g = {0, 100, 20}, bl = {0, 50, (byte) 255};
        java.awt.image.IndexColorModel icm = new java.awt.image.IndexColorModel(2, 3, r, g, bl);
        BufferedImage pal = new BufferedImage(3, 1, BufferedImage.TYPE_BYTE_BINARY, icm);
        for (int x = 0; x < 3; x++) pal.getRaster().setSample(x, 0, 0, x);
        Path f = tmp.resolve("pal.png");
        Files.write(f, png(pal));
        ImageDecoder.Decoded d = ImageDecoder.decode(f, 3);
        assertArrayEquals(new float[] {0, 200, 10}, d.planes()[0]);
        assertArrayEquals(new float[] {0, 100, 20}, d.planes()[1]);
        assertArrayEquals(new float[] {0, 50, 255}, d.planes()[2]);
        // an RGBA image: alpha dropped, colours kept
        BufferedImage rgba = new BufferedImage(2, 1, BufferedImage.TYPE_INT_ARGB);
        rgba.setRGB(0, 0, 0x10203040);
        rgba.setRGB(1, 0, 0xff605040);
        Path fa = tmp.resolve("rgba.png");
        Files.write(fa, png(rgba));
        ImageDecoder.Decoded da = ImageDecoder.decode(fa, 3);
        assertArrayEquals(new float[] {0x20, 0x60}, da.planes()[0]);
        assertArrayEquals(new float[] {0x40, 0x40}, da.planes()[2]);
    }

    /** {@code jpeg} with an EXIF APP1 segment (big- or little-endian TIFF) carrying orientation {@code o}. */
    static byte[] withOrientation(byte[] jpeg, int o, boolean littleEndian) {
        java.nio.ByteBuffer tiff = java.nio.ByteBuffer.allocate(8 + 2 + 12 + 4)
                .order(littleEndian ? java.nio.ByteOrder.LITTLE_ENDIAN : java.nio.ByteOrder.BIG_ENDIAN);
        tiff.put(littleEndian ? (byte) 'I' : (byte) 'M').put(littleEndian ? (byte) 'I' : (byte) 'M').putShort((short) 42).putInt(8);
        tiff.putShort((short) 1).putShort((short) 0x0112).putShort((short) 3).putInt(1).putShort((short) o).putShort((short) 0).putInt(0);
        byte[] t = tiff.array();
        int len = 2 + 6 + t.length;
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        out.write(jpeg, 0, 2);
        out.write(0xff);
        out.write(0xe1);
        out.write(len >> 8);
        out.write(len & 0xff);
        out.writeBytes(new byte[] {'E', 'x', 'i', 'f', 0, 0});
        out.writeBytes(t);
        out.write(jpeg, 2, jpeg.length - 2);
        return out.toByteArray();
    }

    @Test
    void exifOrientationIsApplied() throws IOException {
        int h = 5, w = 8;
        byte[] plain = jpeg(ramp(h, w));
        float[] stored = ImageDecoder.decode(tmp.resolve("x.jpg"), plain, 1).planes()[0];
        for (int o = 1; o <= 8; o++) {
            for (boolean le : new boolean[] {false, true}) {
                ImageDecoder.Decoded d = ImageDecoder.decode(tmp.resolve("o" + o + ".jpg"), withOrientation(plain, o, le), 1);
                boolean turn = o >= 5;
                assertEquals(turn ? w : h, d.height(), "orientation " + o);
                assertEquals(turn ? h : w, d.width(), "orientation " + o);
                // displayed (r, c) -> stored (sr, sc), by the EXIF definitions
                for (int r = 0; r < d.height(); r++) {
                    for (int c = 0; c < d.width(); c++) {
                        int[] s = switch (o) {
                            case 1 -> new int[] {r, c};
                            case 2 -> new int[] {r, w - 1 - c};
                            case 3 -> new int[] {h - 1 - r, w - 1 - c};
                            case 4 -> new int[] {h - 1 - r, c};
                            case 5 -> new int[] {c, r};
                            case 6 -> new int[] {h - 1 - c, r};
                            case 7 -> new int[] {h - 1 - c, w - 1 - r};
                            default -> new int[] {c, w - 1 - r};
                        };
                        assertEquals(stored[s[0] * w + s[1]], d.planes()[0][r * d.width() + c], 0f, "orientation " + o + " at " + r + "," + c);
                    }
                }
            }
        }
        // orientation 6: the stored top-left corner (darkest) ends up top-right
        float[] turned = ImageDecoder.decode(tmp.resolve("t.jpg"), withOrientation(plain, 6, false), 1).planes()[0];
        assertEquals(stored[0], turned[h - 1], 0f);
        // a malformed EXIF block (IFD offset past the end) is ignored, not read outside the array
        byte[] bad = withOrientation(plain, 6, false);
        bad[2 + 2 + 2 + 6 + 7] = (byte) 0x7f;
        assertEquals(h, ImageDecoder.decode(tmp.resolve("bad.jpg"), bad, 1).height());
    }
}
