package org.structlr.learn;

import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.structlr.data.Example;
import org.structlr.model.ExampleBatch;
import org.structlr.oracle.BiasedLogisticProblem;
import org.structlr.oracle.ImageRows;
import org.structlr.oracle.RowTargets;

/**
 * Training with void labels in the clamped form ({@link VoidForm#CLAMPED}, docs/design.md §1 "Partial
 * labels"): the loss of example k is
 * <pre>
 *   l_k = A(theta^k + Delta^k) - A(theta^k | y_O)
 * </pre>
 * where A(theta | y_O) is the log-partition over the labellings that agree with the observed labels
 * y_O (void variables free). With every label observed, A(theta | y) = F(x, y) and l_k is the usual
 * loss. Both terms are smoothed duals with their own messages: the free problem (every factor, the
 * Hamming augmentation on the observed variables) and the clamped problem, whose unary potentials
 * are minus infinity at every label but the observed one ({@link #clampUnary}; the engines treat
 * minus infinity as a hard constraint exactly). The learner minimises
 * <pre>
 *   R = sum_k [ A(lambda^k, theta^k + Delta^k) - A(mu^k, theta^k | y_O) ]
 * </pre>
 * with lambda minimising the first term and mu the second (each by its own sweeps). The second term
 * is concave in theta; at fixed mu the oracle step linearises it at its gradient, the clamped beliefs
 * b^c: -A(mu, theta | y_O) ~ -sum_r theta_r . b^c_r + const, so each row's loss becomes
 * <pre>
 *   eps [ lse_y( g(phi_r, y) + b_r(y) ) - sum_y t_r(y) g(phi_r, y) ],   t_r = b^c_r
 * </pre>
 * a biased logistic regression with soft targets: the oracle fits b^c_r where the paper fits the
 * one-hot truth, and its gradient in g is softmax(g + b) - b^c = b^free - b^c, the gradient of l_k
 * (with the free messages at their optimum). Observed variables and edges between two observed
 * variables have one-hot beliefs (their rows are the simple form's rows); void variables and edges
 * touching one get the distribution the clamped problem puts on them, so their features and the
 * edges to their neighbours do train. Every row is a row (no variable is dropped).
 *
 * <p>Weights ({@link RowWeights}): a soft row stands for one weighted row per label y with weight
 * w t(y), w = e_k c_y (edges: e_k (c_{y_i} + c_{y_j}) / 2). Those rows are one soft row of weight
 * W = sum_y w(y) t(y) and target t'(y) = w(y) t(y) / W (the same loss, term by term); without class
 * weights W = e_k and t' = t. A region over m variables is a row like an edge: its targets are the
 * clamped region beliefs, and its joint label y_r weighs e_k (c_{y_1} + ... + c_{y_m}) / m.
 */
final class ClampedRows {
    private final int numLabels;
    private final int[] labels;
    private final double[] classWeights;     // c_y, or null
    private final double[] variableWeights;  // e_k of each variable's example, or null
    private final double[][] pairExampleWeights; // per type, e_k of each edge's example (type order), or null
    private final INDArray clamp;            // [V, L]: 0 at the observed label and everywhere for void; -inf elsewhere
    private final org.structlr.graph.FactorGraph graph;
    private final int[][] regionsByType;     // the graph's regions of each region type, in order
    private final double[][] regionExampleWeights; // per region type, e_k of each region's example (type order), or null

    /** The clamped rows of {@code b}; {@code classWeights} and {@code exampleWeights} (one per example) may be null (all 1). */
    ClampedRows(ExampleBatch b, double[] classWeights, double[] exampleWeights) {
        numLabels = b.numLabels();
        labels = b.labels();
        this.classWeights = classWeights;
        int n = b.examples().size();
        if (classWeights != null || exampleWeights != null) {
            double[] e = exampleWeights == null ? ones(n) : exampleWeights;
            variableWeights = new double[labels.length];
            double[] edge = new double[b.graph().numEdges()];
            for (int k = 0; k < n; k++) {
                for (int v = b.variableOffset(k); v < b.variableOffset(k + 1); v++) variableWeights[v] = e[k];
                for (int a = b.edgeOffset(k); a < b.edgeOffset(k + 1); a++) edge[a] = e[k];
            }
            pairExampleWeights = new double[b.numPairTypes()][];
            for (int t = 0; t < pairExampleWeights.length; t++) {
                int[] edges = b.edgesOfType(t);
                pairExampleWeights[t] = new double[edges.length];
                for (int k = 0; k < edges.length; k++) pairExampleWeights[t][k] = edge[edges[k]];
            }
        } else {
            variableWeights = null;
            pairExampleWeights = null;
        }
        graph = b.graph();
        regionsByType = graph.regionsByType();
        if (variableWeights != null) {
            regionExampleWeights = new double[regionsByType.length][];
            for (int t = 0; t < regionsByType.length; t++) {
                regionExampleWeights[t] = new double[regionsByType[t].length];
                for (int k = 0; k < regionsByType[t].length; k++) regionExampleWeights[t][k] = variableWeights[graph.regionVariable(regionsByType[t][k], 0)];
            }
        } else {
            regionExampleWeights = null;
        }
        float[] c = new float[labels.length * numLabels];
        for (int v = 0; v < labels.length; v++) {
            if (labels[v] == Example.VOID) continue;
            for (int y = 0; y < numLabels; y++) if (y != labels[v]) c[v * numLabels + y] = Float.NEGATIVE_INFINITY;
        }
        clamp = Nd4j.create(c, new long[] {labels.length, numLabels}, 'c');
    }

    /** The clamped problem's unary potentials [V, L]: {@code thetaU} (without the loss augmentation) with the observed labels fixed. */
    INDArray clampUnary(INDArray thetaU) {
        return thetaU.add(clamp.castTo(thetaU.dataType()));
    }

    /**
     * The unary oracle problem: every variable's row of the features and bias, fitted to the clamped
     * unary beliefs {@code beliefs [V, L]}, placed by {@code images} (may be null); null when every
     * row weighs 0.
     */
    BiasedLogisticProblem unaryProblem(INDArray features, INDArray bias, INDArray beliefs, ImageRows images) {
        double[] t = rows(beliefs, numLabels);
        double[] w = weigh(t, numLabels, variableWeights, false);
        return problem(features, bias, t, numLabels, w, images);
    }

    /**
     * Pairwise type {@code t}'s oracle problem: every edge of the type, fitted to the clamped pairwise
     * beliefs {@code beliefs [E_t, L^2]} (type order); null when every row weighs 0.
     */
    BiasedLogisticProblem pairProblem(int t, INDArray features, INDArray bias, INDArray beliefs, ImageRows images) {
        int c = numLabels * numLabels;
        if (features.size(0) == 0) return null;
        double[] targets = rows(beliefs, c);
        double[] w = weigh(targets, c, pairExampleWeights == null ? null : pairExampleWeights[t], true);
        return problem(features, bias, targets, c, w, images);
    }

    /**
     * Region type {@code t}'s oracle problem: every region of the type, fitted to its clamped beliefs,
     * read from {@code beliefs} (the clamped engine's flat region layout); null when every row weighs 0.
     */
    BiasedLogisticProblem regionProblem(int t, INDArray features, INDArray bias, INDArray beliefs) {
        int[] regions = regionsByType[t];
        if (regions.length == 0) return null;
        int c = graph.regionEntries(regions[0]);
        double[] all = beliefs.castTo(DataType.DOUBLE).dup('c').data().asDouble();
        double[] picked = new double[regions.length * c];
        for (int k = 0; k < regions.length; k++) System.arraycopy(all, graph.regionTableOffset(regions[k]), picked, k * c, c);
        double[] targets = rows(Nd4j.create(picked, new long[] {regions.length, c}, 'c'), c);
        double[] w = null;
        if (regionExampleWeights != null) {
            // as weigh(), with a joint label's class weight the mean over the region's variables
            w = new double[regions.length];
            for (int k = 0; k < regions.length; k++) {
                int r = regions[k], m = graph.regionSize(r);
                if (classWeights == null) {
                    w[k] = regionExampleWeights[t][k];
                    continue;
                }
                double total = 0;
                for (int y = 0; y < c; y++) {
                    double cw = 0;
                    for (int p = 0; p < m; p++) cw += classWeights[graph.regionLabel(r, p, y)];
                    targets[k * c + y] *= cw / m;
                    total += targets[k * c + y];
                }
                if (total > 0) {
                    for (int y = 0; y < c; y++) targets[k * c + y] /= total;
                } else {
                    java.util.Arrays.fill(targets, k * c, k * c + c, 1.0 / c);
                }
                w[k] = regionExampleWeights[t][k] * total;
            }
        }
        return problem(features, bias, targets, c, w, null);
    }

    private static BiasedLogisticProblem problem(INDArray features, INDArray bias, double[] t, int c, double[] w, ImageRows images) {
        BiasedLogisticProblem p = new BiasedLogisticProblem(features, RowTargets.soft(t, c), bias);
        if (w != null) {
            p = VoidRows.weighted(p, w);
            if (p == null) return null;
        }
        return p.withImages(images);
    }

    /** Belief rows [N, C] as distributions in double, each renormalised (float beliefs sum to 1 only to rounding). */
    private static double[] rows(INDArray beliefs, int c) {
        double[] t = beliefs.castTo(DataType.DOUBLE).dup('c').data().asDouble();
        int n = t.length / c;
        for (int i = 0; i < n; i++) {
            double sum = 0;
            for (int k = 0; k < c; k++) {
                double v = t[i * c + k];
                if (!(v >= 0) || !Double.isFinite(v)) throw new IllegalStateException("clamped belief " + v + " at row " + i + " is not a probability");
                sum += v;
            }
            if (!(sum > 0)) throw new IllegalStateException("clamped beliefs of row " + i + " are all 0");
            for (int k = 0; k < c; k++) t[i * c + k] /= sum;
        }
        return t;
    }

    /**
     * The rows' weights W and (in place) their targets t' for class weights (see the class comment);
     * null when no row has a weight (all 1).
     */
    private double[] weigh(double[] t, int c, double[] exampleWeights, boolean pair) {
        if (classWeights == null && exampleWeights == null) return null;
        int n = t.length / c;
        double[] w = new double[n];
        for (int i = 0; i < n; i++) {
            double e = exampleWeights == null ? 1 : exampleWeights[i];
            if (classWeights == null) {
                w[i] = e;
                continue;
            }
            double total = 0;
            for (int k = 0; k < c; k++) {
                double cw = pair ? (classWeights[k / numLabels] + classWeights[k % numLabels]) / 2 : classWeights[k];
                t[i * c + k] *= cw;
                total += t[i * c + k];
            }
            if (total > 0) {
                for (int k = 0; k < c; k++) t[i * c + k] /= total;
            } else {
                java.util.Arrays.fill(t, i * c, i * c + c, 1.0 / c);   // weight 0: any distribution
            }
            w[i] = e * total;
        }
        return w;
    }

    private static double[] ones(int n) {
        double[] a = new double[n];
        java.util.Arrays.fill(a, 1);
        return a;
    }
}
