package org.structlr.oracle;

import java.util.Arrays;

import org.nd4j.linalg.api.ndarray.INDArray;
import org.structlr.graph.GridBatch;

/**
 * Where the rows of a {@link BiasedLogisticProblem} sit in whole images, for function classes that
 * read an image at once ({@link ImageScoreFunction}): the per-pixel features of every image of the
 * batch ({@code [V, D]}, in {@code layout}'s variable order), the layout, and for every problem row
 * the variable ({@code perEdge = false}) or grid edge ({@code perEdge = true}, layout edge order) it
 * is. Non-image oracles ignore it; a problem carries it only when its examples form a grid batch.
 */
public record ImageRows(INDArray pixelFeatures, GridBatch layout, int[] rows, boolean perEdge) {

    public ImageRows {
        if (pixelFeatures == null || layout == null || rows == null) {
            throw new IllegalArgumentException("image rows: pixel features, layout and rows are required");
        }
        if (pixelFeatures.rank() != 2 || pixelFeatures.size(0) != layout.numVariables()) {
            throw new IllegalArgumentException("image rows: pixel features must be [V, D] with V = " + layout.numVariables()
                    + " for " + layout + ", got " + Arrays.toString(pixelFeatures.shape()));
        }
        int limit = perEdge ? layout.numEdges() : layout.numVariables();
        for (int r : rows) {
            if (r < 0 || r >= limit) {
                throw new IllegalArgumentException("image rows: row " + r + " outside the layout's " + limit
                        + (perEdge ? " edges" : " variables"));
            }
        }
    }

    /** Every variable of the layout, in order: the rows of a unary problem over the whole batch. */
    public static ImageRows pixels(INDArray pixelFeatures, GridBatch layout) {
        int[] rows = new int[layout.numVariables()];
        for (int i = 0; i < rows.length; i++) rows[i] = i;
        return new ImageRows(pixelFeatures, layout, rows, false);
    }

    /** The given layout edges (for one pairwise type, in the type's row order). */
    public static ImageRows edges(INDArray pixelFeatures, GridBatch layout, int[] edges) {
        return new ImageRows(pixelFeatures, layout, edges, true);
    }

    /**
     * Whether {@code at} is {@code 0, 1, ..., n - 1}: rows already in place, which need no gather or
     * scatter (and so no index array sent to the device), e.g. a unary problem without void pixels.
     */
    public static boolean inOrder(int[] at, long n) {
        if (at.length != n) return false;
        for (int i = 0; i < at.length; i++) if (at[i] != i) return false;
        return true;
    }

    /** The per-pixel feature width D. */
    public int numPixelFeatures() {
        return (int) pixelFeatures.size(1);
    }
}
