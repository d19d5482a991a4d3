package org.structlr.inference;

import org.structlr.graph.FactorGraph;

/**
 * The energy (log-potential) of a whole labelling,
 * <pre>
 *   E(y) = sum_i theta_i(y_i) + sum_{a = (i, j)} theta_a(y_i, y_j) + sum_r theta_r(y_r),
 * </pre>
 * the log-probability up to log Z, minus infinity when y breaks a hard constraint. Potentials in
 * the engine layout of {@link MessagePassing} (flat {@code [V*L]}, {@code [E*L*L]} and the regions'
 * tables). Also iterated conditional modes (ICM), the local search that only needs E's local terms.
 */
public final class LabelingEnergy {
    private final FactorGraph graph;
    private final int L;
    private final int[] labelsOf;
    /** Each variable's edges and regions. */
    private final FactorGraph.Incidence inc;
    private final double[] unary, pairwise, regions;

    /** For a graph without regions. */
    public LabelingEnergy(FactorGraph graph, double[] unary, double[] pairwise) {
        this(graph, unary, pairwise, new double[0]);
    }

    public LabelingEnergy(FactorGraph graph, double[] unary, double[] pairwise, double[] regions) {
        int L = graph.maxLabels();
        if (unary.length != graph.numVariables() * L || pairwise.length != graph.numEdges() * L * L
                || regions.length != graph.totalRegionEntries()) {
            throw new IllegalArgumentException("potentials of " + unary.length + ", " + pairwise.length + " and " + regions.length
                    + " values for " + graph.numVariables() + " variables, " + graph.numEdges() + " edges, " + L + " labels and "
                    + graph.totalRegionEntries() + " region entries");
        }
        this.graph = graph;
        this.L = L;
        this.labelsOf = graph.numLabels();
        this.inc = graph.variableIncidence();
        this.unary = unary.clone();
        this.pairwise = pairwise.clone();
        this.regions = regions.clone();
    }

    public FactorGraph graph() { return graph; }

    /** Each variable's edges and regions ({@link FactorGraph#variableIncidence}), for the searches over labellings. */
    FactorGraph.Incidence incidence() { return inc; }

    /** E(y); minus infinity when a hard constraint is broken. */
    public double energy(int[] y) {
        double s = 0;
        for (int i = 0; i < y.length; i++) s += unary[i * L + y[i]];
        for (int e = 0; e < graph.numEdges(); e++) s += pairwise[(e * L + y[graph.edgeFrom(e)]) * L + y[graph.edgeTo(e)]];
        for (int r = 0; r < graph.numRegions(); r++) s += regionTerm(r, y);
        return s;
    }

    /** theta_r(y_r). */
    private double regionTerm(int r, int[] y) {
        return regions[graph.regionTableOffset(r) + graph.regionEntry(r, y)];
    }

    /** The terms of E that depend on y_i, with variable i set to {@code label} and the others as in {@code y}. */
    public double local(int i, int label, int[] y) {
        double s = unary[i * L + label];
        for (int k = inc.edgeOffsets()[i]; k < inc.edgeOffsets()[i + 1]; k++) {
            int e = inc.edge()[k];
            s += inc.side()[k] == 0 ? pairwise[(e * L + label) * L + y[graph.edgeTo(e)]]
                    : pairwise[(e * L + y[graph.edgeFrom(e)]) * L + label];
        }
        if (inc.regionOffsets()[i] < inc.regionOffsets()[i + 1]) {
            int old = y[i];
            y[i] = label;
            for (int k = inc.regionOffsets()[i]; k < inc.regionOffsets()[i + 1]; k++) s += regionTerm(inc.region()[k], y);
            y[i] = old;
        }
        return s;
    }

    /**
     * True when y_i = label breaks no hard constraint: theta_i(label) and the edge terms with every
     * neighbour whose label is decided ({@code y[j] >= 0}; -1 means undecided and is skipped) are finite,
     * and every region of i has a finite entry that agrees with its decided variables.
     */
    public boolean compatible(int i, int label, int[] y) {
        if (unary[i * L + label] == Double.NEGATIVE_INFINITY) return false;
        for (int k = inc.edgeOffsets()[i]; k < inc.edgeOffsets()[i + 1]; k++) {
            int e = inc.edge()[k];
            int j = inc.side()[k] == 0 ? graph.edgeTo(e) : graph.edgeFrom(e);
            if (y[j] < 0) continue;
            double t = inc.side()[k] == 0 ? pairwise[(e * L + label) * L + y[j]] : pairwise[(e * L + y[j]) * L + label];
            if (t == Double.NEGATIVE_INFINITY) return false;
        }
        if (inc.regionOffsets()[i] < inc.regionOffsets()[i + 1]) {
            int old = y[i];
            y[i] = label;
            try {
                for (int k = inc.regionOffsets()[i]; k < inc.regionOffsets()[i + 1]; k++) if (!regionPossible(inc.region()[k], y)) return false;
            } finally {
                y[i] = old;
            }
        }
        return true;
    }

    /** True when some entry of region r with a finite potential agrees with the decided labels ({@code y >= 0}) of its variables. */
    private boolean regionPossible(int r, int[] y) {
        int off = graph.regionTableOffset(r), k = graph.regionSize(r);
        for (int t = 0; t < graph.regionEntries(r); t++) {
            if (regions[off + t] == Double.NEGATIVE_INFINITY) continue;
            boolean agrees = true;
            for (int p = 0; p < k && agrees; p++) {
                int v = graph.regionVariable(r, p);
                agrees = y[v] < 0 || y[v] == graph.regionLabel(r, p, t);
            }
            if (agrees) return true;
        }
        return false;
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
        for (int k = inc.edgeOffsets()[i]; k < inc.edgeOffsets()[i + 1]; k++) {
            int e = inc.edge()[k];
            t = inc.side()[k] == 0 ? pairwise[(e * L + label) * L + y[graph.edgeTo(e)]]
                    : pairwise[(e * L + y[graph.edgeFrom(e)]) * L + label];
            if (t == Double.NEGATIVE_INFINITY) broken++;
            else s += t;
        }
        if (inc.regionOffsets()[i] < inc.regionOffsets()[i + 1]) {
            int old = y[i];
            y[i] = label;
            for (int k = inc.regionOffsets()[i]; k < inc.regionOffsets()[i + 1]; k++) {
                t = regionTerm(inc.region()[k], y);
                if (t == Double.NEGATIVE_INFINITY) broken++;
                else s += t;
            }
            y[i] = old;
        }
        sum[0] = s;
        return broken;
    }

    /** theta_i(y). */
    double unary(int i, int y) {
        return unary[i * L + y];
    }

    /** theta_e(a, b) of edge e, a the label of its first variable. */
    double pair(int e, int a, int b) {
        return pairwise[(e * L + a) * L + b];
    }

    /** theta_r at the labels {@code y} give region r's variables. */
    double region(int r, int[] y) {
        return regionTerm(r, y);
    }

    /** The number of terms of E(y) that are minus infinity (broken hard constraints). */
    int brokenCount(int[] y) {
        int n = 0;
        for (int i = 0; i < y.length; i++) if (unary[i * L + y[i]] == Double.NEGATIVE_INFINITY) n++;
        for (int e = 0; e < graph.numEdges(); e++) if (pairwise[(e * L + y[graph.edgeFrom(e)]) * L + y[graph.edgeTo(e)]] == Double.NEGATIVE_INFINITY) n++;
        for (int r = 0; r < graph.numRegions(); r++) if (regionTerm(r, y) == Double.NEGATIVE_INFINITY) n++;
        return n;
    }

    /** A copy of the flat unary potentials {@code [V*L]}. */
    double[] unaryCopy() {
        return unary.clone();
    }

    /** A copy of the flat pairwise potentials {@code [E*L*L]}. */
    double[] pairwiseCopy() {
        return pairwise.clone();
    }

    /** A copy of the regions' flat tables. */
    double[] regionCopy() {
        return regions.clone();
    }
}
