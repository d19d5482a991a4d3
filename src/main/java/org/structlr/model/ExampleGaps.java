package org.structlr.model;

import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.structlr.inference.MessagePassing;

/**
 * The smoothed dual and the primal (docs/design.md §1) of each example of a batch, from the potentials and
 * the engine's messages in natural units, so that each example of a disjoint union can be stopped
 * by its own duality gap:
 * <pre>
 *   A_k   = eps [ sum_{a in k} lse_(yi,yj) (theta_a + lambda_{a->i}(yi) + lambda_{a->j}(yj)) / eps
 *               + sum_{i in k} lse_y (theta_i(y) - sum_{a ∋ i} lambda_{a->i}(y)) / eps ]
 *   P_k   = sum over the same regions of  b (theta - eps log b),  b = softmax of the region's terms / eps
 * </pre>
 * Example k's terms are summed in its own order (its edges, then its variables), reading only its
 * own rows, so the numbers of an example are the same bits whether it is alone or one of many.
 * The engines' own {@code dual()}/{@code primal()} sum over the whole graph in their own units; this
 * is the per-example read-out, one formula for every engine. Minus infinity (an impossible label) is
 * handled as the engines do: a label with a minus-infinity potential or incoming message has no
 * belief.
 */
final class ExampleGaps {
    private final int L;
    private final double eps;
    private final double[] unary, pair;   // [V, L], [E, L*L], natural units
    private final int[] from, to;
    private final int[] varOffset, edgeOffset;

    ExampleGaps(INDArray unaryPotentials, INDArray pairPotentials, int[] from, int[] to, int[] varOffset, int[] edgeOffset, int numLabels, double eps) {
        this.L = numLabels;
        this.eps = eps;
        this.unary = unaryPotentials.dup('c').castTo(DataType.DOUBLE).data().asDouble();
        this.pair = pairPotentials.length() == 0 ? new double[0] : pairPotentials.dup('c').castTo(DataType.DOUBLE).data().asDouble();
        this.from = from;
        this.to = to;
        this.varOffset = varOffset;
        this.edgeOffset = edgeOffset;
    }

    /** {dual, primal} of example k at the engine's current messages {@code m} ([E, 2, L] flattened). */
    double[] dualPrimal(double[] m, int k) {
        int v0 = varOffset[k], v1 = varOffset[k + 1], e0 = edgeOffset[k], e1 = edgeOffset[k + 1];
        // incoming message sums of the example's variables, edge by edge in edge order
        double[] in = new double[(v1 - v0) * L];
        for (int e = e0; e < e1; e++) {
            for (int s = 0; s < 2; s++) {
                int v = (s == 0 ? from[e] : to[e]) - v0;
                for (int y = 0; y < L; y++) {
                    double l = m[(e * 2 + s) * L + y];
                    int at = v * L + y;
                    in[at] = l == Double.NEGATIVE_INFINITY || in[at] == Double.NEGATIVE_INFINITY ? Double.NEGATIVE_INFINITY : in[at] + l;
                }
            }
        }
        double dual = 0, primal = 0;
        double[] r = new double[L * L];
        for (int e = e0; e < e1; e++) {
            for (int yi = 0; yi < L; yi++) {
                double li = m[(e * 2) * L + yi];
                for (int yj = 0; yj < L; yj++) r[yi * L + yj] = (pair[e * L * L + yi * L + yj] + li + m[(e * 2 + 1) * L + yj]) / eps;
            }
            double lse = lse(r, L * L);
            dual += lse;
            primal += entropyTerm(r, L * L, lse, pair, e * L * L);
        }
        double[] u = new double[L];
        for (int v = v0; v < v1; v++) {
            for (int y = 0; y < L; y++) {
                double t = unary[v * L + y], s = in[(v - v0) * L + y];
                u[y] = t == Double.NEGATIVE_INFINITY || s == Double.NEGATIVE_INFINITY ? Double.NEGATIVE_INFINITY : (t - s) / eps;
            }
            double lse = lse(u, L);
            dual += lse;
            primal += entropyTerm(u, L, lse, unary, v * L);
        }
        return new double[] {eps * dual, eps * primal};
    }

    /** sum_y b(y) (theta(y)/eps - log b(y)) with b = exp(x - lse); zero beliefs add nothing. */
    private double entropyTerm(double[] x, int n, double lse, double[] theta, int at) {
        if (lse == Double.NEGATIVE_INFINITY) return 0;
        double s = 0;
        for (int k = 0; k < n; k++) {
            if (x[k] == Double.NEGATIVE_INFINITY) continue;
            double p = Math.exp(x[k] - lse);
            if (p > 0) s += p * (theta[at + k] / eps - Math.log(p));
        }
        return s;
    }

    /** log sum exp over x[0..n); minus infinity when every term is. */
    private static double lse(double[] x, int n) {
        double mx = Double.NEGATIVE_INFINITY;
        for (int k = 0; k < n; k++) mx = Math.max(mx, x[k]);
        if (mx == Double.NEGATIVE_INFINITY) return mx;
        double s = 0;
        for (int k = 0; k < n; k++) s += Math.exp(x[k] - mx);
        return mx + Math.log(s);
    }

    /** The engine's messages in natural units, flattened [E, 2, L], as doubles. */
    static double[] messages(MessagePassing mp) {
        INDArray m = mp.messages();
        return m.length() == 0 ? new double[0] : m.dup('c').castTo(DataType.DOUBLE).data().asDouble();
    }
}
