package org.structlr.features;

/**
 * The raw pixels as unary features: R, G, B of each pixel in [0, 1] (width 3), for networks that
 * learn their own features from whole images ({@code fcn}, your own network) rather than from the
 * hand-made ones.
 */
public final class RgbFeatures implements UnaryFeatures {
    @Override
    public String name() { return "rgb"; }

    @Override
    public int dim() { return 3; }

    @Override
    public float[] compute(int height, int width, float[] rgb) {
        ImageFeatures.check(height, width, rgb);
        return rgb.clone();
    }

    @Override
    public String toString() {
        return "rgb(R, G, B in [0, 1]: the raw pixels)";
    }
}
