package org.structlr.model;

import java.util.List;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.structlr.oracle.ScoreFunction;

/**
 * The potentials and the loss of a batch (docs/design.md §1): theta_i(y) = eps g_unary(phi_i)[y],
 * theta_a(y_i, y_j) = eps g_t(a)(phi_a)[y_i L + y_j], the Hamming loss augmentation
 * Delta_i(y) = [y != y_i], and the per-variable error of decoded labels.
 */
public final class Potentials {
    private Potentials() {}

    /** [V, L] = eps * g_unary(features); zeros when the function is null (f = 0). */
    public static INDArray unary(ExampleBatch b, ScoreFunction unary, double eps) {
        if (unary == null) return Nd4j.zeros(DataType.FLOAT, b.graph().numVariables(), b.numLabels());
        return b.scoresOf(unary, b.unaryFeatures(), -1).castTo(DataType.FLOAT).muli(eps);
    }

    /** [E, L*L] = eps * g_t(features) for each edge's type t (null functions are 0), in edge order. */
    public static INDArray pairwise(ExampleBatch b, List<ScoreFunction> pair, double eps) {
        int ll = b.numLabels() * b.numLabels(), types = b.numPairTypes();
        if (types == 1) {
            ScoreFunction f = pair.get(0);
            return f == null ? Nd4j.zeros(DataType.FLOAT, b.graph().numEdges(), ll) : b.scoresOf(f, b.pairFeatures(0), 0).castTo(DataType.FLOAT).muli(eps);
        }
        // Type-ordered rows back to edge order with one row gather (once per oracle step, not in message passing;
        // its index array is the batch's, made once: on CUDA it stays on the device).
        INDArray[] parts = new INDArray[types];
        for (int t = 0; t < types; t++) {
            ScoreFunction f = pair.get(t);
            int rows = (int) b.pairFeatures(t).size(0);
            parts[t] = f == null || rows == 0 ? Nd4j.zeros(DataType.FLOAT, rows, ll)
                    : b.scoresOf(f, b.pairFeatures(t), t).castTo(DataType.FLOAT).muli(eps);
        }
        return b.edgeOrder().from(Nd4j.concat(0, parts));
    }

    /**
     * [totalRegionEntries] = eps * g_t(features of r) as region r's table, for each region's type t
     * (null functions are 0): the flat layout of {@link org.structlr.graph.FactorGraph#regionTableOffset}.
     * Empty when the batch has no regions.
     */
    public static INDArray regions(ExampleBatch b, List<ScoreFunction> regions, double eps) {
        org.structlr.graph.FactorGraph g = b.graph();
        float[] out = new float[g.totalRegionEntries()];
        int[][] byType = g.regionsByType();
        float e = (float) eps;
        for (int t = 0; t < byType.length; t++) {
            ScoreFunction f = regions.get(t);
            if (f == null || byType[t].length == 0) continue;
            float[] s = f.scores(b.regionFeatures(t)).castTo(DataType.FLOAT).dup('c').data().asFloat();
            int c = g.regionEntries(byType[t][0]);
            for (int k = 0; k < byType[t].length; k++) {
                int o = g.regionTableOffset(byType[t][k]);
                for (int y = 0; y < c; y++) out[o + y] = e * s[k * c + y];
            }
        }
        return Nd4j.create(out, new long[] {out.length}, 'c');
    }

    /**
     * [V, L] Hamming loss augmentation Delta_i(y) = [y != y_i]: 1 where y differs from the true
     * label; 0 everywhere for a void variable (in training it adds no term of its own).
     */
    public static INDArray hammingLoss(ExampleBatch b) {
        int[] labels = b.labels();
        int L = b.numLabels();
        float[] d = new float[labels.length * L];   // on the host, once per batch
        java.util.Arrays.fill(d, 1f);
        for (int v = 0; v < labels.length; v++) {
            if (labels[v] == org.structlr.data.Example.VOID) java.util.Arrays.fill(d, v * L, v * L + L, 0f);   // no term of its own
            else d[v * L + labels[v]] = 0f;
        }
        return Nd4j.create(d, new long[] {labels.length, L}, 'c');
    }

    /**
     * Fraction of the labelled variables whose decoded label differs from the truth (per-variable
     * Hamming error; void variables, {@link org.structlr.data.Example#VOID}, are not counted); NaN
     * when no variable is labelled.
     */
    public static double error(ExampleBatch b, int[] decoded) {
        long[] c = wrongAndLabelled(b, decoded);
        return c[1] == 0 ? Double.NaN : (double) c[0] / c[1];
    }

    /** {wrong labels, labelled variables} of decoded labels (void variables not counted): what {@link #error} divides. */
    public static long[] wrongAndLabelled(ExampleBatch b, int[] decoded) {
        int[] labels = b.labels();
        long wrong = 0, labelled = 0;
        for (int v = 0; v < labels.length; v++) {
            if (labels[v] == org.structlr.data.Example.VOID) continue;
            labelled++;
            if (decoded[v] != labels[v]) wrong++;
        }
        return new long[] {wrong, labelled};
    }
}
