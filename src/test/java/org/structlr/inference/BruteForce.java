package org.structlr.inference;

import org.structlr.graph.FactorGraph;

/**
 * The smoothed dual, the beliefs and the primal evaluated straight from their formulas (docs/design.md §1),
 * region by region, in double, independently of every engine. Only labels a variable has are
 * visited. Minus infinity convention: the unary region's value theta_i(y) - sum_a lambda_{a->i}(y)
 * is minus infinity when theta_i(y) or any incoming message is (an impossible label).
 */
public final class BruteForce {
    public final FactorGraph g;
    public final double[][] unary, pairwise;
    public final double[][][] lam;
    public final double eps;
    public final int L;

    public BruteForce(FactorGraph g, double[][] unary, double[][] pairwise, double[][][] lam, double eps) {
        this.g = g;
        this.unary = unary;
        this.pairwise = pairwise;
        this.lam = lam;
        this.eps = eps;
        this.L = g.maxLabels();
    }

    /** theta_i(y) - sum_{a contains i} lambda_{a->i}(y) for the labels of i. */
    public double[] unaryRegion(int i) {
        double[] r = new double[g.numLabels(i)];
        for (int y = 0; y < r.length; y++) r[y] = unary[i][y];
        for (int a = 0; a < g.numEdges(); a++) {
            for (int s = 0; s < 2; s++) {
                if ((s == 0 ? g.edgeFrom(a) : g.edgeTo(a)) != i) continue;
                for (int y = 0; y < r.length; y++) {
                    r[y] = (r[y] == Double.NEGATIVE_INFINITY || lam[a][s][y] == Double.NEGATIVE_INFINITY)
                            ? Double.NEGATIVE_INFINITY : r[y] - lam[a][s][y];
                }
            }
        }
        return r;
    }

    /** theta_a(y_i, y_j) + lambda_{a->i}(y_i) + lambda_{a->j}(y_j), as [L_i][L_j]. */
    public double[][] edgeRegion(int a) {
        int li = g.numLabels(g.edgeFrom(a)), lj = g.numLabels(g.edgeTo(a));
        double[][] r = new double[li][lj];
        for (int yi = 0; yi < li; yi++) {
            for (int yj = 0; yj < lj; yj++) r[yi][yj] = pairwise[a][yi * L + yj] + lam[a][0][yi] + lam[a][1][yj];
        }
        return r;
    }

    /** eps * log sum exp(x / eps). */
    public double epsLse(double[] x) {
        double m = Double.NEGATIVE_INFINITY;
        for (double v : x) m = Math.max(m, v);
        if (m == Double.NEGATIVE_INFINITY) return m;
        double s = 0;
        for (double v : x) s += Math.exp((v - m) / eps);
        return m + eps * Math.log(s);
    }

    public static double[] flatten(double[][] x) {
        int n = 0;
        for (double[] r : x) n += r.length;
        double[] f = new double[n];
        int k = 0;
        for (double[] r : x) for (double v : r) f[k++] = v;
        return f;
    }

    public double[] softmax(double[] x) {
        double lse = epsLse(x);
        double[] p = new double[x.length];
        for (int k = 0; k < x.length; k++) p[k] = x[k] == Double.NEGATIVE_INFINITY ? 0 : Math.exp((x[k] - lse) / eps);
        return p;
    }

    public double dual() {
        double d = 0;
        for (int a = 0; a < g.numEdges(); a++) d += epsLse(flatten(edgeRegion(a)));
        for (int i = 0; i < g.numVariables(); i++) d += epsLse(unaryRegion(i));
        return d;
    }

    /** [V][L], 0 on labels a variable does not have. */
    public double[][] unaryBeliefs() {
        double[][] b = new double[g.numVariables()][L];
        for (int i = 0; i < b.length; i++) {
            double[] p = softmax(unaryRegion(i));
            System.arraycopy(p, 0, b[i], 0, p.length);
        }
        return b;
    }

    /** [E][L*L] at y_i*L + y_j, 0 outside the labels of the edge's ends. */
    public double[][] pairBeliefs() {
        double[][] b = new double[g.numEdges()][L * L];
        for (int a = 0; a < b.length; a++) {
            int lj = g.numLabels(g.edgeTo(a));
            double[] p = softmax(flatten(edgeRegion(a)));
            for (int k = 0; k < p.length; k++) b[a][(k / lj) * L + k % lj] = p[k];
        }
        return b;
    }

    /** sum theta . b + eps * (sum_i H(b_i) + sum_a H(b_a)), with 0 * log 0 = 0 and 0 * (-inf) = 0. */
    public double primal() {
        double[][] bu = unaryBeliefs(), bp = pairBeliefs();
        double p = 0;
        for (int i = 0; i < bu.length; i++) {
            for (int y = 0; y < g.numLabels(i); y++) {
                if (bu[i][y] > 0) p += unary[i][y] * bu[i][y] - eps * bu[i][y] * Math.log(bu[i][y]);
            }
        }
        for (int a = 0; a < bp.length; a++) {
            for (int yi = 0; yi < g.numLabels(g.edgeFrom(a)); yi++) {
                for (int yj = 0; yj < g.numLabels(g.edgeTo(a)); yj++) {
                    double b = bp[a][yi * L + yj];
                    if (b > 0) p += pairwise[a][yi * L + yj] * b - eps * b * Math.log(b);
                }
            }
        }
        return p;
    }

    /** [V][L] sum over edges containing i of lambda_{a->i}(y), on the labels of i. */
    public double[][] incomingSums() {
        double[][] s = new double[g.numVariables()][L];
        for (int a = 0; a < g.numEdges(); a++) {
            for (int y = 0; y < g.numLabels(g.edgeFrom(a)); y++) s[g.edgeFrom(a)][y] += lam[a][0][y];
            for (int y = 0; y < g.numLabels(g.edgeTo(a)); y++) s[g.edgeTo(a)][y] += lam[a][1][y];
        }
        return s;
    }

    /** eps * sum over all regions of log(number of joint labels): Theorem 1's bound. */
    public static double theorem1Bound(FactorGraph g, double eps) {
        double s = 0;
        for (int i = 0; i < g.numVariables(); i++) s += Math.log(g.numLabels(i));
        for (int a = 0; a < g.numEdges(); a++) s += Math.log((double) g.numLabels(g.edgeFrom(a)) * g.numLabels(g.edgeTo(a)));
        return eps * s;
    }
}
