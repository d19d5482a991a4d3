package org.structlr.data;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * The synthetic binary denoising data of the paper (docs/design.md §1), deterministic for a seed.
 *
 * <p>Per image of H x W pixels:
 * <ol>
 *   <li>every pixel is drawn uniformly from [0, 1];</li>
 *   <li>the image is blurred with a Gaussian of standard deviation {@code sigma} (10 by default):
 *       a separable filter (rows, then columns) whose kernel is truncated at 3 sigma and normalised
 *       to sum 1. Boundary handling: <em>reflect</em> about the pixel edge
 *       ({@code d c b a | a b c d | d c b a}, SciPy's "reflect"), repeated as often as needed, so
 *       images smaller than the kernel work too and no pixel is darkened by zero padding;</li>
 *   <li>labels: y = 1 for the pixels above the blurred image's own median, else 0. Why the median:
 *       the blur averages the equivalent of 4 pi sigma^2 (about 1,250) uniform values, so
 *       every blurred value is very close to 0.5 (standard deviation about 0.008), so a fixed threshold of 0.5 can give an image of one label, or
 *       nearly so; the median always splits the image into two halves (exactly floor(V/2) ones,
 *       ties broken by pixel index) while keeping the smooth blob shapes of the blur;</li>
 *   <li>unary feature phi_i: y_i = 0 gives U[0, 0.9], y_i = 1 gives U[0.1, 1] (means 0.45 and 0.55);</li>
 *   <li>edge feature phi_ij: y_i == y_j gives U[0, 0.8], else U[0.2, 1];</li>
 *   <li>a constant 1 is added to both: unary rows are [1, phi_i] ({@code [V, 2]}), pairwise rows
 *       [1, phi_ij] ({@code [E, 2]}).</li>
 * </ol>
 * Edges are the 4-connected grid in {@link org.structlr.graph.Grids#grid} order (horizontal edges
 * row-major, then vertical edges row-major); with edge types, horizontal edges have type 0 and
 * vertical edges type 1. Every example carries {@code shape = [H, W]} and {@code num_labels = 2}.
 *
 * <p>Randomness: one {@link SplittableRandom} seeded with the seed; each image (training images
 * first, then test images) uses its own {@code split()} of it, so the training images do not
 * depend on how many test images are asked for.
 */
public final class DenoisingGenerator {
    /** The paper's image side (100 x 100). */
    public static final int DEFAULT_SIZE = 100;
    /** The paper's blur standard deviation. */
    public static final double DEFAULT_SIGMA = 10.0;

    private final double sigma;
    private final boolean edgeTypes;

    /** The paper's setting: sigma 10, horizontal and vertical edge types. */
    public DenoisingGenerator() {
        this(DEFAULT_SIGMA, true);
    }

    /**
     * @param sigma     blur standard deviation in pixels (positive)
     * @param edgeTypes whether to write {@code edge_type} (0 horizontal, 1 vertical); without it all
     *                  edges share one pairwise type
     */
    public DenoisingGenerator(double sigma, boolean edgeTypes) {
        if (!(sigma > 0) || Double.isInfinite(sigma)) throw new IllegalArgumentException("sigma must be positive and finite, got " + sigma);
        this.sigma = sigma;
        this.edgeTypes = edgeTypes;
    }

    /** {@code nTrain} training and {@code nTest} test images of the paper's 100 x 100 size. */
    public Dataset generate(int nTrain, int nTest, long seed) {
        return generate(nTrain, nTest, DEFAULT_SIZE, DEFAULT_SIZE, seed);
    }

    /** {@code nTrain} training and {@code nTest} test images of {@code h x w} pixels. */
    public Dataset generate(int nTrain, int nTest, int h, int w, long seed) {
        if (nTrain < 1 || nTest < 0) throw new IllegalArgumentException("need nTrain >= 1 and nTest >= 0, got " + nTrain + ", " + nTest);
        if (h < 1 || w < 1 || (long) h * w < 2) throw new IllegalArgumentException("an image needs at least 2 pixels, got " + h + "x" + w);
        SplittableRandom root = new SplittableRandom(seed);
        List<Example> train = new ArrayList<>(nTrain), test = new ArrayList<>(nTest);
        for (int k = 0; k < nTrain; k++) train.add(image(h, w, root.split()));
        for (int k = 0; k < nTest; k++) test.add(image(h, w, root.split()));
        return Dataset.of(train, test, List.of());
    }

    /** Generates a data set and writes it as a folder ({@code dir/train/000.npz, ...}). */
    public Dataset generateTo(Path dir, int nTrain, int nTest, int h, int w, long seed) throws IOException {
        Dataset d = generate(nTrain, nTest, h, w, seed);
        d.write(dir);
        return d;
    }

    /** One image drawn with {@code rng}. */
    public Example image(int h, int w, SplittableRandom rng) {
        int v = h * w;
        double[] noise = new double[v];
        for (int i = 0; i < v; i++) noise[i] = rng.nextDouble();
        int[] y = aboveMedian(blur(noise, h, w, sigma));

        float[] unary = new float[2 * v];
        for (int i = 0; i < v; i++) {
            unary[2 * i] = 1f;
            unary[2 * i + 1] = (float) (y[i] == 0 ? 0.9 * rng.nextDouble() : 0.1 + 0.9 * rng.nextDouble());
        }
        int ne = h * (w - 1) + (h - 1) * w;
        int[] edges = new int[2 * ne], type = new int[ne];
        int e = 0;
        for (int r = 0; r < h; r++) {
            for (int c = 0; c + 1 < w; c++, e++) {
                edges[2 * e] = r * w + c;
                edges[2 * e + 1] = r * w + c + 1;
            }
        }
        for (int r = 0; r + 1 < h; r++) {
            for (int c = 0; c < w; c++, e++) {
                edges[2 * e] = r * w + c;
                edges[2 * e + 1] = (r + 1) * w + c;
                type[e] = 1;
            }
        }
        float[] pair = new float[2 * ne];
        for (e = 0; e < ne; e++) {
            boolean same = y[edges[2 * e]] == y[edges[2 * e + 1]];
            pair[2 * e] = 1f;
            pair[2 * e + 1] = (float) (same ? 0.8 * rng.nextDouble() : 0.2 + 0.8 * rng.nextDouble());
        }
        Example.Builder b = Example.builder(unary, 2, edges, pair, 2).labels(y).numLabels(2).shape(h, w);
        if (edgeTypes) b.edgeType(type);
        return b.build();
    }

    /**
     * Separable Gaussian blur of a row-major {@code h x w} image, kernel truncated at 3 sigma and
     * normalised, reflect boundary (see the class comment).
     */
    static double[] blur(double[] img, int h, int w, double sigma) {
        int radius = (int) Math.ceil(3 * sigma);
        double[] k = new double[2 * radius + 1];
        double sum = 0;
        for (int d = -radius; d <= radius; d++) {
            k[d + radius] = Math.exp(-0.5 * d * d / (sigma * sigma));
            sum += k[d + radius];
        }
        for (int i = 0; i < k.length; i++) k[i] /= sum;

        double[] tmp = new double[h * w];
        double[] line = new double[Math.max(h, w) + 2 * radius];
        for (int r = 0; r < h; r++) { // along rows: pad the row by reflection, then convolve
            for (int c = -radius; c < w + radius; c++) line[c + radius] = img[r * w + reflect(c, w)];
            for (int c = 0; c < w; c++) {
                double s = 0;
                for (int t = 0; t < k.length; t++) s += k[t] * line[c + t];
                tmp[r * w + c] = s;
            }
        }
        double[] out = new double[h * w];
        for (int c = 0; c < w; c++) { // along columns
            for (int r = -radius; r < h + radius; r++) line[r + radius] = tmp[reflect(r, h) * w + c];
            for (int r = 0; r < h; r++) {
                double s = 0;
                for (int t = 0; t < k.length; t++) s += k[t] * line[r + t];
                out[r * w + c] = s;
            }
        }
        return out;
    }

    /** Index {@code i} folded into 0..n-1 by reflection about the pixel edges (period 2n). */
    static int reflect(int i, int n) {
        int m = Math.floorMod(i, 2 * n);
        return m < n ? m : 2 * n - 1 - m;
    }

    /**
     * 1 for the values above the median, else 0: the floor(V/2) largest values (ties broken by
     * index, the later index counting as larger) get label 1.
     */
    static int[] aboveMedian(double[] values) {
        int n = values.length;
        int[] y = new int[n];
        if (n < 2) return y;
        double[] sorted = values.clone();
        java.util.Arrays.sort(sorted);
        double lowerTop = sorted[n - n / 2 - 1], upperBottom = sorted[n - n / 2];
        if (lowerTop < upperBottom) { // the usual case: no tie at the median
            for (int i = 0; i < n; i++) y[i] = values[i] > lowerTop ? 1 : 0;
            return y;
        }
        Integer[] order = new Integer[n];
        for (int i = 0; i < n; i++) order[i] = i;
        java.util.Arrays.sort(order, (a, b) -> {
            int c = Double.compare(values[a], values[b]);
            return c != 0 ? c : Integer.compare(a, b);
        });
        for (int r = n - n / 2; r < n; r++) y[order[r]] = 1;
        return y;
    }
}
