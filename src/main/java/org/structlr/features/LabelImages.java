package org.structlr.features;

import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Path;
import javax.imageio.ImageIO;
import org.structlr.data.AtomicFiles;
import org.structlr.data.ClassTable;

/**
 * Predictions made at the working size, brought back to an image's original size and written as
 * a mask PNG (CLI {@code predict} on images).
 *
 * <p><b>Upsampling.</b> The per-pixel label probabilities (the beliefs b_i) are resized
 * <em>bilinearly</em> with pixel centres aligned (original pixel R sits at working coordinate
 * (R + 0.5) h / H - 0.5, clamped to the border pixels), and each original pixel then takes the
 * label of largest interpolated probability, ties to the smaller label. For two labels that is
 * "white where p(1) &gt; 0.5": the outline follows the 0.5 level line of the probability map instead
 * of the staircase of nearest-neighbour blocks. Bilinear weights are non-negative and sum to 1, so
 * every resized row is still a distribution (up to float rounding).
 *
 * <p><b>Images of labels.</b> {@link #mask}: 8-bit grey PNG, label 0 black (0), label 1 white
 * (255); with more than two labels, label y is grey level round(255 y / (L - 1)).
 * {@link #indexImage}: class indices (VOC's palette PNG convention). {@link #colorImage}: class
 * colours. {@link #probabilityImage}: one label's probability as grey levels.
 */
public final class LabelImages {
    private LabelImages() {}

    /**
     * Bilinear resize of {@code [h * w, L]} row-major probabilities to {@code [H * W, L]}.
     */
    public static float[] resizeBilinear(float[] probs, int h, int w, int numLabels, int outHeight, int outWidth) {
        if (probs.length != (long) h * w * numLabels) {
            throw new IllegalArgumentException("probabilities have " + probs.length + " values, not " + h + "*" + w + "*" + numLabels);
        }
        if (outHeight < 1 || outWidth < 1) throw new IllegalArgumentException("output size " + outHeight + "x" + outWidth + " has no pixels");
        Axis rows = Axis.of(h, outHeight), cols = Axis.of(w, outWidth);
        int L = numLabels;
        float[] out = new float[outHeight * outWidth * L];
        for (int R = 0; R < outHeight; R++) {
            int r0 = rows.lo[R], r1 = rows.hi[R];
            double fr = rows.frac[R];
            for (int C = 0; C < outWidth; C++) {
                int c0 = cols.lo[C], c1 = cols.hi[C];
                double fc = cols.frac[C];
                double w00 = (1 - fr) * (1 - fc), w01 = (1 - fr) * fc, w10 = fr * (1 - fc), w11 = fr * fc;
                int a = (r0 * w + c0) * L, b = (r0 * w + c1) * L, c = (r1 * w + c0) * L, d = (r1 * w + c1) * L;
                int o = (R * outWidth + C) * L;
                for (int y = 0; y < L; y++) {
                    out[o + y] = (float) (w00 * probs[a + y] + w01 * probs[b + y] + w10 * probs[c + y] + w11 * probs[d + y]);
                }
            }
        }
        return out;
    }

    /** The label of largest probability of each row of {@code [n, L]} (ties: the smaller label). */
    public static int[] argmax(float[] probs, int numLabels) {
        if (numLabels < 1 || probs.length % numLabels != 0) throw new IllegalArgumentException(probs.length + " values are not rows of " + numLabels);
        int n = probs.length / numLabels;
        int[] y = new int[n];
        for (int i = 0; i < n; i++) {
            int best = 0;
            for (int k = 1; k < numLabels; k++) if (probs[i * numLabels + k] > probs[i * numLabels + best]) best = k;
            y[i] = best;
        }
        return y;
    }

    /** The mask image of row-major labels (see the class comment for the grey levels). */
    public static BufferedImage mask(int[] labels, int height, int width, int numLabels) {
        if (labels.length != (long) height * width) throw new IllegalArgumentException(labels.length + " labels for " + height + "x" + width);
        BufferedImage img = new BufferedImage(width, height, BufferedImage.TYPE_BYTE_GRAY);
        byte[] px = ((java.awt.image.DataBufferByte) img.getRaster().getDataBuffer()).getData();
        int top = Math.max(1, numLabels - 1);
        for (int i = 0; i < labels.length; i++) {
            int y = labels[i];
            if (y < 0 || y >= Math.max(2, numLabels)) throw new IllegalArgumentException("label " + y + " out of range 0.." + (numLabels - 1));
            px[i] = (byte) Math.round(255.0 * Math.min(y, top) / top);
        }
        return img;
    }

    /**
     * The class-index image of row-major labels (Pascal VOC's convention): an 8-bit palette PNG
     * whose pixel values are the class indices and whose palette holds the class table's colours
     * (so it opens as a colour picture and reads back as indices; unused entries get the void
     * colour); a 16-bit grey image of the indices when there are more than 256 classes.
     */
    public static BufferedImage indexImage(int[] labels, int height, int width, ClassTable classes) {
        int n = classes.numClasses();
        check(labels, height, width, n);
        if (n > 256) {
            BufferedImage img = new BufferedImage(width, height, BufferedImage.TYPE_USHORT_GRAY);
            short[] px = ((java.awt.image.DataBufferUShort) img.getRaster().getDataBuffer()).getData();
            for (int i = 0; i < labels.length; i++) px[i] = (short) labels[i];
            return img;
        }
        byte[] r = new byte[256], g = new byte[256], b = new byte[256];
        for (int k = 0; k < 256; k++) {
            int c = k < n ? classes.color(k) : classes.voidColor();
            r[k] = (byte) (c >> 16);
            g[k] = (byte) (c >> 8);
            b[k] = (byte) c;
        }
        BufferedImage img = new BufferedImage(width, height, BufferedImage.TYPE_BYTE_INDEXED, new java.awt.image.IndexColorModel(8, 256, r, g, b));
        byte[] px = ((java.awt.image.DataBufferByte) img.getRaster().getDataBuffer()).getData();
        for (int i = 0; i < labels.length; i++) px[i] = (byte) labels[i];
        return img;
    }

    /** The colour image of row-major labels: each pixel its class's colour from the class table. */
    public static BufferedImage colorImage(int[] labels, int height, int width, ClassTable classes) {
        check(labels, height, width, classes.numClasses());
        BufferedImage img = new BufferedImage(width, height, BufferedImage.TYPE_INT_RGB);
        int[] px = ((java.awt.image.DataBufferInt) img.getRaster().getDataBuffer()).getData();
        for (int i = 0; i < labels.length; i++) px[i] = classes.color(labels[i]);
        return img;
    }

    /** The probability map of label {@code c} from row-major {@code [H * W, L]} probabilities: grey round(255 p). */
    public static BufferedImage probabilityImage(float[] probs, int height, int width, int numLabels, int c) {
        if (probs.length != (long) height * width * numLabels) throw new IllegalArgumentException(probs.length + " probabilities for " + height + "x" + width + "x" + numLabels);
        BufferedImage img = new BufferedImage(width, height, BufferedImage.TYPE_BYTE_GRAY);
        byte[] px = ((java.awt.image.DataBufferByte) img.getRaster().getDataBuffer()).getData();
        for (int i = 0; i < px.length; i++) px[i] = (byte) Math.round(255 * Math.min(1f, Math.max(0f, probs[i * numLabels + c])));
        return img;
    }

    private static void check(int[] labels, int height, int width, int numLabels) {
        if (labels.length != (long) height * width) throw new IllegalArgumentException(labels.length + " labels for " + height + "x" + width);
        for (int y : labels) if (y < 0 || y >= numLabels) throw new IllegalArgumentException("label " + y + " out of range 0.." + (numLabels - 1));
    }

    /** The kinds of labels picture that predict --format and serve's /v1/segment?format= write. */
    public static final java.util.List<String> FORMATS = java.util.List.of("mask", "index", "color");

    /** The labels picture of one of the {@link #FORMATS}: {@link #mask}, {@link #indexImage} or {@link #colorImage}. */
    public static BufferedImage picture(String format, int[] labels, int height, int width, ClassTable classes) {
        return switch (format) {
            case "index" -> indexImage(labels, height, width, classes);
            case "color" -> colorImage(labels, height, width, classes);
            case "mask" -> mask(labels, height, width, classes.numClasses());
            default -> throw new IllegalArgumentException("format " + format + " is not one of " + FORMATS);
        };
    }

    /** Writes {@code img} as a PNG atomically (temporary file in the same folder, then a move). */
    public static void writePng(Path file, BufferedImage img) throws IOException {
        AtomicFiles.write(file, out -> {
            if (!ImageIO.write(img, "png", out)) throw new IOException("no PNG writer in this Java runtime");
        });
    }

    /** Per output pixel: the two source pixels to blend and the weight of the second. */
    private record Axis(int[] lo, int[] hi, double[] frac) {
        static Axis of(int source, int target) {
            int[] lo = new int[target], hi = new int[target];
            double[] frac = new double[target];
            double scale = (double) source / target;
            for (int o = 0; o < target; o++) {
                double x = Math.min(source - 1, Math.max(0, (o + 0.5) * scale - 0.5));
                int i = (int) Math.floor(x);
                lo[o] = i;
                hi[o] = Math.min(i + 1, source - 1);
                frac[o] = x - i;
            }
            return new Axis(lo, hi, frac);
        }
    }
}
