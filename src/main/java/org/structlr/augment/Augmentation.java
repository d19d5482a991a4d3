package org.structlr.augment;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Random;

/**
 * Random transforms of a labelled image, drawn from a seeded source: a horizontal flip (with
 * probability 1/2 when {@code flip}), a crop keeping a random fraction in [{@code cropMin}, 1] of
 * each side at a random place (one fraction for both sides: the aspect ratio is kept), a scale
 * factor in [{@code scaleMin}, {@code scaleMax}] (log-uniform) that multiplies the working size the
 * image is resized to (objects appear larger or smaller in pixels), and colour jitter: brightness,
 * contrast and saturation factors each uniform in [1 - {@code jitter}, 1 + {@code jitter}].
 *
 * <p>The geometric part of one {@link Transform} is applied to the image and to its mask alike
 * (crop boxes as fractions of each plane's own size, so a mask stored at another scale than its
 * image is cut at the same place); jitter touches the colours only. Labels are only moved, and the
 * final resize of a mask to the working size is {@link org.structlr.features.LabelResize}'s vote,
 * never an interpolation.
 */
public record Augmentation(boolean flip, double cropMin, double scaleMin, double scaleMax, double jitter) {

    /** Nothing changes. */
    public static final Augmentation NONE = new Augmentation(false, 1, 1, 1, 0);

    public Augmentation {
        if (!(cropMin > 0 && cropMin <= 1)) throw new IllegalArgumentException("the crop fraction must be in (0, 1], got " + cropMin);
        if (!(scaleMin > 0 && scaleMin <= scaleMax && Double.isFinite(scaleMax))) {
            throw new IllegalArgumentException("the scale range must be 0 < min <= max, got " + scaleMin + ", " + scaleMax);
        }
        if (!(jitter >= 0 && jitter < 1)) throw new IllegalArgumentException("colour jitter must be in [0, 1), got " + jitter);
    }

    /** Whether any transform can differ from the identity. */
    public boolean active() {
        return flip || cropMin < 1 || scaleMin != 1 || scaleMax != 1 || jitter > 0;
    }

    /** One transform drawn from {@code rnd} (always the same number of draws, so streams stay aligned). */
    public Transform draw(Random rnd) {
        boolean f = rnd.nextBoolean() && flip;
        double side = cropMin + (1 - cropMin) * rnd.nextDouble();
        double top = (1 - side) * rnd.nextDouble(), left = (1 - side) * rnd.nextDouble();
        double u = rnd.nextDouble();
        double scale = scaleMin == scaleMax ? scaleMin : Math.exp(Math.log(scaleMin) + u * (Math.log(scaleMax) - Math.log(scaleMin)));
        double b = 1 + jitter * (2 * rnd.nextDouble() - 1), c = 1 + jitter * (2 * rnd.nextDouble() - 1), s = 1 + jitter * (2 * rnd.nextDouble() - 1);
        if (cropMin == 1) {
            top = 0;
            left = 0;
            side = 1;
        }
        return new Transform(f, top, left, top + side, left + side, scale, b, c, s);
    }

    /** The settings for a data set's info file. */
    public Map<String, Object> describe() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("flip", flip);
        m.put("crop_min", cropMin);
        m.put("scale", new double[] {scaleMin, scaleMax});
        m.put("jitter", jitter);
        return m;
    }

    /**
     * One drawn transform: flip, the crop box (fractions of the height and width: rows
     * [top, bottom), columns [left, right)), the working-size scale and the jitter factors.
     */
    public record Transform(boolean flip, double top, double left, double bottom, double right, double scale,
                            double brightness, double contrast, double saturation) {
        public static final Transform IDENTITY = new Transform(false, 0, 0, 1, 1, 1, 1, 1, 1);

        /** The crop box of an {@code h x w} plane: {r0, r1, c0, c1}, at least one pixel each way. */
        public int[] box(int h, int w) {
            int r0 = Math.min(h - 1, (int) Math.round(top * h)), c0 = Math.min(w - 1, (int) Math.round(left * w));
            int r1 = Math.max(r0 + 1, Math.min(h, (int) Math.round(bottom * h))), c1 = Math.max(c0 + 1, Math.min(w, (int) Math.round(right * w)));
            return new int[] {r0, r1, c0, c1};
        }

        /** {height, width} of an {@code h x w} plane after the crop. */
        public int[] size(int h, int w) {
            int[] b = box(h, w);
            return new int[] {b[1] - b[0], b[3] - b[2]};
        }

        /** Crop, then flip, of a float plane (colour channel or grey mask). */
        public float[] geometry(float[] p, int h, int w) {
            int[] b = box(h, w);
            float[] out = b[0] == 0 && b[1] == h && b[2] == 0 && b[3] == w ? p : Planes.crop(p, h, w, b[0], b[1], b[2], b[3]);
            return flip ? Planes.flip(out, b[1] - b[0], b[3] - b[2]) : out;
        }

        /** Crop, then flip, of a label plane. */
        public int[] geometry(int[] p, int h, int w) {
            int[] b = box(h, w);
            int[] out = b[0] == 0 && b[1] == h && b[2] == 0 && b[3] == w ? p : Planes.crop(p, h, w, b[0], b[1], b[2], b[3]);
            return flip ? Planes.flip(out, b[1] - b[0], b[3] - b[2]) : out;
        }

        /** A working shape {height, width} scaled by {@link #scale} (each side at least 2). */
        public int[] scaled(int[] shape) {
            if (scale == 1) return shape;
            return new int[] {Math.max(2, (int) Math.round(shape[0] * scale)), Math.max(2, (int) Math.round(shape[1] * scale))};
        }

        /**
         * Colour jitter of R, G, B planes in 8-bit units, in place: brightness (x b), contrast
         * (around the image's mean grey, x c), saturation (around each pixel's grey, x s), clamped
         * to [0, 255]; grey = 0.299 R + 0.587 G + 0.114 B.
         */
        public void jitter(float[][] rgb) {
            if (rgb.length != 3) throw new IllegalArgumentException("colour jitter needs R, G, B planes, got " + rgb.length);
            if (brightness == 1 && contrast == 1 && saturation == 1) return;
            int n = rgb[0].length;
            double mean = 0;
            for (int i = 0; i < n; i++) mean += brightness * grey(rgb, i);
            mean /= n;
            for (int i = 0; i < n; i++) {
                double[] v = new double[3];
                for (int ch = 0; ch < 3; ch++) v[ch] = mean + (brightness * rgb[ch][i] - mean) * contrast;
                double g = 0.299 * v[0] + 0.587 * v[1] + 0.114 * v[2];
                for (int ch = 0; ch < 3; ch++) rgb[ch][i] = (float) Math.min(255, Math.max(0, g + (v[ch] - g) * saturation));
            }
        }

        private static double grey(float[][] rgb, int i) {
            return 0.299 * rgb[0][i] + 0.587 * rgb[1][i] + 0.114 * rgb[2][i];
        }
    }
}
