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
        for (int i = 0; i < H * W; i++) assertEquals(g8[i], g16[i], 0.51f, "grey pixel " + i);   // OpenCV rounds 8-bit grey
        assertEquals(255f, g16[1], 1e-3f);
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
}
