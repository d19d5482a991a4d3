package org.structlr.model;

import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.structlr.data.Example;
import org.structlr.oracle.BiasedLogisticProblem;
import org.structlr.oracle.ImageRows;

/**
 * Training with void labels ({@link Example#VOID}) in the simple form "a variable without a label
 * adds no term of its own" (issue 21 item 2's first form; the clamped/free loss is its principled
 * form): in training, a void variable's unary potential and the potentials of the edges touching it
 * are zero ({@link #maskUnary}, {@link #maskPair}), its Hamming augmentation is zero
 * ({@link Potentials#hammingLoss}), the true score F sums over labelled variables and edges between
 * labelled variables, and the oracles fit only the rows of labelled variables ({@link #unaryRows})
 * and of edges whose two ends are labelled ({@link #pairRows}). So the objective
 * <pre>
 *   R = sum_k [ A(lambda^k, theta^k with the void factors zero) - F_labelled(x^k, y^k) ]
 * </pre>
 * does not depend on a void variable's features or label at all, each oracle step is still the
 * exact minimiser of R over one type's function (the void rows are not in R), and R never rises
 * with exact oracles, as without void. In the smoothed dual a zero factor has free beliefs: it adds
 * a constant and some entropy at its labelled neighbours, not a loss. Prediction (evaluation, test)
 * uses every potential as usual. Whole-image functions ({@code fcn}) still see void pixels as
 * input (context for their neighbours), never as targets.
 *
 * <p>Without void labels every method returns its input (no copies, the same bits as before).
 */
public final class VoidRows {
    private final int numLabels;
    private final int[] labels;
    private final boolean any;
    private final int[] unaryRows;        // labelled variables
    private final int[][] pairRows;       // per type: positions (in the type's order) of edges with two labelled ends
    private final int[][] edgesOfType;
    private final INDArray unaryMask;     // [V, 1]: 1 labelled, 0 void
    private final INDArray pairMask;      // [E, 1]: 1 when both ends are labelled

    public VoidRows(ExampleBatch b) {
        if (!b.hasLabels()) throw new IllegalArgumentException("training examples must carry labels");
        numLabels = b.numLabels();
        labels = b.labels();
        any = b.hasVoid();
        int types = b.numPairTypes();
        edgesOfType = new int[types][];
        pairRows = new int[types][];
        int[] joint = b.jointLabels();
        for (int t = 0; t < types; t++) {
            edgesOfType[t] = b.edgesOfType(t);
            int n = 0;
            for (int e : edgesOfType[t]) if (joint[e] != Example.VOID) n++;
            pairRows[t] = new int[n];
            n = 0;
            for (int k = 0; k < edgesOfType[t].length; k++) if (joint[edgesOfType[t][k]] != Example.VOID) pairRows[t][n++] = k;
        }
        int n = 0;
        for (int y : labels) if (y != Example.VOID) n++;
        unaryRows = new int[n];
        n = 0;
        for (int v = 0; v < labels.length; v++) if (labels[v] != Example.VOID) unaryRows[n++] = v;
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
    public boolean any() { return any; }

    /** The labelled variables (all of them without void). */
    public int[] unaryRows() { return unaryRows.clone(); }

    /** Positions in pairwise type {@code t}'s edge order of the edges whose two ends are labelled. */
    public int[] pairRows(int t) { return pairRows[t].clone(); }

    /** Unary potentials [V, L] with the void variables' rows zero (a copy), or the input without void. */
    public INDArray maskUnary(INDArray thetaU) {
        return any ? thetaU.mulColumnVector(unaryMask.castTo(thetaU.dataType())) : thetaU;
    }

    /** Pairwise potentials [E, L^2] with the rows of edges touching a void variable zero (a copy), or the input without void. */
    public INDArray maskPair(INDArray thetaP) {
        return any ? thetaP.mulColumnVector(pairMask.castTo(thetaP.dataType())) : thetaP;
    }

    /**
     * The unary oracle problem of the labelled variables: rows {@link #unaryRows} of the features,
     * labels and bias, placed in the images by {@code images} (null: not a grid batch).
     */
    public BiasedLogisticProblem unaryProblem(INDArray features, INDArray bias, ImageRows images) {
        if (!any) return new BiasedLogisticProblem(features, labels, bias, numLabels).withImages(images);
        int[] y = new int[unaryRows.length];
        for (int k = 0; k < y.length; k++) y[k] = labels[unaryRows[k]];
        ImageRows im = images == null ? null : new ImageRows(images.pixelFeatures(), images.layout(), pick(images.rows(), unaryRows), false);
        return new BiasedLogisticProblem(Nd4j.pullRows(features, 1, unaryRows), y, Nd4j.pullRows(bias, 1, unaryRows), numLabels).withImages(im);
    }

    /**
     * The oracle problem of pairwise type {@code t}'s edges with two labelled ends, from the type's
     * features, joint labels and bias (all in the type's edge order); null when no edge of the type
     * has two labelled ends (the type's function then stays as it was).
     */
    public BiasedLogisticProblem pairProblem(int t, INDArray features, int[] jointLabels, INDArray bias, ImageRows images) {
        int c = numLabels * numLabels;
        if (!any) return new BiasedLogisticProblem(features, jointLabels, bias, c).withImages(images);
        int[] rows = pairRows[t];
        if (rows.length == 0) return null;
        int[] y = pick(jointLabels, rows);
        ImageRows im = images == null ? null : new ImageRows(images.pixelFeatures(), images.layout(), pick(images.rows(), rows), true);
        return new BiasedLogisticProblem(Nd4j.pullRows(features, 1, rows), y, Nd4j.pullRows(bias, 1, rows), c).withImages(im);
    }

    private static int[] pick(int[] a, int[] at) {
        int[] out = new int[at.length];
        for (int k = 0; k < at.length; k++) out[k] = a[at[k]];
        return out;
    }
}
