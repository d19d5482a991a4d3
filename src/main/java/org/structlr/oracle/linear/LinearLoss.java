package org.structlr.oracle.linear;

import org.structlr.oracle.BiasedLogisticLoss;
import org.structlr.oracle.BiasedLogisticProblem;
import org.structlr.oracle.RowTargets;

import java.util.Arrays;

/**
 * The mean biased logistic loss of the linear class and its gradient, for {@link Lbfgs}:
 * <pre>
 *   f(W) = (1/N) sum_n [ lse_c(s_nc) - s_{n,y_n} ],   s_n = x_n W + b_n
 *   df/dW_jc = (1/N) sum_n x_nj (softmax(s_n)_c - [c = y_n])
 *   d2f/dW_jc dW_j'c' = (1/N) sum_n x_nj x_nj' (p_nc [c = c'] - p_nc p_nc'),   p_n = softmax(s_n)
 * </pre>
 * each row's loss and residual softmax(s_n) - [c = y_n] from {@link BiasedLogisticLoss} (so weighted
 * rows and soft targets fit too; N is then the rows' total weight),
 * over fixed blocks of {@link #BLOCK_ROWS} rows on {@link RowBlocks}, in double precision from the
 * float features and bias. Each block writes its own partial loss and gradient; the partials are
 * added in block order, so the result is the same bits for every thread count.
 *
 * <p>Plain loops rather than ND4J's X W and X^T R: for the oracles' narrow problems (a few features,
 * 2-25 classes) the work is the exp and log per row, which these loops do in one pass without
 * allocating, and ND4J's matrix products run on OpenMP threads that spin-wait on a busy machine.
 */
public final class LinearLoss implements SecondOrderObjective {
    /** Rows per block: small enough to balance two to eight threads on 100k+ rows, large enough to amortise a task. */
    static final int BLOCK_ROWS = 8192;

    private final float[] x;      // [N, D] row-major
    private final float[] b;      // [N, C] row-major
    private final RowTargets t;
    private final int n, d, c, threads;
    private final double[] blockLoss;
    private final double[][] blockGrad;
    private double[][] blockHess;             // built on the first Hessian request

    LinearLoss(float[] x, float[] b, RowTargets t, int d, int c, int threads) {
        this.n = t.numRows();
        if (x.length != (long) n * d || b.length != (long) n * c) throw new IllegalArgumentException("features or bias do not match " + n + " rows");
        this.x = x;
        this.b = b;
        this.t = t;
        this.d = d;
        this.c = c;
        this.threads = Math.max(1, threads);
        int blocks = RowBlocks.count(n, BLOCK_ROWS);
        blockLoss = new double[blocks];
        blockGrad = new double[blocks][d * c];
    }

    public static LinearLoss of(BiasedLogisticProblem p, int threads) {
        return new LinearLoss(BiasedLogisticProblem.flatFloat(p.features()), BiasedLogisticProblem.flatFloat(p.bias()), p.targets(),
                p.numFeatures(), p.numClasses(), threads);
    }

    public int numRows() {
        return n;
    }

    int numParameters() {
        return d * c;
    }

    @Override
    public double valueAndGradient(double[] w, double[] grad) {
        return valueGradientHessian(w, grad, null);
    }

    /**
     * f(w); writes the gradient into {@code grad} and, when {@code hess} is not null, the Hessian
     * into it ({@code [m * m]} row-major, m = D * C, index j * C + c) in the same pass.
     */
    @Override
    public double valueGradientHessian(double[] w, double[] grad, double[] hess) {
        int m = d * c;
        if (hess != null && blockHess == null) blockHess = new double[blockLoss.length][m * m];
        if (c == 2 && hess == null) {
            double[] wd = new double[d];                      // w_j1 - w_j0: the two-class loss sees only the difference
            for (int j = 0; j < d; j++) wd[j] = w[2 * j + 1] - w[2 * j];
            RowBlocks.run(blockLoss.length, threads, k -> blockLoss[k] = binaryBlock(k, wd, blockGrad[k]));
        } else {
            RowBlocks.run(blockLoss.length, threads, k -> blockLoss[k] = block(k, w, blockGrad[k], hess == null ? null : blockHess[k]));
        }
        Arrays.fill(grad, 0, m, 0);
        if (hess != null) Arrays.fill(hess, 0, m * m, 0);
        double total = 0;
        for (int k = 0; k < blockLoss.length; k++) {
            total += blockLoss[k];
            double[] g = blockGrad[k];
            for (int i = 0; i < m; i++) grad[i] += g[i];
            if (hess != null) {
                double[] h = blockHess[k];
                for (int i = 0; i < m * m; i++) hess[i] += h[i];
            }
        }
        double weight = t.totalWeight();   // n unless weighted
        for (int i = 0; i < m; i++) grad[i] /= weight;
        if (hess != null) for (int i = 0; i < m * m; i++) hess[i] /= weight;
        return total / weight;
    }

    /**
     * {@link #block} for two classes, in the logistic form with one score per row (the horses'
     * unary problem, 42 features: a third of the general loop's work):
     * <pre>
     *   z_n = (b_n1 - b_n0) + x_n . (w_1 - w_0),   loss_n and r_n = d loss_n / d z_n by {@link BiasedLogisticLoss#binaryRow},
     *   df/dW_j1 = -df/dW_j0 = (1/N) sum_n x_nj r_n
     * </pre>
     * The dot product keeps four partial sums (one chain of 42 dependent additions was the loop's bound).
     */
    private double binaryBlock(int k, double[] wd, double[] g) {
        double[] gd = new double[d], res = new double[1];
        int lo = k * BLOCK_ROWS, hi = Math.min(n, lo + BLOCK_ROWS);
        int d4 = d & ~3;
        double total = 0;
        for (int i = lo; i < hi; i++) {
            int xo = i * d;
            double a0 = 0, a1 = 0, a2 = 0, a3 = 0;
            int j = 0;
            for (; j < d4; j += 4) {
                a0 += x[xo + j] * wd[j];
                a1 += x[xo + j + 1] * wd[j + 1];
                a2 += x[xo + j + 2] * wd[j + 2];
                a3 += x[xo + j + 3] * wd[j + 3];
            }
            for (; j < d; j++) a0 += x[xo + j] * wd[j];
            double z = ((double) b[2 * i + 1] - b[2 * i]) + ((a0 + a1) + (a2 + a3));
            total += BiasedLogisticLoss.binaryRow(t, i, z, res);
            double r = res[0];
            if (r == 0) continue;
            for (j = 0; j < d; j++) gd[j] += x[xo + j] * r;
        }
        for (int j = 0; j < d; j++) {
            g[2 * j] = -gd[j];
            g[2 * j + 1] = gd[j];
        }
        return total;
    }

    /** Loss summed over the rows of block k; writes their summed gradient into g and (when not null) Hessian into h. */
    private double block(int k, double[] w, double[] g, double[] h) {
        Arrays.fill(g, 0);
        if (h != null) Arrays.fill(h, 0);
        int m = d * c;
        double[] s = new double[c], r = new double[c];
        int lo = k * BLOCK_ROWS, hi = Math.min(n, lo + BLOCK_ROWS);
        double total = 0;
        for (int i = lo; i < hi; i++) {
            int xo = i * d, bo = i * c;
            for (int cl = 0; cl < c; cl++) {
                double v = b[bo + cl];
                for (int j = 0; j < d; j++) v += x[xo + j] * w[j * c + cl];
                s[cl] = v;
            }
            total += BiasedLogisticLoss.row(t, i, s, 0, s, r);      // s becomes p_n, r the residual
            for (int cl = 0; cl < c; cl++) {
                if (r[cl] == 0) continue;
                for (int j = 0; j < d; j++) g[j * c + cl] += x[xo + j] * r[cl];
            }
            if (h != null) {
                double wi = t.weight(i);
                // upper triangle of (x x^T) (x) (diag p - p p^T); mirrored below after the block
                for (int j = 0; j < d; j++) {
                    double xj = wi * x[xo + j];
                    if (xj == 0) continue;
                    for (int cl = 0; cl < c; cl++) {
                        double a = xj * s[cl];
                        int row = (j * c + cl) * m;
                        for (int j2 = j; j2 < d; j2++) {
                            double ax = a * x[xo + j2];
                            int base = row + j2 * c;
                            for (int c2 = j2 == j ? cl : 0; c2 < c; c2++) h[base + c2] += ax * ((c2 == cl ? 1 : 0) - s[c2]);
                        }
                    }
                }
            }
        }
        if (h != null) for (int i = 0; i < m; i++) for (int j = 0; j < i; j++) h[i * m + j] = h[j * m + i];
        return total;
    }
}
