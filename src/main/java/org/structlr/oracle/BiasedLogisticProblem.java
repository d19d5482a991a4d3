package org.structlr.oracle;


import java.util.Arrays;

import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;

/**
 * One oracle step (docs/design.md §1): a C-class logistic regression with a per-example bias,
 * <pre>
 *   maximise over g:  sum_n [ g(x_n, y_n) + b_n(y_n) - lse_c( g(x_n, c) + b_n(c) ) ]
 * </pre>
 * Rows are the factors of one type in every example: features {@code X [N, D]}, true labels
 * {@code y [N]} in {@code 0..C-1}, bias {@code B [N, C]} already in units of g (b = c / eps).
 *
 * <p>Immutable by convention: the arrays are kept, not copied; do not modify them afterwards (the
 * boosting oracle caches a native copy of the features keyed on their content). The bias is stored
 * in the features' data type (FLOAT or DOUBLE).
 */
public final class BiasedLogisticProblem {

    private final INDArray features;
    private final int[] labels;
    private final INDArray bias;
    private final int numClasses;
    private INDArray oneHot;   // lazily built, features' data type
    private ImageRows images;  // where the rows sit in whole images, or null (fcn: see withImages)

    /**
     * @throws IllegalArgumentException naming the problem: wrong rank or shape, a label outside
     *         {@code 0..C-1}, a NaN or infinite feature or bias, a data type other than FLOAT/DOUBLE.
     */
    public BiasedLogisticProblem(INDArray features, int[] labels, INDArray bias, int numClasses) {
        if (features == null || labels == null || bias == null) {
            throw new IllegalArgumentException("biased logistic problem: features, labels and bias are required");
        }
        if (numClasses < 1) {
            throw new IllegalArgumentException("biased logistic problem: number of classes must be >= 1, got " + numClasses);
        }
        if (features.rank() != 2 || features.size(0) < 1 || features.size(1) < 1) {
            throw new IllegalArgumentException("biased logistic problem: features must be [N, D] with N, D >= 1, got "
                    + Arrays.toString(features.shape()));
        }
        DataType dt = features.dataType();
        if (dt != DataType.FLOAT && dt != DataType.DOUBLE) {
            throw new IllegalArgumentException("biased logistic problem: features must be FLOAT or DOUBLE, got " + dt);
        }
        long n = features.size(0);
        if (n > Integer.MAX_VALUE / Math.max(1, numClasses)) {
            throw new IllegalArgumentException("biased logistic problem: too many rows: " + n);
        }
        if (labels.length != n) {
            throw new IllegalArgumentException("biased logistic problem: " + labels.length + " labels for " + n
                    + " feature rows");
        }
        if (bias.rank() != 2 || bias.size(0) != n || bias.size(1) != numClasses) {
            throw new IllegalArgumentException("biased logistic problem: bias must be [N, C] = [" + n + ", " + numClasses
                    + "], got " + Arrays.toString(bias.shape()));
        }
        for (int i = 0; i < labels.length; i++) {
            if (labels[i] < 0 || labels[i] >= numClasses) {
                throw new IllegalArgumentException("biased logistic problem: label " + labels[i] + " at row " + i
                        + " is outside 0.." + (numClasses - 1));
            }
        }
        if (!bias.dataType().isFPType()) {
            throw new IllegalArgumentException("biased logistic problem: bias must be floating point, got " + bias.dataType());
        }
        checkFinite("features", features);
        INDArray b = bias.dataType() == dt ? bias : bias.castTo(dt);
        checkFinite("bias", b);
        this.features = features;
        this.labels = labels;
        this.bias = b;
        this.numClasses = numClasses;
    }

    /**
     * A plain loop over one flat copy: the learner builds a problem per fit, and ND4J's isNaN / isInfinite /
     * any allocate two mask arrays and run four ops each time (25-130 ms per 160,000-row problem measured
     * on the busy machine, more than a Newton pass over the rows).
     */
    private static void checkFinite(String what, INDArray a) {
        INDArray c = a.ordering() != 'c' || a.isView() || a.data().length() != a.length() ? a.dup('c') : a;
        boolean finite = true;
        if (c.dataType() == DataType.FLOAT) {
            for (float v : c.data().asFloat()) finite &= Float.isFinite(v);
        } else {
            for (double v : c.data().asDouble()) finite &= Double.isFinite(v);
        }
        if (!finite) throw new IllegalArgumentException("biased logistic problem: " + what + " contain NaN or infinite values");
    }

    /**
     * The same problem (sharing its arrays) with the rows placed in whole images, for image-aware
     * oracles (whole-image networks, {@code oracle.fcn}); {@code null} returns this problem unchanged. Other oracles ignore it.
     *
     * @throws IllegalArgumentException when {@code images} has not one row per problem row
     */
    public BiasedLogisticProblem withImages(ImageRows images) {
        if (images == null) return this;
        if (images.rows().length != numRows()) {
            throw new IllegalArgumentException("biased logistic problem: " + images.rows().length + " image rows for "
                    + numRows() + " problem rows");
        }
        BiasedLogisticProblem p = new BiasedLogisticProblem(features, labels, bias, numClasses, true);
        p.images = images;
        return p;
    }

    /** Where the rows sit in whole images, or null when the examples are not a grid batch. */
    public ImageRows images() {
        return images;
    }

    /** A copy sharing the checked arrays (no re-check). */
    private BiasedLogisticProblem(INDArray features, int[] labels, INDArray bias, int numClasses, boolean checked) {
        this.features = features;
        this.labels = labels;
        this.bias = bias;
        this.numClasses = numClasses;
    }

    public INDArray features() {
        return features;
    }

    /** The labels array itself (not a copy): do not modify. */
    public int[] labels() {
        return labels;
    }

    public INDArray bias() {
        return bias;
    }

    public int numClasses() {
        return numClasses;
    }

    public int numRows() {
        return (int) features.size(0);
    }

    public int numFeatures() {
        return (int) features.size(1);
    }

    public DataType dataType() {
        return features.dataType();
    }

    /** One-hot labels {@code [N, C]} in the features' data type (built once). */
    public synchronized INDArray oneHot() {
        if (oneHot == null) {
            int n = numRows();
            double[] flat = new double[n * numClasses];
            for (int i = 0; i < n; i++) flat[i * numClasses + labels[i]] = 1.0;
            oneHot = Nd4j.create(flat, new long[]{n, numClasses}, 'c').castTo(dataType());
        }
        return oneHot;
    }

    /**
     * The negative objective, {@code sum_n [ lse_c(s_nc + b_nc) - s_{n,y_n} - b_{n,y_n} ]}, in double
     * precision, for scores {@code s = g(X) [N, C]}. Never negative; 0 only for a perfect fit.
     */
    public double loss(INDArray scores) {
        if (scores.rank() != 2 || scores.size(0) != numRows() || scores.size(1) != numClasses) {
            throw new IllegalArgumentException("scores must be [" + numRows() + ", " + numClasses + "], got "
                    + Arrays.toString(scores.shape()));
        }
        double[] s = flatDouble(scores);
        double[] b = flatDouble(bias);
        int c = numClasses;
        double total = 0;
        for (int i = 0; i < labels.length; i++) {
            int o = i * c;
            double max = Double.NEGATIVE_INFINITY;
            for (int k = 0; k < c; k++) max = Math.max(max, s[o + k] + b[o + k]);
            double sum = 0;
            for (int k = 0; k < c; k++) sum += Math.exp(s[o + k] + b[o + k] - max);
            total += max + Math.log(sum) - s[o + labels[i]] - b[o + labels[i]];
        }
        return total;
    }

    /**
     * {@link #loss(INDArray)} of {@code f.scores(features())}; {@code f == null} means g = 0. An
     * {@link ImageScoreFunction} scores the whole images of {@link #images()} and keeps this problem's rows.
     */
    public double loss(ScoreFunction f) {
        if (f == null) return loss(Nd4j.zeros(dataType(), numRows(), numClasses));
        if (f instanceof ImageScoreFunction isf && images != null) {
            INDArray all = isf.imageScores(images.pixelFeatures().castTo(dataType()), images.layout());
            return loss(Nd4j.pullRows(all, 1, images.rows()));
        }
        return loss(f.scores(features));
    }

    /** The loss divided by the number of rows. */
    public double meanLoss(ScoreFunction f) {
        return loss(f) / numRows();
    }

    /** A row-major double copy of a 2-D array. */
    public static double[] flatDouble(INDArray a) {
        return a.castTo(DataType.DOUBLE).dup('c').data().asDouble();
    }

    /** A row-major float copy of a 2-D array. */
    public static float[] flatFloat(INDArray a) {
        return a.castTo(DataType.FLOAT).dup('c').data().asFloat();
    }

    @Override
    public String toString() {
        return "BiasedLogisticProblem[N=" + numRows() + ", D=" + numFeatures() + ", C=" + numClasses + ", " + dataType() + "]";
    }
}
