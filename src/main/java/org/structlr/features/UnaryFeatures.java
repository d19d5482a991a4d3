package org.structlr.features;

/**
 * Per-pixel unary features of an RGB image: one row of {@link #dim()} values per pixel.
 * Implementations: {@link ImageFeatures} (the paper's 42 hand-made features) and
 * {@link PatchFeatures} (raw colour patches for a convolutional unary network).
 */
public interface UnaryFeatures {
    /** A short name for file headers and the CLI: "handmade" or "patch". */
    String name();

    /** Du, the features per pixel. */
    int dim();

    /**
     * The features of every pixel, row-major {@code [H * W, dim()]}.
     *
     * @param rgb {@code [H * W * 3]} pixel-major R, G, B in [0, 1] (as in {@link HorseImage#rgb()})
     */
    float[] compute(int height, int width, float[] rgb);
}
