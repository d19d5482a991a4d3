package org.structlr.oracle;

import org.nd4j.linalg.api.ndarray.INDArray;
import org.structlr.graph.GridBatch;

/**
 * A score function that reads whole images rather than independent rows (a fully convolutional
 * network): given the per-pixel features of a batch of grid images and their layout, it scores every
 * pixel (unary) or every grid edge (pairwise) at once. {@link #scores(INDArray)} alone cannot know
 * where one image ends, so such functions refuse it; callers holding a {@link GridBatch} use
 * {@link #imageScores}.
 */
public interface ImageScoreFunction extends ScoreFunction {

    /**
     * g for the batch: {@code [V, C]} per variable in the layout's order (unary), or {@code [E, C]} per
     * grid edge in the layout's edge order (pairwise, C = L*L, joint label y_i * L + y_j with i the left
     * or upper pixel), from {@code pixelFeatures [V, D]}; in the features' data type.
     */
    INDArray imageScores(INDArray pixelFeatures, GridBatch layout);

    /** True when the rows of {@link #imageScores} are grid edges, false when they are pixels. */
    boolean perEdge();

    /** The per-pixel feature width D the network reads (also {@link #numFeatures()}). */
    @Override
    int numFeatures();
}
