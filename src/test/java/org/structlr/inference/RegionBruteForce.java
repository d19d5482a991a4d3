package org.structlr.inference;

import java.util.ArrayList;
import java.util.List;
import org.structlr.graph.FactorGraph;

/**
 * The smoothed dual, beliefs, primal and incoming sums of a model with regions straight from their
 * formulas (docs/design.md §1 with regions alpha of any size), independently of the engines and of
 * {@link RegionScores}: every region's labellings are enumerated one by one and each entry's index
 * computed here from the mixed radix of its variables' label counts.
 *
 * <pre>
 *   A = sum_a eps lse(theta_a + lambda_{a->i} + lambda_{a->j}) + sum_r eps lse_{y_r}(theta_r(y_r) + sum_{j in r} lambda_{r->j}(y_j))
 *     + sum_i eps lse_y(theta_i(y) - sum_{a ni i} lambda_{a->i}(y) - sum_{r ni i} lambda_{r->i}(y))
 * </pre>
 */
final class RegionBruteForce {
    private final RegionMessagePassingTest.Problem p;
    private final FactorGraph g;
    private final double[][][] lam;
    private final double[][] lamR;
    private final double eps;
    private final BruteForce pairs;

    RegionBruteForce(RegionMessagePassingTest.Problem p, double[][][] lam, double[][] lamR, double eps) {
        this.p = p;
        this.g = p.graph();
        this.lam = lam;
        this.lamR = lamR;
        this.eps = eps;
        this.pairs = new BruteForce(g, p.unary(), p.pairwise(), lam, eps);
    }

    /** Every labelling of region r's variables (in scope order), last fastest. */
    static List<int[]> scopeLabellings(FactorGraph g, int r) {
        int k = g.regionSize(r);
        List<int[]> out = new ArrayList<>();
        int[] y = new int[k];
        while (true) {
            out.add(y.clone());
            int q = k - 1;
            while (q >= 0 && ++y[q] == g.numLabels(g.regionVariable(r, q))) y[q--] = 0;
            if (q < 0) return out;
        }
    }

    /** The table index of the labels {@code y} (by variable) in region r: mixed radix, last variable fastest. */
    static int entry(FactorGraph g, int r, int[] y) {
        int t = 0;
        for (int q = 0; q < g.regionSize(r); q++) t = t * g.numLabels(g.regionVariable(r, q)) + y[g.regionVariable(r, q)];
        return t;
    }

    /** theta_r(y_r) + sum_j lambda_{r->j}(y_j) for every entry of region r, in table order. */
    double[] regionScores(int r) {
        List<int[]> labs = scopeLabellings(g, r);
        double[] z = new double[labs.size()];
        int[] y = new int[g.numVariables()];
        for (int[] lab : labs) {
            for (int q = 0; q < lab.length; q++) y[g.regionVariable(r, q)] = lab[q];
            int t = entry(g, r, y);
            double s = p.regions()[g.regionTableOffset(r) + t];
            for (int q = 0; q < lab.length; q++) s += lamR[g.regionSlot(r, q)][lab[q]];
            z[t] = s;
        }
        return z;
    }

    /** theta_i(y) - sum of every message into i, minus infinity when any term is. */
    double[] unaryScores(int i) {
        double[] u = pairs.unaryRegion(i);
        for (int r = 0; r < g.numRegions(); r++) {
            for (int q = 0; q < g.regionSize(r); q++) {
                if (g.regionVariable(r, q) != i) continue;
                for (int y = 0; y < u.length; y++) {
                    double l = lamR[g.regionSlot(r, q)][y];
                    u[y] = u[y] == Double.NEGATIVE_INFINITY || l == Double.NEGATIVE_INFINITY ? Double.NEGATIVE_INFINITY : u[y] - l;
                }
            }
        }
        return u;
    }

    double dual() {
        double d = 0;
        for (int a = 0; a < g.numEdges(); a++) d += pairs.epsLse(BruteForce.flatten(pairs.edgeRegion(a)));
        for (int r = 0; r < g.numRegions(); r++) d += pairs.epsLse(regionScores(r));
        for (int i = 0; i < g.numVariables(); i++) d += pairs.epsLse(unaryScores(i));
        return d;
    }

    double[][] unaryBeliefs() {
        double[][] b = new double[g.numVariables()][g.maxLabels()];
        for (int i = 0; i < b.length; i++) {
            double[] s = pairs.softmax(unaryScores(i));
            System.arraycopy(s, 0, b[i], 0, s.length);
        }
        return b;
    }

    double[][] pairBeliefs() {
        return pairs.pairBeliefs();
    }

    double[] regionBeliefs() {
        double[] b = new double[g.totalRegionEntries()];
        for (int r = 0; r < g.numRegions(); r++) {
            double[] s = pairs.softmax(regionScores(r));
            System.arraycopy(s, 0, b, g.regionTableOffset(r), s.length);
        }
        return b;
    }

    /** theta . b + eps * (sum of every region's entropy), 0 log 0 = 0. */
    double primal() {
        double[][] bu = unaryBeliefs(), bp = pairBeliefs();
        double[] br = regionBeliefs();
        int L = g.maxLabels();
        double s = 0;
        for (int i = 0; i < bu.length; i++) for (int y = 0; y < g.numLabels(i); y++) s += term(p.unary()[i][y], bu[i][y]);
        for (int a = 0; a < bp.length; a++) {
            for (int yi = 0; yi < g.numLabels(g.edgeFrom(a)); yi++) {
                for (int yj = 0; yj < g.numLabels(g.edgeTo(a)); yj++) s += term(p.pairwise()[a][yi * L + yj], bp[a][yi * L + yj]);
            }
        }
        for (int k = 0; k < br.length; k++) s += term(p.regions()[k], br[k]);
        return s;
    }

    private double term(double theta, double b) {
        return b > 0 ? b * theta - eps * b * Math.log(b) : 0;
    }

    double[][] incomingSums() {
        double[][] s = pairs.incomingSums();
        for (int r = 0; r < g.numRegions(); r++) {
            for (int q = 0; q < g.regionSize(r); q++) {
                int v = g.regionVariable(r, q);
                for (int y = 0; y < g.numLabels(v); y++) s[v][y] += lamR[g.regionSlot(r, q)][y];
            }
        }
        return s;
    }

    /** eps * sum over every factor (variables, edges, regions) of log(its number of joint labels). */
    static double theorem1Bound(FactorGraph g, double eps) {
        double s = BruteForce.theorem1Bound(g, 1.0);
        for (int r = 0; r < g.numRegions(); r++) s += Math.log(g.regionEntries(r));
        return eps * s;
    }
}
