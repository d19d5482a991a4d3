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

    /** The features named {@code name} (handmade, patch or rgb), as horses-data, images-data and predict take them. */
    static UnaryFeatures of(String name, int cell, int patch) {
        switch (name) {
            case "handmade":
                if (cell < 1) throw new org.structlr.data.BadInputException("option '--cell' must be at least 1, got " + cell);
                return new ImageFeatures(cell);
            case "patch":
                if (patch < 1 || patch % 2 == 0) throw new org.structlr.data.BadInputException("option '--patch' must be odd and at least 1, got " + patch);
                return new PatchFeatures(patch);
            case "rgb":
                return new RgbFeatures();
            default:
                throw new org.structlr.data.BadInputException("option '--features' must be handmade, patch or rgb, got '" + name + "'");
        }
    }
}
