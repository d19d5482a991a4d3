package org.structlr.features;

/**
 * Raw colour patches as unary features, for a convolutional unary network: the row of pixel
 * (r, c) holds the R, G, B values (in [0, 1]) of the k x k patch centred on it, k odd
 * ({@link #DEFAULT_K} = 9 by default: at the default working size of 36 x 48 pixels a quarter of
 * the image height, about the size of a horse's head or leg). Pixels outside the image are
 * edge-replicated (the nearest image pixel).
 *
 * <p>Layout: channel-major, then patch row, then patch column, i.e. column
 * {@code ch * k * k + dy * k + dx} holds channel ch (0 = R, 1 = G, 2 = B) of image pixel
 * (r + dy - k/2, c + dx - k/2). That is the [channels, height, width] order in which DL4J's
 * {@code InputType.convolutionalFlat(k, k, 3)} reshapes a flat row, so a CNN can read the
 * unary matrix as it is. Width 3 k^2 (243 for k = 9); the hand-made edge features are unchanged.
 *
 * <p>Plain Java loops: one-time preprocessing, not a hot path.
 */
public final class PatchFeatures implements UnaryFeatures {
    public static final int DEFAULT_K = 9;

    private final int k;

    public PatchFeatures() {
        this(DEFAULT_K);
    }

    /** @param k the patch side, odd and at least 1 */
    public PatchFeatures(int k) {
        if (k < 1 || k % 2 == 0) throw new IllegalArgumentException("patch side must be odd and at least 1, got " + k);
        this.k = k;
    }

    public int k() { return k; }

    @Override
    public String name() { return "patch"; }

    @Override
    public int dim() { return 3 * k * k; }

    @Override
    public float[] compute(int height, int width, float[] rgb) {
        ImageFeatures.check(height, width, rgb);
        int d = dim(), kk = k * k, half = k / 2;
        float[] out = new float[height * width * d];
        for (int r = 0; r < height; r++) {
            for (int c = 0; c < width; c++) {
                int o = (r * width + c) * d;
                for (int dy = 0; dy < k; dy++) {
                    int rr = Math.min(Math.max(r + dy - half, 0), height - 1);
                    for (int dx = 0; dx < k; dx++) {
                        int cc = Math.min(Math.max(c + dx - half, 0), width - 1);
                        int src = 3 * (rr * width + cc), at = o + dy * k + dx;
                        out[at] = rgb[src];
                        out[at + kk] = rgb[src + 1];
                        out[at + 2 * kk] = rgb[src + 2];
                    }
                }
            }
        }
        return out;
    }

    @Override
    public String toString() {
        return "patch(" + k + "x" + k + " RGB, channel-major, edge-replicated)";
    }
}
