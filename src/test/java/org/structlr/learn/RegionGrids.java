package org.structlr.learn;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.structlr.data.Dataset;
import org.structlr.data.Example;

/** Small grid data sets for learning with region factors (RegionLayout). */
final class RegionGrids {
    private RegionGrids() {}

    /**
     * n images of h x w bits y[r][c] = a[r] xor b[c] (a row bit and a column bit, uniform): every
     * 2x2 patch has even parity, while any two pixels are independent uniform bits, so pairs carry
     * nothing and a 2x2 patch factor carries the whole structure. Unary features
     * [1, y + N(0, sigma^2)], every edge's feature [1], 4-connected grid edges.
     */
    static List<Example> rowColumnXor(int n, int h, int w, double sigma, Random rnd) {
        List<Example> out = new ArrayList<>();
        for (int k = 0; k < n; k++) {
            int[] a = new int[h], b = new int[w];
            for (int r = 0; r < h; r++) a[r] = rnd.nextInt(2);
            for (int c = 0; c < w; c++) b[c] = rnd.nextInt(2);
            int[] y = new int[h * w];
            for (int r = 0; r < h; r++) for (int c = 0; c < w; c++) y[r * w + c] = a[r] ^ b[c];
            out.add(image(y, h, w, sigma, rnd));
        }
        return out;
    }

    /** One image with labels y, unary features [1, y + N(0, sigma^2)], grid edges (horizontal, then vertical) with feature [1]. */
    static Example image(int[] y, int h, int w, double sigma, Random rnd) {
        float[] x = new float[2 * y.length];
        for (int v = 0; v < y.length; v++) {
            x[2 * v] = 1f;
            x[2 * v + 1] = (float) (y[v] + sigma * rnd.nextGaussian());
        }
        List<int[]> edges = new ArrayList<>();
        for (int r = 0; r < h; r++) for (int c = 0; c + 1 < w; c++) edges.add(new int[] {r * w + c, r * w + c + 1});
        for (int r = 0; r + 1 < h; r++) for (int c = 0; c < w; c++) edges.add(new int[] {r * w + c, (r + 1) * w + c});
        int[] e = new int[2 * edges.size()];
        for (int k = 0; k < edges.size(); k++) {
            e[2 * k] = edges.get(k)[0];
            e[2 * k + 1] = edges.get(k)[1];
        }
        float[] pf = new float[edges.size()];
        java.util.Arrays.fill(pf, 1f);
        return Example.builder(x, 2, e, pf, 1).labels(y).numLabels(2).shape(h, w).build();
    }

    static Dataset dataset(List<Example> train, List<Example> test) {
        return Dataset.of(train, test, List.of());
    }
}
