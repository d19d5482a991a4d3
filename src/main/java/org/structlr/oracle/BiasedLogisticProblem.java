package org.structlr.oracle;


import java.util.Arrays;

import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.api.ops.executioner.OpExecutioner;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.indexing.BooleanIndexing;
import org.nd4j.linalg.indexing.conditions.Conditions;
import org.structlr.memory.RowGather;

/**
 * One oracle step (docs/design.md §1): a C-class logistic regression with a per-example bias,
 * <pre>
 *   maximise over g:  sum_n [ g(x_n, y_n) + b_n(y_n) - lse_c( g(x_n, c) + b_n(c) ) ]
 * </pre>
 * Rows are the factors of one type in every example: features {@code X [N, D]}, true labels
 * {@code y [N]} in {@code 0..C-1}, bias {@code B [N, C]} already in units of g (b = c / eps).
 * More generally each row has {@link RowTargets}: a label or a distribution over the classes, and a
 * weight; {@link BiasedLogisticLoss} is the loss of both.
 *
 * <p>Immutable by convention: the arrays are kept, not copied; do not modify them afterwards (the
 * boosting oracle caches a native copy of the features keyed on their content). The bias is stored
 * in the features' data type (FLOAT or DOUBLE).
 */
public final class BiasedLogisticProblem {

    private final INDArray features;
    private final RowTargets targets;
    private final INDArray bias;
    private final int numClasses;
    private INDArray targetMatrix;   // lazily built, features' data type
    private ImageRows images;  // where the rows sit in whole images, or null (fcn: see withImages)
    private RowGather imageRowGather;   // images' rows when not in order, lazily built: the loss reads them at every try

    /**
     * @throws IllegalArgumentException naming the problem: wrong rank or shape, a label outside
     *         {@code 0..C-1}, a NaN or infinite feature or bias, a data type other than FLOAT/DOUBLE.
     */
    public BiasedLogisticProblem(INDArray features, int[] labels, INDArray bias, int numClasses) {
        this(features, labels == null ? null : hard(labels, numClasses, features), bias, numClasses);
    }

    /**
     * A problem whose rows have {@code targets} (labels or distributions, and weights).
     *
     * @throws IllegalArgumentException as {@link #BiasedLogisticProblem(INDArray, int[], INDArray, int)}
     */
    public BiasedLogisticProblem(INDArray features, RowTargets targets, INDArray bias) {
        this(features, targets, bias, targets == null ? 0 : targets.numClasses());
    }

    /** The labels as targets, refused with the problem's wording; the row count is checked first. */
    private static RowTargets hard(int[] labels, int numClasses, INDArray features) {
        if (features != null && features.rank() == 2 && labels.length != features.size(0)) {
            throw new IllegalArgumentException("biased logistic problem: " + labels.length + " labels for " + features.size(0)
                    + " feature rows");
        }
        if (numClasses < 1) return null;   // refused below with the problem's message
        try {
            return RowTargets.labels(labels, numClasses);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("biased logistic problem: " + e.getMessage());
        }
    }

    private BiasedLogisticProblem(INDArray features, RowTargets targets, INDArray bias, int numClasses) {
        if (numClasses < 1) {
            throw new IllegalArgumentException("biased logistic problem: number of classes must be >= 1, got " + numClasses);
        }
        if (features == null || targets == null || bias == null) {
            throw new IllegalArgumentException("biased logistic problem: features, labels and bias are required");
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
        if (targets.numRows() != n) {
            throw new IllegalArgumentException("biased logistic problem: " + targets.numRows() + " labels for " + n
                    + " feature rows");
        }
        if (bias.rank() != 2 || bias.size(0) != n || bias.size(1) != numClasses) {
            throw new IllegalArgumentException("biased logistic problem: bias must be [N, C] = [" + n + ", " + numClasses
                    + "], got " + Arrays.toString(bias.shape()));
        }
        if (!bias.dataType().isFPType()) {
            throw new IllegalArgumentException("biased logistic problem: bias must be floating point, got " + bias.dataType());
        }
        checkFinite("features", features);
        INDArray b = bias.dataType() == dt ? bias : bias.castTo(dt);
        checkFinite("bias", b);
        this.features = features;
        this.targets = targets;
        this.bias = b;
        this.numClasses = numClasses;
    }

    private static void checkFinite(String what, INDArray a) {
        if (!finite(a, Nd4j.getExecutioner().type() == OpExecutioner.ExecutionerType.CUDA)) {
            throw new IllegalArgumentException("biased logistic problem: " + what + " contain NaN or infinite values");
        }
    }

    /**
     * Whether every entry is finite; the learner builds a problem per fit, so where the array lives
     * decides how. On a GPU ({@code onDevice}): two match-condition reductions on the device, a
     * boolean each to the host and no copy of the array. On the CPU: a plain loop over one flat
     * copy, which is faster there (a 160,000 x 42 float array, one thread, load 22: 42 ms against
     * 128 ms for the two reductions; ND4J's isNaN / isInfinite masks were slower still, 25-130 ms
     * per 160,000-row problem).
     */
    static boolean finite(INDArray a, boolean onDevice) {
        if (a.isEmpty()) return true;
        if (onDevice) return !BooleanIndexing.or(a, Conditions.isNan()) && !BooleanIndexing.or(a, Conditions.isInfinite());
        INDArray c = a.ordering() != 'c' || a.isView() || a.data().length() != a.length() ? a.dup('c') : a;
        boolean finite = true;
        if (c.dataType() == DataType.FLOAT) {
            for (float v : c.data().asFloat()) finite &= Float.isFinite(v);
        } else {
            for (double v : c.data().asDouble()) finite &= Double.isFinite(v);
        }
        return finite;
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
        BiasedLogisticProblem p = new BiasedLogisticProblem(features, targets, bias, numClasses, true);
        p.images = images;
        return p;
    }

    /**
     * The same problem (sharing its features, bias and images) with other targets for its rows, e.g.
     * weighted ones ({@code targets().withWeights(w)}).
     *
     * @throws IllegalArgumentException when {@code targets} has another row or class count
     */
    public BiasedLogisticProblem withTargets(RowTargets targets) {
        if (targets.numRows() != numRows() || targets.numClasses() != numClasses) {
            throw new IllegalArgumentException("biased logistic problem: targets for " + targets.numRows() + " rows of " + targets.numClasses()
                    + " classes, the problem has " + numRows() + " of " + numClasses);
        }
        BiasedLogisticProblem p = new BiasedLogisticProblem(features, targets, bias, numClasses, true);
        p.images = images;
        return p;
    }

    /** Where the rows sit in whole images, or null when the examples are not a grid batch. */
    public ImageRows images() {
        return images;
    }

    /** A copy sharing the checked arrays (no re-check). */
    private BiasedLogisticProblem(INDArray features, RowTargets targets, INDArray bias, int numClasses, boolean checked) {
        this.features = features;
        this.targets = targets;
        this.bias = bias;
        this.numClasses = numClasses;
    }

    public INDArray features() {
        return features;
    }

    /**
     * The labels array itself (not a copy): do not modify. For soft targets each row's most likely
     * class ({@link RowTargets#labels()}); oracles that fit the loss read {@link #targets()}.
     */
    public int[] labels() {
        return targets.labels();
    }

    /** What every row is fitted to: labels or distributions, and weights. */
    public RowTargets targets() {
        return targets;
    }

    /** The sum of the rows' weights (the number of rows unless weighted). */
    public double totalWeight() {
        return targets.totalWeight();
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

    /**
     * The target rows {@code T [N, C]} ({@link RowTargets#matrix}: one-hot labels unless weighted or
     * soft) in the features' data type (built once).
     */
    public synchronized INDArray targetMatrix() {
        if (targetMatrix == null) targetMatrix = targets.matrix(dataType());
        return targetMatrix;
    }

    /**
     * The negative objective, {@code sum_n [ lse_c(s_nc + b_nc) - s_{n,y_n} - b_{n,y_n} ]} (weighted,
     * with soft targets: {@code - sum_nc T_nc logsoftmax(s_n + b_n)_c}, {@link BiasedLogisticLoss}),
     * in double precision, for scores {@code s = g(X) [N, C]}. Never negative; 0 only for a perfect
     * fit. Computed with ND4J ops where the scores and bias are (on a GPU: on the device; one scalar
     * to the host), against {@link #targetMatrix()} (exact for labels; weighted or soft targets of a
     * float problem are its float targets); equals the rows' {@link BiasedLogisticLoss#row} summed
     * in Java to double rounding.
     */
    public double loss(INDArray scores) {
        if (scores.rank() != 2 || scores.size(0) != numRows() || scores.size(1) != numClasses) {
            throw new IllegalArgumentException("scores must be [" + numRows() + ", " + numClasses + "], got "
                    + Arrays.toString(scores.shape()));
        }
        INDArray z = scores.castTo(DataType.DOUBLE).add(bias.castTo(DataType.DOUBLE));
        return BiasedLogisticLoss.lossColumn(z, targetMatrix()).sumNumber().doubleValue();
    }

    /**
     * {@link #loss(INDArray)} of {@code f.scores(features())}; {@code f == null} means g = 0. An
     * {@link ImageScoreFunction} scores the whole images of {@link #images()} and keeps this problem's rows.
     */
    public double loss(ScoreFunction f) {
        if (f == null) return loss(Nd4j.zeros(dataType(), numRows(), numClasses));
        if (f instanceof ImageScoreFunction isf && images != null) {
            INDArray all = isf.imageScores(images.pixelFeatures().castTo(dataType()), images.layout());
            return loss(ImageRows.inOrder(images.rows(), all.size(0)) ? all : imageRowGather().from(all));
        }
        return loss(f.scores(features));
    }

    /** This problem's rows of whole-image scores (made once per problem: on CUDA its index array goes to the device once). */
    private synchronized RowGather imageRowGather() {
        if (imageRowGather == null) imageRowGather = RowGather.of(images.rows());
        return imageRowGather;
    }

    /** The loss divided by the total weight of the rows (their number unless weighted). */
    public double meanLoss(ScoreFunction f) {
        return loss(f) / totalWeight();
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
        return "BiasedLogisticProblem[N=" + numRows() + ", D=" + numFeatures() + ", C=" + numClasses + ", " + dataType()
                + (targets.hard() ? "" : ", soft targets") + (targets.weighted() ? ", weighted" : "") + "]";
    }
}
