package org.structlr.oracle;

import java.util.Arrays;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;

/**
 * What each row of a {@link BiasedLogisticProblem} is fitted to: a label (the usual case) or a
 * distribution t_n over the C classes (soft targets, e.g. a partially labelled variable's clamped
 * marginals), and a row weight w_n >= 0 (class or example weights; 1 by default). The loss
 * ({@link BiasedLogisticLoss}) sees one target row per problem row,
 * <pre>
 *   T_n = w_n t_n,   t_n = onehot(y_n) for a label,   sum_c t_nc = 1,
 * </pre>
 * so a row of weight k counts exactly like k copies of it, and a one-hot soft target like its label.
 * The arrays are kept, not copied (problems are made per fit from large label arrays): do not
 * modify them afterwards.
 */
public final class RowTargets {

    /** How far a soft target row's sum may be from 1. */
    public static final double SUM_TOLERANCE = 1e-6;

    private final int numRows;
    private final int numClasses;
    private final int[] labels;      // hard labels, or null for soft targets
    private final double[] soft;     // [N * C] row distributions, or null for labels
    private final double[] weights;  // null: every row has weight 1
    private final double totalWeight;

    private RowTargets(int numRows, int numClasses, int[] labels, double[] soft, double[] weights) {
        this.numRows = numRows;
        this.numClasses = numClasses;
        this.labels = labels;
        this.soft = soft;
        this.weights = weights;
        double total = numRows;
        if (weights != null) {
            total = 0;
            for (double w : weights) total += w;
        }
        this.totalWeight = total;
    }

    /**
     * Hard labels {@code y} in {@code 0..numClasses-1}, every row of weight 1.
     *
     * @throws IllegalArgumentException naming the first row whose label is out of range
     */
    public static RowTargets labels(int[] y, int numClasses) {
        if (numClasses < 1) throw new IllegalArgumentException("targets: number of classes must be >= 1, got " + numClasses);
        for (int i = 0; i < y.length; i++) {
            if (y[i] < 0 || y[i] >= numClasses) {
                throw new IllegalArgumentException("label " + y[i] + " at row " + i + " is outside 0.." + (numClasses - 1));
            }
        }
        return new RowTargets(y.length, numClasses, y, null, null);
    }

    /**
     * Soft targets: row n's distribution over the classes at {@code t[n * C .. n * C + C)},
     * non-negative and summing to 1 (within {@value #SUM_TOLERANCE}); every row of weight 1.
     *
     * @throws IllegalArgumentException naming the first bad row
     */
    public static RowTargets soft(double[] t, int numClasses) {
        if (numClasses < 1) throw new IllegalArgumentException("targets: number of classes must be >= 1, got " + numClasses);
        if (t.length % numClasses != 0) {
            throw new IllegalArgumentException("soft targets: " + t.length + " values are not rows of " + numClasses + " classes");
        }
        int n = t.length / numClasses;
        for (int i = 0; i < n; i++) {
            double sum = 0;
            for (int k = 0; k < numClasses; k++) {
                double v = t[i * numClasses + k];
                if (!(v >= 0) || !Double.isFinite(v)) {
                    throw new IllegalArgumentException("soft target " + v + " at row " + i + ", class " + k + " is not a probability");
                }
                sum += v;
            }
            if (!(Math.abs(sum - 1) <= SUM_TOLERANCE)) {
                throw new IllegalArgumentException("soft targets of row " + i + " sum to " + sum + ", not 1");
            }
        }
        return new RowTargets(n, numClasses, null, t, null);
    }

    /**
     * These targets with row weights {@code w} (finite, >= 0; one per row).
     *
     * @throws IllegalArgumentException for a wrong length or the first bad weight
     */
    public RowTargets withWeights(double[] w) {
        if (w.length != numRows) throw new IllegalArgumentException("weights: " + w.length + " for " + numRows + " rows");
        for (int i = 0; i < w.length; i++) {
            if (!(w[i] >= 0) || !Double.isFinite(w[i])) throw new IllegalArgumentException("weight " + w[i] + " at row " + i + " is not finite and >= 0");
        }
        return new RowTargets(numRows, numClasses, labels, soft, w);
    }

    public int numRows() {
        return numRows;
    }

    public int numClasses() {
        return numClasses;
    }

    /** Whether every row has a label (else every row has a distribution). */
    public boolean hard() {
        return labels != null;
    }

    /** Whether some row may have a weight other than 1. */
    public boolean weighted() {
        return weights != null;
    }

    /** Row i's label (hard targets), or -1 (soft targets). */
    public int label(int i) {
        return labels != null ? labels[i] : -1;
    }

    /**
     * The labels (not a copy: do not modify), or for soft targets each row's most likely class (the
     * first of equals): for what needs one class per row (a data matrix's label field, a figure).
     */
    public int[] labels() {
        if (labels != null) return labels;
        int[] out = new int[numRows];
        for (int i = 0; i < numRows; i++) {
            int best = 0;
            for (int k = 1; k < numClasses; k++) if (soft[i * numClasses + k] > soft[i * numClasses + best]) best = k;
            out[i] = best;
        }
        return out;
    }

    /** Row i's weight w_i (1 unless weighted). */
    public double weight(int i) {
        return weights == null ? 1 : weights[i];
    }

    /** The sum of the row weights: the number of rows unless weighted (the count a mean divides by). */
    public double totalWeight() {
        return totalWeight;
    }

    /** T_ic = w_i t_ic. */
    public double target(int i, int c) {
        double t = labels != null ? (labels[i] == c ? 1 : 0) : soft[i * numClasses + c];
        return weights == null ? t : weights[i] * t;
    }

    /** The target rows {@code T [N, C]} in data type {@code dt} (one-hot rows for unweighted labels). */
    public INDArray matrix(DataType dt) {
        double[] flat = new double[numRows * numClasses];
        for (int i = 0; i < numRows; i++) for (int k = 0; k < numClasses; k++) flat[i * numClasses + k] = target(i, k);
        return Nd4j.create(flat, new long[]{numRows, numClasses}, 'c').castTo(dt);
    }

    @Override
    public String toString() {
        return "RowTargets[N=" + numRows + ", C=" + numClasses + (labels != null ? ", labels" : ", soft") + (weights != null ? ", weighted" : "")
                + "]";
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof RowTargets t && numClasses == t.numClasses && Arrays.equals(labels, t.labels) && Arrays.equals(soft, t.soft)
                && Arrays.equals(weights, t.weights);
    }

    @Override
    public int hashCode() {
        return 31 * (31 * Arrays.hashCode(labels) + Arrays.hashCode(soft)) + Arrays.hashCode(weights);
    }
}
