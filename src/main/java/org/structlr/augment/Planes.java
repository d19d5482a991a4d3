package org.structlr.augment;

/**
 * Geometry on row-major planes of {@code h x w} values: the horizontal flip and the crop, for float
 * planes (colours, grey masks) and int planes (labels). Both only move values, never mix them.
 */
public final class Planes {
    private Planes() {}

    /** Column c becomes column w - 1 - c. */
    public static float[] flip(float[] p, int h, int w) {
        check(p.length, h, w);
        float[] out = new float[p.length];
        for (int r = 0; r < h; r++) for (int c = 0; c < w; c++) out[r * w + c] = p[r * w + w - 1 - c];
        return out;
    }

    /** Column c becomes column w - 1 - c. */
    public static int[] flip(int[] p, int h, int w) {
        check(p.length, h, w);
        int[] out = new int[p.length];
        for (int r = 0; r < h; r++) for (int c = 0; c < w; c++) out[r * w + c] = p[r * w + w - 1 - c];
        return out;
    }

    /** Rows [r0, r1) and columns [c0, c1) of an {@code h x w} plane. */
    public static float[] crop(float[] p, int h, int w, int r0, int r1, int c0, int c1) {
        check(p.length, h, w);
        checkBox(h, w, r0, r1, c0, c1);
        int cw = c1 - c0;
        float[] out = new float[(r1 - r0) * cw];
        for (int r = r0; r < r1; r++) System.arraycopy(p, r * w + c0, out, (r - r0) * cw, cw);
        return out;
    }

    /** Rows [r0, r1) and columns [c0, c1) of an {@code h x w} plane. */
    public static int[] crop(int[] p, int h, int w, int r0, int r1, int c0, int c1) {
        check(p.length, h, w);
        checkBox(h, w, r0, r1, c0, c1);
        int cw = c1 - c0;
        int[] out = new int[(r1 - r0) * cw];
        for (int r = r0; r < r1; r++) System.arraycopy(p, r * w + c0, out, (r - r0) * cw, cw);
        return out;
    }

    private static void check(int length, int h, int w) {
        if (h < 1 || w < 1 || length != (long) h * w) throw new IllegalArgumentException("plane of " + length + " values is not " + h + "x" + w);
    }

    private static void checkBox(int h, int w, int r0, int r1, int c0, int c1) {
        if (r0 < 0 || r1 > h || r0 >= r1 || c0 < 0 || c1 > w || c0 >= c1) {
            throw new IllegalArgumentException("crop rows [" + r0 + ", " + r1 + ") columns [" + c0 + ", " + c1 + ") is not inside " + h + "x" + w);
        }
    }
}
