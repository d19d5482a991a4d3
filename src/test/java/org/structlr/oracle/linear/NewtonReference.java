package org.structlr.oracle.linear;

/**
 * An independent float64 Newton solver for the linear biased logistic regression g = X W, written
 * for the tests only. The loss is invariant to adding one vector to every class's column of W; the
 * solver minimises L(W) + (mu/2) sum_j (sum_c W_jc)^2, whose minimiser is the optimum of L with
 * sum_c W_jc = 0 for every feature j.
 */
final class NewtonReference {

    private NewtonReference() {
    }

    /** W as [d][c]. */
    static double[][] solve(double[] x, int[] y, double[] b, int n, int d, int c) {
        int m = d * c;
        double[] w = new double[m];       // index j * c + k
        double mu = 1.0;
        for (int it = 0; it < 100; it++) {
            double[] g = new double[m];
            double[][] h = new double[m][m];
            double[] pr = new double[c];
            for (int i = 0; i < n; i++) {
                double max = Double.NEGATIVE_INFINITY;
                for (int k = 0; k < c; k++) {
                    double s = b[i * c + k];
                    for (int j = 0; j < d; j++) s += x[i * d + j] * w[j * c + k];
                    pr[k] = s;
                    max = Math.max(max, s);
                }
                double sum = 0;
                for (int k = 0; k < c; k++) sum += (pr[k] = Math.exp(pr[k] - max));
                for (int k = 0; k < c; k++) pr[k] /= sum;
                for (int j = 0; j < d; j++) {
                    for (int k = 0; k < c; k++) {
                        g[j * c + k] += x[i * d + j] * (pr[k] - (y[i] == k ? 1 : 0));
                        for (int j2 = 0; j2 < d; j2++) {
                            for (int k2 = 0; k2 < c; k2++) {
                                double hk = (k == k2 ? pr[k] : 0) - pr[k] * pr[k2];
                                h[j * c + k][j2 * c + k2] += x[i * d + j] * x[i * d + j2] * hk;
                            }
                        }
                    }
                }
            }
            for (int j = 0; j < d; j++) {
                double s = 0;
                for (int k = 0; k < c; k++) s += w[j * c + k];
                for (int k = 0; k < c; k++) {
                    g[j * c + k] += mu * s;
                    for (int k2 = 0; k2 < c; k2++) h[j * c + k][j * c + k2] += mu;
                }
            }
            double gmax = 0;
            for (double v : g) gmax = Math.max(gmax, Math.abs(v));
            if (gmax < 1e-12 * n) break;
            double[] neg = new double[m];
            for (int i = 0; i < m; i++) neg[i] = -g[i];
            double[] step = ConstantOracleTest.gauss(h, neg);
            for (int i = 0; i < m; i++) w[i] += step[i];
        }
        double[][] out = new double[d][c];
        for (int j = 0; j < d; j++) for (int k = 0; k < c; k++) out[j][k] = w[j * c + k];
        return out;
    }
}
