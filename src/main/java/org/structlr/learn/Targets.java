package org.structlr.learn;

import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.api.ops.impl.shape.Gather;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.indexing.NDArrayIndex;
import org.structlr.model.ExampleBatch;

/**
 * The training truth of a batch in the forms the loop reads every iteration (docs/design.md §1), as ND4J
 * arrays built once, so that the per-iteration terms are ND4J ops on the engine's own arrays and
 * only scalars reach the host (on a GPU the arrays stay on the device):
 * <pre>
 *   Delta_i(y)         = [y != y_i]                                                   (Hamming loss augmentation)
 *   b_i(y)             = (Delta_i(y) - sum_{a ∋ i} lambda_{a->i}(y)) / eps            (unary oracle bias)
 *   b_a(y_i, y_j)      = (lambda_{a->i}(y_i) + lambda_{a->j}(y_j)) / eps              (pairwise oracle bias)
 *   F(x, y)            = sum_i theta_i(y_i) + sum_a theta_a(y_i, y_j)                 (score of the truth)
 * </pre>
 * The per-row labels of the oracle problems ({@link #labels}, {@link #pairLabels}) are host arrays,
 * read once. This is where a loss other than Hamming, void labels or soft targets would change the
 * terms (the loop itself never looks at labels).
 */
public final class Targets {
    private final int L;
    private final int[] labels;
    private final int[][] pairLabels;       // per pairwise type, in the type's edge order
    private final INDArray[] edgesOfType;   // per pairwise type, its edges (indices into edge order), or null with one type
    private final INDArray delta;           // [V, L]
    private final INDArray truthU, truthP;  // flat indices of the true entries: v * L + y_v, e * L^2 + y_i L + y_j

    private Targets(ExampleBatch b) {
        if (!b.hasLabels()) throw new IllegalArgumentException("training examples must carry labels");
        if (b.hasVoid()) throw new IllegalArgumentException("training on void labels is not supported yet (no term of their own)");
        L = b.numLabels();
        labels = b.labels();
        int[] joint = b.jointLabels();
        pairLabels = new int[b.numPairTypes()][];
        edgesOfType = new INDArray[b.numPairTypes()];
        for (int t = 0; t < pairLabels.length; t++) {
            pairLabels[t] = b.pairLabels(t);
            if (pairLabels.length > 1) edgesOfType[t] = Nd4j.createFromArray(b.edgesOfType(t));
        }
        int V = labels.length;
        long[] u = new long[V];
        for (int v = 0; v < V; v++) u[v] = (long) v * L + labels[v];
        long[] p = new long[joint.length];
        for (int e = 0; e < joint.length; e++) p[e] = (long) e * L * L + joint[e];
        truthU = Nd4j.createFromArray(u);
        truthP = Nd4j.createFromArray(p);
        delta = org.structlr.model.Potentials.hammingLoss(b);
    }

    /** The truth of a labelled batch. */
    public static Targets of(ExampleBatch b) {
        return new Targets(b);
    }

    /** [V, L] Delta: 1 where y differs from the true label. Do not modify. */
    INDArray delta() {
        return delta;
    }

    /** The true label of every variable (the unary rows' labels). */
    int[] labels() {
        return labels;
    }

    /** The true joint label y_i L + y_j of every edge of pairwise type {@code t}, in the type's order. */
    int[] pairLabels(int t) {
        return pairLabels[t];
    }

    /** [V, L] unary bias (Delta - incoming) / eps from the engine's incoming message sums [V, L]. */
    INDArray unaryBias(INDArray incoming, double eps) {
        return delta.sub(incoming.castTo(DataType.FLOAT)).divi((float) eps);
    }

    /** [E, L*L] pairwise bias of every edge, in edge order, from the engine's messages [E, 2, L]. */
    INDArray pairBias(INDArray messages, double eps) {
        INDArray m = messages.castTo(DataType.FLOAT);
        long E = m.size(0);
        INDArray toI = m.get(NDArrayIndex.all(), NDArrayIndex.point(0), NDArrayIndex.all()).reshape(E, L, 1);
        INDArray toJ = m.get(NDArrayIndex.all(), NDArrayIndex.point(1), NDArrayIndex.all()).reshape(E, 1, L);
        return toI.broadcast(E, L, L).add(toJ.broadcast(E, L, L)).divi((float) eps).reshape(E, (long) L * L);
    }

    /** The rows of {@code allEdges} ([E, L*L], edge order) of pairwise type {@code t}, in the type's order. */
    INDArray ofType(INDArray allEdges, int t) {
        if (edgesOfType.length == 1) return allEdges;
        if (edgesOfType[t].length() == 0) return Nd4j.create(allEdges.dataType(), 0, allEdges.size(1));
        return Nd4j.exec(new Gather(allEdges, edgesOfType[t], 0))[0];   // the indices live with the arrays: nothing from the host
    }

    /** F(x, y): the potentials at the true labels, summed in double (Delta is 0 there). */
    double score(INDArray thetaU, INDArray thetaP) {
        return picked(thetaU, truthU) + picked(thetaP, truthP);
    }

    private static double picked(INDArray theta, INDArray flatIndices) {
        if (flatIndices.length() == 0) return 0;
        INDArray flat = theta.reshape(theta.length());
        INDArray at = Nd4j.exec(new Gather(flat, flatIndices, 0))[0];
        return at.castTo(DataType.DOUBLE).sumNumber().doubleValue();
    }
}
