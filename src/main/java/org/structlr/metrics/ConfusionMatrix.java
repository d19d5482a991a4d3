package org.structlr.metrics;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.structlr.data.ClassTable;
import org.structlr.data.Example;

/**
 * Counts C[t][p] of labelled variables with true label t predicted as p, void variables
 * ({@link Example#VOID}) left out, and the metrics computed from them (see the package comment).
 * Mutable: {@link #add} accumulates over examples and splits; not thread-safe.
 */
public final class ConfusionMatrix {
    private final int numLabels;
    private final long[] counts;   // [t * L + p]

    public ConfusionMatrix(int numLabels) {
        if (numLabels < 1) throw new IllegalArgumentException("a confusion matrix needs at least one label, got " + numLabels);
        this.numLabels = numLabels;
        this.counts = new long[numLabels * numLabels];
    }

    /** The matrix with counts {@code rows[t][p]} (as {@link #toMap} writes them under "confusion"). */
    public static ConfusionMatrix fromCounts(long[][] rows) {
        ConfusionMatrix m = new ConfusionMatrix(rows.length);
        for (int t = 0; t < rows.length; t++) {
            if (rows[t].length != rows.length) throw new IllegalArgumentException("confusion row " + t + " has " + rows[t].length + " counts, not " + rows.length);
            for (int p = 0; p < rows.length; p++) {
                if (rows[t][p] < 0) throw new IllegalArgumentException("confusion count " + rows[t][p] + " at (" + t + ", " + p + ") is negative");
                m.counts[t * m.numLabels + p] = rows[t][p];
            }
        }
        return m;
    }

    /** The matrix of one labelling: {@code truth} (void allowed) against {@code predicted}. */
    public static ConfusionMatrix of(int[] truth, int[] predicted, int numLabels) {
        ConfusionMatrix m = new ConfusionMatrix(numLabels);
        m.add(truth, predicted);
        return m;
    }

    /**
     * Adds every variable whose true label is not void.
     *
     * @throws IllegalArgumentException when the lengths differ or a label is out of range
     */
    public ConfusionMatrix add(int[] truth, int[] predicted) {
        if (truth.length != predicted.length) throw new IllegalArgumentException(truth.length + " true labels but " + predicted.length + " predicted");
        for (int i = 0; i < truth.length; i++) add(truth[i], predicted[i]);
        return this;
    }

    /** Adds one variable; a void truth adds nothing. */
    public ConfusionMatrix add(int truth, int predicted) {
        if (truth == Example.VOID) return this;
        if (truth < 0 || truth >= numLabels) throw new IllegalArgumentException("true label " + truth + " outside 0.." + (numLabels - 1));
        if (predicted < 0 || predicted >= numLabels) throw new IllegalArgumentException("predicted label " + predicted + " outside 0.." + (numLabels - 1));
        counts[truth * numLabels + predicted]++;
        return this;
    }

    /** Adds the counts of another matrix of the same size. */
    public ConfusionMatrix add(ConfusionMatrix other) {
        if (other.numLabels != numLabels) throw new IllegalArgumentException(other.numLabels + " labels added to " + numLabels);
        for (int k = 0; k < counts.length; k++) counts[k] += other.counts[k];
        return this;
    }

    public int numLabels() { return numLabels; }

    /** C[t][p]. */
    public long count(int truth, int predicted) { return counts[truth * numLabels + predicted]; }

    /** The labelled variables counted. */
    public long total() {
        long n = 0;
        for (long c : counts) n += c;
        return n;
    }

    /** The variables labelled {@code c} (row sum). */
    public long truthCount(int c) {
        long n = 0;
        for (int p = 0; p < numLabels; p++) n += count(c, p);
        return n;
    }

    /** The variables predicted {@code c} (column sum, labelled variables only). */
    public long predictedCount(int c) {
        long n = 0;
        for (int t = 0; t < numLabels; t++) n += count(t, c);
        return n;
    }

    /** sum_c C[c][c] / sum C; NaN when nothing is labelled. */
    public double pixelAccuracy() {
        long right = 0;
        for (int c = 0; c < numLabels; c++) right += count(c, c);
        long n = total();
        return n == 0 ? Double.NaN : (double) right / n;
    }

    /** 1 - {@link #pixelAccuracy}: the per-variable error over labelled variables. */
    public double error() {
        return 1 - pixelAccuracy();
    }

    /** IoU_c = C[c][c] / (row_c + column_c - C[c][c]); NaN when class c is neither true nor predicted anywhere. */
    public double iou(int c) {
        long union = truthCount(c) + predictedCount(c) - count(c, c);
        return union == 0 ? Double.NaN : (double) count(c, c) / union;
    }

    /** The mean of the defined per-class IoUs (NaN when none is). */
    public double meanIou() {
        double sum = 0;
        int n = 0;
        for (int c = 0; c < numLabels; c++) {
            double v = iou(c);
            if (!Double.isNaN(v)) {
                sum += v;
                n++;
            }
        }
        return n == 0 ? Double.NaN : sum / n;
    }

    /** Recall of class c, C[c][c] / row_c; NaN when no variable is labelled c. */
    public double classAccuracy(int c) {
        long row = truthCount(c);
        return row == 0 ? Double.NaN : (double) count(c, c) / row;
    }

    /**
     * Everything as JSON-ready maps, classes named by {@code classes}: pixel_accuracy, mean_iou,
     * per_class (name, index, iou, accuracy, pixels), confusion (rows = truth, columns =
     * prediction), labelled_pixels. Undefined values are null.
     */
    public Map<String, Object> toMap(ClassTable classes) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("pixel_accuracy", finite(pixelAccuracy()));
        m.put("mean_iou", finite(meanIou()));
        m.put("labelled_pixels", total());
        List<Object> per = new ArrayList<>();
        for (int c = 0; c < numLabels; c++) {
            Map<String, Object> e = new LinkedHashMap<>();
            e.put("index", c);
            e.put("name", classes.name(c));
            e.put("iou", finite(iou(c)));
            e.put("accuracy", finite(classAccuracy(c)));
            e.put("pixels", truthCount(c));
            per.add(e);
        }
        m.put("per_class", per);
        List<List<Long>> rows = new ArrayList<>();
        for (int t = 0; t < numLabels; t++) {
            List<Long> r = new ArrayList<>();
            for (int p = 0; p < numLabels; p++) r.add(count(t, p));
            rows.add(r);
        }
        m.put("confusion", rows);
        m.put("confusion_axes", "rows: true class, columns: predicted class, void pixels left out");
        return m;
    }

    private static Double finite(double v) {
        return Double.isFinite(v) ? v : null;
    }

    @Override
    public String toString() {
        return String.format(java.util.Locale.ROOT, "pixel accuracy %.4f, mean IoU %.4f (%d labelled)", pixelAccuracy(), meanIou(), total());
    }
}
