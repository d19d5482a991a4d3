package org.structlr.learn;

import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.structlr.data.Example;
import org.structlr.memory.RowGather;
import org.structlr.model.ExampleBatch;
import org.structlr.oracle.BiasedLogisticProblem;
import org.structlr.oracle.ImageRows;

/**
 * Training with void labels ({@link Example#VOID}) in the simple form "a variable without a label
 * adds no term of its own" (issue 21 item 2): in training, a void variable's unary potential and
 * the potentials of the edges touching it are zero ({@link #maskUnary}, {@link #maskPair}), its
 * Hamming augmentation is zero ({@code Potentials.hammingLoss}), the true score F sums over
 * labelled variables and edges between labelled variables ({@link Targets#score}), and the oracles
 * fit only the rows of labelled variables and of edges whose two ends are labelled. So
 * <pre>
 *   R = sum_k [ A(lambda^k, theta^k with the void factors zero) - F_labelled(x^k, y^k) ]
 * </pre>
 * depends on neither a void variable's features nor its label, each oracle step is still the exact
 * minimiser of R over one type's function (the void rows are not in R), and R never rises with
 * exact oracles. In the smoothed dual a zero factor has free beliefs: it adds a constant and some
 * entropy at its labelled neighbours, not a loss. Prediction and evaluation use every potential.
 * Whole-image functions ({@code fcn}) still see void pixels as input (context), never as targets.
 *
 * <p>Without void labels every method returns its input (no copies: the same bits as before).
 * First written by the images engineer against the earlier learner; moved here with the loop.
 */
final class VoidRows {
    private final int numLabels;
    private final int[] labels;
    private final boolean any;
    private final int[] unaryRows;        // labelled variables
    private final int[][] pairRows;       // per type: positions (in the type's order) of edges with two labelled ends
    private final RowGather unaryGather;  // unaryRows and pairRows as row gathers, made once (on CUDA the indices stay on the device)
    private final RowGather[] pairGather;
    private final INDArray unaryMask;     // [V, 1]: 1 labelled, 0 void (null without void)
    private final INDArray pairMask;      // [E, 1]: 1 when both ends are labelled (null without void)

    VoidRows(ExampleBatch b) {
        numLabels = b.numLabels();
        labels = b.labels();
        any = b.hasVoid();
        int types = b.numPairTypes();
        pairRows = new int[types][];
        pairGather = new RowGather[types];
        int[] joint = b.jointLabels();
        for (int t = 0; t < types; t++) {
            int[] edges = b.edgesOfType(t);
            int n = 0;
            for (int e : edges) if (joint[e] != Example.VOID) n++;
            pairRows[t] = new int[n];
            n = 0;
            for (int k = 0; k < edges.length; k++) if (joint[edges[k]] != Example.VOID) pairRows[t][n++] = k;
            pairGather[t] = RowGather.of(pairRows[t]);
        }
        int n = 0;
        for (int y : labels) if (y != Example.VOID) n++;
        unaryRows = new int[n];
        n = 0;
        for (int v = 0; v < labels.length; v++) if (labels[v] != Example.VOID) unaryRows[n++] = v;
        unaryGather = RowGather.of(unaryRows);
        if (any) {
            float[] um = new float[labels.length], pm = new float[joint.length];
            for (int v : unaryRows) um[v] = 1f;
            for (int e = 0; e < joint.length; e++) pm[e] = joint[e] == Example.VOID ? 0f : 1f;
            unaryMask = Nd4j.create(um, new long[] {um.length, 1}, 'c');
            pairMask = Nd4j.create(pm, new long[] {pm.length, 1}, 'c');
        } else {
            unaryMask = null;
            pairMask = null;
        }
    }

    /** Whether some training variable is void. */
    boolean any() {
        return any;
    }

    /** Unary potentials [V, L] with the void variables' rows zero (a copy), or the input without void. */
    INDArray maskUnary(INDArray thetaU) {
        return any ? thetaU.mulColumnVector(unaryMask.castTo(thetaU.dataType())) : thetaU;
    }

    /** Pairwise potentials [E, L^2] with the rows of edges touching a void variable zero (a copy), or the input without void. */
    INDArray maskPair(INDArray thetaP) {
        return any ? thetaP.mulColumnVector(pairMask.castTo(thetaP.dataType())) : thetaP;
    }

    /**
     * The unary oracle problem of the labelled variables: rows {@code unaryRows} of the features,
     * labels, bias and row weights ({@link RowWeights}; null: all 1), placed in the images by
     * {@code images} (null: not a grid batch); null when no variable is labelled or every row has
     * weight 0 (nothing to fit: the function stays as it was).
     */
    BiasedLogisticProblem unaryProblem(INDArray features, INDArray bias, double[] weights, ImageRows images) {
        if (unaryRows.length == 0) return null;
        if (!any) return placed(weighted(new BiasedLogisticProblem(features, labels, bias, numLabels), weights), images);
        int[] y = pick(labels, unaryRows);
        ImageRows im = images == null ? null : new ImageRows(images.pixelFeatures(), images.layout(), pick(images.rows(), unaryRows), false);
        return placed(weighted(new BiasedLogisticProblem(unaryGather.from(features), y, unaryGather.from(bias), numLabels),
                weights == null ? null : pick(weights, unaryRows)), im);
    }

    /**
     * The oracle problem of pairwise type {@code t}'s edges with two labelled ends, from the type's
     * features, joint labels, bias and row weights (null: all 1; all in the type's edge order); null
     * when the batch has no edge of the type, none with two labelled ends, or every one weighs 0 (the
     * type's function then stays as it was).
     */
    BiasedLogisticProblem pairProblem(int t, INDArray features, int[] jointLabels, INDArray bias, double[] weights, ImageRows images) {
        int c = numLabels * numLabels;
        int[] rows = pairRows[t];
        if (rows.length == 0) return null;
        if (!any) return placed(weighted(new BiasedLogisticProblem(features, jointLabels, bias, c), weights), images);
        ImageRows im = images == null ? null : new ImageRows(images.pixelFeatures(), images.layout(), pick(images.rows(), rows), true);
        return placed(weighted(new BiasedLogisticProblem(pairGather[t].from(features), pick(jointLabels, rows), pairGather[t].from(bias), c),
                weights == null ? null : pick(weights, rows)), im);
    }

    /**
     * The problem with row weights {@code w} (T = w t) scaled to a mean of 1, as it is for null; null
     * when every weight is 0 (nothing to fit). The scale changes no weighted mean (the classes that
     * divide by the total weight fit the same function); the mini-batch classes (mlp, cnn, fcn),
     * whose steps average over the rows of a batch, then take steps of the unweighted size.
     */
    static BiasedLogisticProblem weighted(BiasedLogisticProblem p, double[] w) {
        if (w == null) return p;
        double total = 0;
        for (double v : w) total += v;
        if (!(total > 0)) return null;
        double[] scaled = new double[w.length];
        for (int i = 0; i < w.length; i++) scaled[i] = w[i] * (w.length / total);
        return p.withTargets(p.targets().withWeights(scaled));
    }

    private static BiasedLogisticProblem placed(BiasedLogisticProblem p, ImageRows images) {
        return p == null ? null : p.withImages(images);
    }

    private static int[] pick(int[] a, int[] at) {
        int[] out = new int[at.length];
        for (int k = 0; k < at.length; k++) out[k] = a[at[k]];
        return out;
    }

    private static double[] pick(double[] a, int[] at) {
        double[] out = new double[at.length];
        for (int k = 0; k < at.length; k++) out[k] = a[at[k]];
        return out;
    }
}
