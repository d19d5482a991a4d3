package org.structlr.features;

import org.structlr.data.Example;

/**
 * The image features of the paper's horse experiment (docs/design.md §1): 42 unary features per pixel and
 * 3 features per grid edge, computed on the image at its working size (see {@link HorseLoader}).
 *
 * <p><b>Unary row of pixel (r, c)</b> of an H x W image, in this column order:
 * <ol start="0">
 *   <li>constant 1;</li>
 *   <li>1-3: R, G, B in [0, 1];</li>
 *   <li>4: vertical position r / (H - 1), 5: horizontal position c / (W - 1), both in [0, 1]
 *       (0 when the image has a single row or column);</li>
 *   <li>6-41: a histogram of oriented gradients (HOG) around the pixel, Dalal-Triggs style:
 *       column {@code 6 + 9 * cell + bin}.
 * </ol>
 *
 * <p><b>HOG.</b> Gradients are centred differences [-1, 0, 1] along rows and columns of each colour
 * channel (edge-replicated borders), and each pixel keeps the channel with the largest gradient
 * magnitude (as Dalal and Triggs do for colour images). The orientation
 * theta = atan2(g_down, g_right) is folded to [0°, 180°) (unsigned gradients); the 9 bins are
 * centred at 0°, 20°, ..., 160° and each pixel votes its gradient magnitude into the two nearest
 * bins, linearly interpolated (160°..180° splits between bin 8 and bin 0). So a vertical edge
 * (intensity changing along the row) votes into bin 0, a horizontal edge into bins 4 and 5 equally.
 * Around pixel (r, c) the block is the 2s x 2s square of rows [r - s, r + s) and columns
 * [c - s, c + s), with cell size s = {@link #DEFAULT_CELL} = 4 pixels by default, split into four
 * s x s cells in the order top-left, top-right, bottom-left, bottom-right (the pixel itself is the
 * top-left pixel of the bottom-right cell). Pixels outside the image vote nothing. The 36 values
 * are L2-normalised over the block: v / sqrt(|v|^2 + eps^2) with eps = {@link #HOG_EPS} = 1 (in
 * units of gradient magnitude with intensities in [0, 1]; a clean step edge across a block sums to
 * about 2s, so it normalises to nearly unit length, while the faint gradients of JPEG noise in a
 * flat region stay small instead of being blown up to unit length). A flat image gives all zeros.
 * There is no spatial (trilinear) interpolation between cells. Why s = 4: at the default working
 * size of 36 x 48 pixels a block of 8 x 8 pixels is about a fifth of the image height: a leg or
 * the head; Dalal-Triggs' 8-pixel cells would make every block a third of the image.
 *
 * <p><b>Edge row of edge (i, j)</b> (grid edges in {@link org.structlr.graph.Grids#grid} order:
 * horizontal edges row-major, then vertical edges row-major; edge type 0 = horizontal,
 * 1 = vertical):
 * <ol start="0">
 *   <li>constant 1;</li>
 *   <li>the l2 distance of the two pixels' RGB vectors (colours in [0, 1], so in [0, sqrt 3]);</li>
 *   <li>a Sobel edge response: the mean of the two pixels' Sobel gradient magnitudes, computed on
 *       the luma Y = 0.299 R + 0.587 G + 0.114 B with edge-replicated borders and divided by 4,
 *       so that a unit step in luma gives 1 at the pixels on both sides of it (at most sqrt 2).
 *       The Sobel operator's 3 x 3 smoothing makes this a less noisy, wider-context cue than the
 *       colour distance of the two pixels alone.</li>
 * </ol>
 *
 * <p>Speed: plain Java loops over pixels. This is one-time preprocessing, not a hot path (HOG cell
 * sums come from one summed-area table per orientation bin, so the cost is O(H W) per image).
 */
public final class ImageFeatures implements UnaryFeatures {
    /** Unary features per pixel. */
    public static final int DIM = 42;
    /** Edge features per edge. */
    public static final int PAIR_DIM = 3;
    /** Orientation bins of the HOG. */
    public static final int BINS = 9;
    /** Cells per HOG block (2 x 2). */
    public static final int CELLS = 4;
    /** Column of the first HOG value in a unary row. */
    public static final int HOG_OFFSET = 6;
    /** Default HOG cell side in pixels. */
    public static final int DEFAULT_CELL = 4;
    /** The regulariser of the block L2 normalisation. */
    public static final double HOG_EPS = 1.0;

    private final int cell;

    /** The default cell size of {@value #DEFAULT_CELL} pixels. */
    public ImageFeatures() {
        this(DEFAULT_CELL);
    }

    /** @param cell HOG cell side in pixels (at least 1) */
    public ImageFeatures(int cell) {
        if (cell < 1) throw new IllegalArgumentException("HOG cell size must be at least 1 pixel, got " + cell);
        this.cell = cell;
    }

    public int cell() { return cell; }

    @Override
    public String name() { return "handmade"; }

    @Override
    public int dim() { return DIM; }

    @Override
    public float[] compute(int height, int width, float[] rgb) {
        check(height, width, rgb);
        int v = height * width;
        float[] hog = hog(height, width, rgb, cell);
        float[] out = new float[v * DIM];
        for (int r = 0; r < height; r++) {
            for (int c = 0; c < width; c++) {
                int i = r * width + c, o = i * DIM;
                out[o] = 1f;
                out[o + 1] = rgb[3 * i];
                out[o + 2] = rgb[3 * i + 1];
                out[o + 3] = rgb[3 * i + 2];
                out[o + 4] = height > 1 ? (float) r / (height - 1) : 0f;
                out[o + 5] = width > 1 ? (float) c / (width - 1) : 0f;
                System.arraycopy(hog, i * BINS * CELLS, out, o + HOG_OFFSET, BINS * CELLS);
            }
        }
        return out;
    }

    static void check(int height, int width, float[] rgb) {
        if (height < 1 || width < 1) throw new IllegalArgumentException("image of " + height + "x" + width + " has no pixels");
        if (rgb.length != 3 * height * width) {
            throw new IllegalArgumentException("rgb has " + rgb.length + " values; a " + height + "x" + width + " image needs " + 3 * height * width);
        }
    }

    /** The 36 HOG values of every pixel, row-major {@code [H * W, 36]} (see the class comment). */
    public static float[] hog(int height, int width, float[] rgb, int cell) {
        check(height, width, rgb);
        int w1 = width + 1;
        // One summed-area table per bin: sat[b][R * (W+1) + C] = sum of the votes in rows < R, columns < C.
        double[][] sat = new double[BINS][(height + 1) * w1];
        for (int r = 0; r < height; r++) {
            int up = Math.max(r - 1, 0), down = Math.min(r + 1, height - 1);
            for (int c = 0; c < width; c++) {
                int left = Math.max(c - 1, 0), right = Math.min(c + 1, width - 1);
                double gx = 0, gy = 0, best = -1;
                for (int ch = 0; ch < 3; ch++) {
                    double dx = rgb[3 * (r * width + right) + ch] - rgb[3 * (r * width + left) + ch];
                    double dy = rgb[3 * (down * width + c) + ch] - rgb[3 * (up * width + c) + ch];
                    double m2 = dx * dx + dy * dy;
                    if (m2 > best) {
                        best = m2;
                        gx = dx;
                        gy = dy;
                    }
                }
                double mag = Math.sqrt(best);
                if (mag == 0) continue;
                double theta = Math.toDegrees(Math.atan2(gy, gx));
                if (theta < 0) theta += 180;
                if (theta >= 180) theta -= 180;
                double pos = theta / (180.0 / BINS);
                int b0 = Math.min((int) pos, BINS - 1);
                double frac = pos - b0;
                int b1 = (b0 + 1) % BINS;
                int at = (r + 1) * w1 + (c + 1);
                sat[b0][at] += mag * (1 - frac);
                sat[b1][at] += mag * frac;
            }
        }
        for (double[] s : sat) {
            for (int r = 1; r <= height; r++) {
                double rowSum = 0;
                for (int c = 1; c <= width; c++) {
                    rowSum += s[r * w1 + c];
                    s[r * w1 + c] = s[(r - 1) * w1 + c] + rowSum;
                }
            }
        }
        int per = BINS * CELLS;
        float[] out = new float[height * width * per];
        double[] block = new double[per];
        double eps2 = HOG_EPS * HOG_EPS;
        for (int r = 0; r < height; r++) {
            for (int c = 0; c < width; c++) {
                double norm2 = 0;
                for (int k = 0; k < CELLS; k++) {
                    int r0 = r + (k / 2 == 0 ? -cell : 0), c0 = c + (k % 2 == 0 ? -cell : 0);
                    int ra = Math.max(r0, 0), rb = Math.min(r0 + cell, height);
                    int ca = Math.max(c0, 0), cb = Math.min(c0 + cell, width);
                    for (int b = 0; b < BINS; b++) {
                        double x = 0;
                        if (ra < rb && ca < cb) {
                            double[] s = sat[b];
                            x = s[rb * w1 + cb] - s[ra * w1 + cb] - s[rb * w1 + ca] + s[ra * w1 + ca];
                            if (x < 0) x = 0; // rounding of the table differences
                        }
                        block[k * BINS + b] = x;
                        norm2 += x * x;
                    }
                }
                double scale = 1 / Math.sqrt(norm2 + eps2);
                int o = (r * width + c) * per;
                for (int k = 0; k < per; k++) out[o + k] = (float) (block[k] * scale);
            }
        }
        return out;
    }

    /**
     * Sobel gradient magnitude of the luma of every pixel, divided by 4 (a unit step gives 1 on
     * both sides of it), edge-replicated borders: {@code [H * W]}.
     */
    public static float[] sobel(int height, int width, float[] rgb) {
        check(height, width, rgb);
        double[] y = new double[height * width];
        for (int i = 0; i < y.length; i++) y[i] = 0.299 * rgb[3 * i] + 0.587 * rgb[3 * i + 1] + 0.114 * rgb[3 * i + 2];
        float[] out = new float[height * width];
        for (int r = 0; r < height; r++) {
            int u = Math.max(r - 1, 0) * width, m = r * width, d = Math.min(r + 1, height - 1) * width;
            for (int c = 0; c < width; c++) {
                int lc = Math.max(c - 1, 0), rc = Math.min(c + 1, width - 1);
                double gx = (y[u + rc] + 2 * y[m + rc] + y[d + rc]) - (y[u + lc] + 2 * y[m + lc] + y[d + lc]);
                double gy = (y[d + lc] + 2 * y[d + c] + y[d + rc]) - (y[u + lc] + 2 * y[u + c] + y[u + rc]);
                out[m + c] = (float) (Math.sqrt(gx * gx + gy * gy) / 4);
            }
        }
        return out;
    }

    /** The grid edges {@code [i0, j0, i1, j1, ...]} in {@link org.structlr.graph.Grids#grid} order. */
    public static int[] gridEdges(int height, int width) {
        int ne = numEdges(height, width);
        int[] edges = new int[2 * ne];
        int e = 0;
        for (int r = 0; r < height; r++) {
            for (int c = 0; c + 1 < width; c++, e++) {
                edges[2 * e] = r * width + c;
                edges[2 * e + 1] = r * width + c + 1;
            }
        }
        for (int r = 0; r + 1 < height; r++) {
            for (int c = 0; c < width; c++, e++) {
                edges[2 * e] = r * width + c;
                edges[2 * e + 1] = (r + 1) * width + c;
            }
        }
        return edges;
    }

    /** Edge types in {@link #gridEdges} order: 0 = horizontal, 1 = vertical. */
    public static int[] gridEdgeTypes(int height, int width) {
        int nh = height * (width - 1);
        int[] t = new int[numEdges(height, width)];
        for (int e = nh; e < t.length; e++) t[e] = 1;
        return t;
    }

    public static int numEdges(int height, int width) {
        return height * (width - 1) + (height - 1) * width;
    }

    /** The 3 features of every grid edge, row-major {@code [E, 3]} in {@link #gridEdges} order. */
    public static float[] pairwise(int height, int width, float[] rgb) {
        check(height, width, rgb);
        int[] edges = gridEdges(height, width);
        float[] sob = sobel(height, width, rgb);
        int ne = edges.length / 2;
        float[] out = new float[ne * PAIR_DIM];
        for (int e = 0; e < ne; e++) {
            int i = edges[2 * e], j = edges[2 * e + 1];
            double d2 = 0;
            for (int ch = 0; ch < 3; ch++) {
                double d = rgb[3 * i + ch] - rgb[3 * j + ch];
                d2 += d * d;
            }
            out[PAIR_DIM * e] = 1f;
            out[PAIR_DIM * e + 1] = (float) Math.sqrt(d2);
            out[PAIR_DIM * e + 2] = (sob[i] + sob[j]) / 2;
        }
        return out;
    }

    /**
     * The example of one labelled image: unary features from {@code unary}, the 3 edge features
     * above, labels (void allowed), {@code num_labels}, shape [H, W] and edge types (0 horizontal,
     * 1 vertical).
     */
    public static Example example(LabelledImage img, UnaryFeatures unary, int numLabels) {
        int h = img.height(), w = img.width();
        float[] u = unary.compute(h, w, img.rgb());
        return Example.builder(u, unary.dim(), gridEdges(h, w), pairwise(h, w, img.rgb()), PAIR_DIM)
                .source(img.imageFile())
                .labels(img.labels())
                .numLabels(numLabels)
                .shape(h, w)
                .edgeType(gridEdgeTypes(h, w))
                .build();
    }

    @Override
    public String toString() {
        return "handmade(42: 1, RGB, position, HOG 2x2 cells of " + cell + " px x 9 bins)";
    }
}
