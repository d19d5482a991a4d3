package org.structlr.inference;

import org.structlr.graph.FactorGraph;

/**
 * The region factors' terms of the smoothed dual (docs/design.md §1, regions alpha of any size), on flat
 * double arrays: the potentials of all regions one after another ({@link FactorGraph#regionTableOffset})
 * and the region messages {@code lamR[slot * L + y]}, lambda from region r to its p-th variable at
 * slot {@link FactorGraph#regionSlot}(r, p), {@code L = graph.maxLabels()}.
 *
 * <pre>
 *   score_r(y_r)      = theta_r(y_r) + sum_{j in r} lambda_{r->j}(y_j)          (the region's dual term: eps lse of it / eps)
 *   m_{r->i}(y)       = eps * log sum_{y_r : y_i = y} exp( (theta_r(y_r) + sum_{j in r, j != i} lambda_{r->j}(y_j)) / eps )
 *   b_r(y_r)          proportional to exp(score_r(y_r) / eps)
 * </pre>
 *
 * m_{r->i} is what a star update at i needs from region r, exactly as m_a is for an edge: the
 * update is the same (docs/design.md §1) with N_i counting the regions that contain i. Sums over an entry's
 * labels run as an odometer (last variable fastest, the table order), re-adding only the positions
 * that changed, so a table costs O(entries) however many variables the region has. Minus infinity
 * (a zero entry, an impossible label) propagates; no infinity is ever subtracted from another: an
 * all minus infinity group gives minus infinity.
 */
public final class RegionScores {
    private static final double NEG_INF = Double.NEGATIVE_INFINITY;

    private final FactorGraph graph;
    private final int L;
    private final int[] labelsOf;
    /** Scratch: labels of the current entry and partial sums of the messages (position q: sum over positions < q). */
    private final int[] y;
    private final double[] part;

    public RegionScores(FactorGraph graph) {
        this.graph = graph;
        this.L = graph.maxLabels();
        this.labelsOf = graph.numLabels();
        int k = 0;
        for (int r = 0; r < graph.numRegions(); r++) k = Math.max(k, graph.regionSize(r));
        this.y = new int[k];
        this.part = new double[k + 1];
    }

    public FactorGraph graph() { return graph; }

    /** The largest table of any region (the length {@link #scores} needs of its output). */
    public int maxEntries() {
        int m = 0;
        for (int r = 0; r < graph.numRegions(); r++) m = Math.max(m, graph.regionEntries(r));
        return m;
    }

    /**
     * {@code z[t] = theta_r(t) + sum_{q != exclude} lamR[slot(r, q) * L + y_q(t)]} for every entry t of
     * region r ({@code exclude = -1}: every position). {@code theta} is the flat layout of all tables.
     */
    public void scores(int r, int exclude, double[] theta, double[] lamR, double[] z) {
        int k = graph.regionSize(r), slot0 = graph.regionSlot(r, 0), off = graph.regionTableOffset(r), n = graph.regionEntries(r);
        for (int q = 0; q < k; q++) y[q] = 0;
        part[0] = 0;
        int from = 0; // partial sums from this position on are stale
        for (int t = 0; t < n; t++) {
            for (int q = from; q < k; q++) {
                part[q + 1] = q == exclude ? part[q] : part[q] + lamR[(slot0 + q) * L + y[q]];
            }
            z[t] = theta[off + t] + part[k];
            // next entry, last variable fastest
            int q = k - 1;
            while (q >= 0 && ++y[q] == labelsOf[graph.regionVariable(r, q)]) y[q--] = 0;
            from = Math.max(q, 0);
        }
    }

    /**
     * {@code out[outFrom + y] = eps * log sum_{t : y_p(t) = y} exp(z[t] / eps)} for each label y of
     * region r's p-th variable (stable; minus infinity when every such z is).
     */
    public void groupLse(int r, int p, double[] z, double eps, double[] out, int outFrom) {
        int stride = graph.regionStride(r, p), lp = labelsOf[graph.regionVariable(r, p)];
        int block = stride * lp, n = graph.regionEntries(r);
        for (int lab = 0; lab < lp; lab++) {
            double max = NEG_INF;
            for (int o = 0; o < n; o += block) {
                int b = o + lab * stride;
                for (int t = b; t < b + stride; t++) if (z[t] > max) max = z[t];
            }
            if (max == NEG_INF) {
                out[outFrom + lab] = NEG_INF;
                continue;
            }
            double sum = 0;
            for (int o = 0; o < n; o += block) {
                int b = o + lab * stride;
                for (int t = b; t < b + stride; t++) sum += Math.exp((z[t] - max) / eps);
            }
            out[outFrom + lab] = max + eps * Math.log(sum);
        }
    }

    /** eps * log sum_t exp(z[t] / eps) over {@code z[0..n)}; minus infinity when every z is. */
    public static double lse(double[] z, int n, double eps) {
        double max = NEG_INF;
        for (int t = 0; t < n; t++) if (z[t] > max) max = z[t];
        if (max == NEG_INF) return NEG_INF;
        double sum = 0;
        for (int t = 0; t < n; t++) sum += Math.exp((z[t] - max) / eps);
        return max + eps * Math.log(sum);
    }

    /** softmax(z / eps) over {@code z[0..n)} into {@code out[outFrom..]}; all zeros when every z is minus infinity. */
    public static void softmax(double[] z, int n, double eps, double[] out, int outFrom) {
        double max = NEG_INF;
        for (int t = 0; t < n; t++) if (z[t] > max) max = z[t];
        if (max == NEG_INF) {
            for (int t = 0; t < n; t++) out[outFrom + t] = 0;
            return;
        }
        double sum = 0;
        for (int t = 0; t < n; t++) sum += out[outFrom + t] = Math.exp((z[t] - max) / eps);
        for (int t = 0; t < n; t++) out[outFrom + t] /= sum;
    }
}
