package org.structlr.inference;

import org.nd4j.linalg.api.buffer.DataType;
import org.structlr.graph.FactorGraph;

/**
 * An upper bound on the MAP value max_y E(y) from any messages: the LP dual with the max in place of
 * the smoothed log-sum-exp (the eps -> 0 limit of docs/design.md §1's dual, at the same messages),
 * <pre>
 *   D(lambda) = sum_a max_{y_i,y_j} (theta_a + lambda_{a->i} + lambda_{a->j})
 *             + sum_r max_{y_r} (theta_r + sum_{j in r} lambda_{r->j})
 *             + sum_i max_y (theta_i(y) - sum_{a ni i} lambda_{a->i}(y))  >=  max_y E(y),
 * </pre>
 * because E(y) is the sum of the terms at y whatever lambda. It is at most the smoothed dual and at
 * most eps * (sum over factors of log(labels)) below it (Theorem 1), so it is the tighter bound to
 * report; a decoded labelling whose energy reaches it is a MAP (a certificate).
 *
 * <p>Minus infinity: a message of minus infinity means an impossible label (the engines propagate
 * it only where every labelling with that label has energy minus infinity), so that label is left
 * out of every max; the bound stays valid.
 */
public final class DualBound {
    private static final double NEG_INF = Double.NEGATIVE_INFINITY;

    private DualBound() {}

    /** D(lambda) at the engine's current messages for the potentials of {@code energy} (the engine's own). */
    public static double of(LabelingEnergy energy, MessagePassing mp) {
        FactorGraph g = energy.graph();
        int L = g.maxLabels(), V = g.numVariables(), E = g.numEdges();
        double[] lam = E == 0 ? new double[0] : mp.messages().castTo(DataType.DOUBLE).dup('c').data().asDouble();
        double[] lamR = g.numRegionSlots() == 0 ? new double[0] : mp.regionMessages().castTo(DataType.DOUBLE).dup('c').data().asDouble();
        double[] unary = energy.unaryCopy(), pair = energy.pairwiseCopy(), regions = energy.regionCopy();
        return of(g, unary, pair, regions, lam, lamR);
    }

    /** D(lambda) for flat potentials (the engine layout) and messages {@code lam [E*2*L]}, {@code lamR [S*L]}. */
    public static double of(FactorGraph g, double[] unary, double[] pair, double[] regions, double[] lam, double[] lamR) {
        int L = g.maxLabels(), V = g.numVariables(), E = g.numEdges();
        double[] u = unary.clone();
        double total = 0;
        for (int e = 0; e < E; e++) {
            int i = g.edgeFrom(e), j = g.edgeTo(e);
            double best = NEG_INF;
            for (int a = 0; a < g.numLabels(i); a++) {
                double la = lam[(e * 2) * L + a];
                for (int b = 0; b < g.numLabels(j); b++) best = Math.max(best, pair[(e * L + a) * L + b] + la + lam[(e * 2 + 1) * L + b]);
            }
            total += best;
            for (int a = 0; a < g.numLabels(i); a++) u[i * L + a] = minus(u[i * L + a], lam[(e * 2) * L + a]);
            for (int b = 0; b < g.numLabels(j); b++) u[j * L + b] = minus(u[j * L + b], lam[(e * 2 + 1) * L + b]);
        }
        RegionScores rs = new RegionScores(g);
        double[] z = new double[rs.maxEntries()];
        for (int r = 0; r < g.numRegions(); r++) {
            rs.scores(r, -1, regions, lamR, z);
            double best = NEG_INF;
            for (int t = 0; t < g.regionEntries(r); t++) best = Math.max(best, z[t]);
            total += best;
            for (int p = 0; p < g.regionSize(r); p++) {
                int v = g.regionVariable(r, p), slot = g.regionSlot(r, p);
                for (int y = 0; y < g.numLabels(v); y++) u[v * L + y] = minus(u[v * L + y], lamR[slot * L + y]);
            }
        }
        for (int i = 0; i < V; i++) {
            double best = NEG_INF;
            for (int y = 0; y < g.numLabels(i); y++) best = Math.max(best, u[i * L + y]);
            total += best;
        }
        return total;
    }

    /** x - m, or minus infinity when either is (an impossible label). */
    private static double minus(double x, double m) {
        return x == NEG_INF || m == NEG_INF ? NEG_INF : x - m;
    }
}
