package org.structlr.inference;

import org.structlr.graph.FactorGraph;

/**
 * The energy (log-potential) of a whole labelling of a pairwise model,
 * <pre>
 *   E(y) = sum_i theta_i(y_i) + sum_{a = (i, j)} theta_a(y_i, y_j),
 * </pre>
 * the log-probability up to log Z, minus infinity when y breaks a hard constraint. Potentials in
 * the engine layout of {@link MessagePassing} (flat {@code [V*L]} and {@code [E*L*L]}). Also
 * iterated conditional modes (ICM), the local search that only needs E's local terms.
 */
public final class LabelingEnergy {
    private final FactorGraph graph;
    private final int L;
    private final int[] labelsOf, off, edge, side;
    private final double[] unary, pairwise;

    public LabelingEnergy(FactorGraph graph, double[] unary, double[] pairwise) {
        int L = graph.maxLabels();
        if (unary.length != graph.numVariables() * L || pairwise.length != graph.numEdges() * L * L) {
            throw new IllegalArgumentException("potentials of " + unary.length + " and " + pairwise.length
                    + " values for " + graph.numVariables() + " variables, " + graph.numEdges() + " edges and " + L + " labels");
        }
        this.graph = graph;
        this.L = L;
        this.labelsOf = graph.numLabels();
        int[][] inc = graph.incidence();
        this.off = inc[0];
        this.edge = inc[1];
        this.side = inc[2];
        this.unary = unary.clone();
        this.pairwise = pairwise.clone();
    }

    public FactorGraph graph() { return graph; }

    /** E(y); minus infinity when a hard constraint is broken. */
    public double energy(int[] y) {
        double s = 0;
        for (int i = 0; i < y.length; i++) s += unary[i * L + y[i]];
        for (int e = 0; e < graph.numEdges(); e++) s += pairwise[(e * L + y[graph.edgeFrom(e)]) * L + y[graph.edgeTo(e)]];
        return s;
    }

    /** The terms of E that depend on y_i, with variable i set to {@code label} and the others as in {@code y}. */
    public double local(int i, int label, int[] y) {
        double s = unary[i * L + label];
        for (int k = off[i]; k < off[i + 1]; k++) {
            int e = edge[k];
            s += side[k] == 0 ? pairwise[(e * L + label) * L + y[graph.edgeTo(e)]]
                    : pairwise[(e * L + y[graph.edgeFrom(e)]) * L + label];
        }
        return s;
    }

    /**
     * True when y_i = label breaks no hard constraint: theta_i(label) and the edge terms with every
     * neighbour whose label is decided ({@code y[j] >= 0}; -1 means undecided and is skipped) are finite.
     */
    public boolean compatible(int i, int label, int[] y) {
        if (unary[i * L + label] == Double.NEGATIVE_INFINITY) return false;
        for (int k = off[i]; k < off[i + 1]; k++) {
            int e = edge[k];
            int j = side[k] == 0 ? graph.edgeTo(e) : graph.edgeFrom(e);
            if (y[j] < 0) continue;
            double t = side[k] == 0 ? pairwise[(e * L + label) * L + y[j]] : pairwise[(e * L + y[j]) * L + label];
            if (t == Double.NEGATIVE_INFINITY) return false;
        }
        return true;
    }

    /**
     * ICM: sets each variable in turn to its best label given its neighbours, until a whole sweep
     * changes nothing or {@code maxSweeps} sweeps. "Best" is lexicographic: fewest broken hard
     * constraints among its own terms first, then the largest sum of the finite terms, so ICM also
     * repairs an infeasible labelling; only strict improvements move, so E(y) never decreases.
     * Works in place on {@code y}; returns the final E(y).
     */
    public double icm(int[] y, int maxSweeps) {
        double[] score = new double[1];
        for (int t = 0; t < maxSweeps; t++) {
            boolean changed = false;
            for (int i = 0; i < y.length; i++) {
                int best = y[i];
                int bestBroken = localParts(i, best, y, score);
                double bestScore = score[0];
                for (int l = 0; l < labelsOf[i]; l++) {
                    if (l == y[i]) continue;
                    int broken = localParts(i, l, y, score);
                    if (broken < bestBroken || (broken == bestBroken && score[0] > bestScore)) {
                        bestBroken = broken;
                        bestScore = score[0];
                        best = l;
                    }
                }
                if (best != y[i]) {
                    y[i] = best;
                    changed = true;
                }
            }
            if (!changed) break;
        }
        return energy(y);
    }

    /** The terms of {@link #local}: returns how many are minus infinity, and their finite sum in {@code sum[0]}. */
    private int localParts(int i, int label, int[] y, double[] sum) {
        int broken = 0;
        double s = 0;
        double t = unary[i * L + label];
        if (t == Double.NEGATIVE_INFINITY) broken++;
        else s += t;
        for (int k = off[i]; k < off[i + 1]; k++) {
            int e = edge[k];
            t = side[k] == 0 ? pairwise[(e * L + label) * L + y[graph.edgeTo(e)]]
                    : pairwise[(e * L + y[graph.edgeFrom(e)]) * L + label];
            if (t == Double.NEGATIVE_INFINITY) broken++;
            else s += t;
        }
        sum[0] = s;
        return broken;
    }

    /** theta_i(y) in the flat layout (a copy is not made: callers must not change it). */
    double unary(int i, int y) {
        return unary[i * L + y];
    }

    /** A copy of the flat unary potentials {@code [V*L]}. */
    double[] unaryCopy() {
        return unary.clone();
    }

    /** A copy of the flat pairwise potentials {@code [E*L*L]}. */
    double[] pairwiseCopy() {
        return pairwise.clone();
    }
}
