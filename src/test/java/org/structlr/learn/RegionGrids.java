package org.structlr.learn;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.structlr.data.Dataset;
import org.structlr.data.Example;
import org.structlr.graph.FactorGraph;
import org.structlr.graph.Grids;

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

    /** The edges of an h x w grid as (from, to) pairs, in {@link Grids#grid}'s order (horizontal, then vertical). */
    static int[] gridEdges(int h, int w) {
        FactorGraph g = Grids.grid(h, w, 2, false);
        int[] e = new int[2 * g.numEdges()];
        for (int k = 0; k < g.numEdges(); k++) {
            e[2 * k] = g.edgeFrom(k);
            e[2 * k + 1] = g.edgeTo(k);
        }
        return e;
    }

    /** One image with labels y, unary features [1, y + N(0, sigma^2)], grid edges (horizontal, then vertical) with feature [1]. */
    static Example image(int[] y, int h, int w, double sigma, Random rnd) {
        float[] x = new float[2 * y.length];
        for (int v = 0; v < y.length; v++) {
            x[2 * v] = 1f;
            x[2 * v + 1] = (float) (y[v] + sigma * rnd.nextGaussian());
        }
        int[] e = gridEdges(h, w);
        float[] pf = new float[e.length / 2];
        java.util.Arrays.fill(pf, 1f);
        return Example.builder(x, 2, e, pf, 1).labels(y).numLabels(2).shape(h, w).build();
    }

    static Dataset dataset(List<Example> train, List<Example> test) {
        return Dataset.of(train, test, List.of());
    }
}
