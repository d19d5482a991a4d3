package org.structlr.graph;

import java.util.Arrays;
import java.util.List;

/**
 * The layout of a batch of 4-connected grids of any sizes stacked as one disjoint union in
 * {@link Grids#grid} order: image k owns variables {@code [variableOffset(k), variableOffset(k+1))}
 * (row-major) and edges {@code [edgeOffset(k), edgeOffset(k+1))} (its horizontal edges row-major,
 * then its vertical edges row-major). Shared by every grid engine (fused CPU and ND4J) so that a
 * ragged batch and one-image-at-a-time inference see the same variables and edges.
 */
public record GridBatch(int[] heights, int[] widths) {

    public GridBatch {
        if (heights.length != widths.length || heights.length == 0) {
            throw new IllegalArgumentException("a grid batch needs one height and one width per image, got "
                    + heights.length + " and " + widths.length);
        }
        for (int k = 0; k < heights.length; k++) {
            if (heights[k] < 1 || widths[k] < 1) throw new IllegalArgumentException("grid " + k + " of " + heights[k] + "x" + widths[k] + " has no pixels");
        }
        heights = heights.clone();
        widths = widths.clone();
    }

    /** {@code count} grids of one size. */
    public static GridBatch uniform(int count, int height, int width) {
        int[] h = new int[count], w = new int[count];
        Arrays.fill(h, height);
        Arrays.fill(w, width);
        return new GridBatch(h, w);
    }

    /** One grid per {@code [height, width]} shape. */
    public static GridBatch of(List<int[]> shapes) {
        int[] h = new int[shapes.size()], w = new int[shapes.size()];
        for (int k = 0; k < h.length; k++) {
            h[k] = shapes.get(k)[0];
            w[k] = shapes.get(k)[1];
        }
        return new GridBatch(h, w);
    }

    public int count() { return heights.length; }
    public int height(int k) { return heights[k]; }
    public int width(int k) { return widths[k]; }

    public int variableOffset(int k) {
        int o = 0;
        for (int i = 0; i < k; i++) o += heights[i] * widths[i];
        return o;
    }

    public int edgeOffset(int k) {
        int o = 0;
        for (int i = 0; i < k; i++) o += edgesOf(i);
        return o;
    }

    public int numVariables() { return variableOffset(count()); }
    public int numEdges() { return edgeOffset(count()); }

    /** True when every grid has one size (the ND4J engine's uniform fast case). */
    public boolean isUniform() {
        for (int k = 1; k < count(); k++) if (heights[k] != heights[0] || widths[k] != widths[0]) return false;
        return true;
    }

    private int edgesOf(int k) {
        return heights[k] * (widths[k] - 1) + (heights[k] - 1) * widths[k];
    }

    /**
     * The layout when {@code g} is exactly these stacked grids (one label count, {@link Grids#grid}
     * edge order; edge types do not matter to inference), else null.
     */
    public static GridBatch detect(FactorGraph g, List<int[]> shapes) {
        if (shapes == null || shapes.isEmpty()) return null;
        GridBatch b;
        try {
            b = of(shapes);
        } catch (IllegalArgumentException e) {
            return null;
        }
        return b.matches(g) ? b : null;
    }

    /** True when {@code g}'s variables and edges are exactly this layout's (and it has no regions). */
    public boolean matches(FactorGraph g) {
        if (g.hasRegions() || g.numVariables() != numVariables() || g.numEdges() != numEdges()) return false;
        int L = g.maxLabels();
        for (int v = 0; v < g.numVariables(); v++) if (g.numLabels(v) != L) return false;
        int e = 0;
        for (int k = 0; k < count(); k++) {
            int off = variableOffset(k), h = heights[k], w = widths[k];
            for (int r = 0; r < h; r++) {
                for (int c = 0; c + 1 < w; c++, e++) {
                    if (g.edgeFrom(e) != off + r * w + c || g.edgeTo(e) != off + r * w + c + 1) return false;
                }
            }
            for (int r = 0; r + 1 < h; r++) {
                for (int c = 0; c < w; c++, e++) {
                    if (g.edgeFrom(e) != off + r * w + c || g.edgeTo(e) != off + (r + 1) * w + c) return false;
                }
            }
        }
        return true;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof GridBatch b && Arrays.equals(heights, b.heights) && Arrays.equals(widths, b.widths);
    }

    @Override
    public int hashCode() {
        return 31 * Arrays.hashCode(heights) + Arrays.hashCode(widths);
    }

    @Override
    public String toString() {
        StringBuilder s = new StringBuilder("GridBatch[");
        for (int k = 0; k < count(); k++) s.append(k == 0 ? "" : ", ").append(heights[k]).append('x').append(widths[k]);
        return s.append(']').toString();
    }
}
