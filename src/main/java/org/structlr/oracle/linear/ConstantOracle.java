package org.structlr.oracle.linear;

import org.structlr.oracle.BiasedLogisticLoss;
import org.structlr.oracle.BiasedLogisticProblem;
import org.structlr.oracle.RowTargets;
import org.structlr.oracle.Oracle;
import org.structlr.oracle.ScoreFunction;
import org.structlr.oracle.ScoreFunctions;
import org.structlr.oracle.ZeroScore;

/**
 * The constant function class, g(phi, c) = w_c, fitted exactly by damped Newton on the C weights.
 *
 * <p>With p_n = softmax(w + b_n) the negative objective L(w) = sum_n [lse(w + b_n) - w_{y_n} - b_{n,y_n}]
 * has gradient {@code sum_n p_n - counts} and Hessian {@code sum_n diag(p_n) - p_n p_n^T} (rows'
 * terms from {@link BiasedLogisticLoss}, so weighted rows and soft targets fit too). L is
 * invariant to adding a constant to every w_c, so the Hessian is singular along the all-ones vector;
 * the step solves {@code (H + h 11^T) d = -grad} (h = mean diagonal of H), whose solution has
 * {@code sum_c d_c = 0} (the gradient sums to 0), i.e. it is the Newton step within the gauge that
 * keeps {@code sum_c w_c} where it started (0 from scratch). A backtracking line search (Armijo,
 * halving) makes every step decrease L, so a warm-started fit never increases the loss. Stops when
 * {@code max_c |grad_c| / N <= gradTolerance} or after {@code maxIterations} steps. With b = 0 the
 * optimum is the closed form w_c = log(count_c / N) (+ a constant); a class that never occurs (and
 * is not helped by the bias) drifts towards minus infinity until the iteration limit.
 */
public final class ConstantOracle implements Oracle {

    private final double gradTolerance;
    private final int maxIterations;

    /**
     * Gradient tolerance 1e-10 (per row), at most 100 Newton steps. The loop also ends when the line
     * search only accepts a step below 1e-6: measured on 158k pairwise rows, the loss stops changing
     * representably near a per-row gradient of 2e-9, and without that exit the whole step budget went
     * to line searches (17 s per fit instead of 0.15 s).
     */
    public ConstantOracle() {
        this(1e-10, 100);
    }

    public ConstantOracle(double gradTolerance, int maxIterations) {
        if (!(gradTolerance >= 0) || maxIterations < 1) {
            throw new IllegalArgumentException("constant oracle: need gradTolerance >= 0 and maxIterations >= 1");
        }
        this.gradTolerance = gradTolerance;
        this.maxIterations = maxIterations;
    }

    @Override
    public ScoreFunction fit(BiasedLogisticProblem p, ScoreFunction previous) {
        ScoreFunctions.checkClasses(previous, p, "constant oracle");
        int c = p.numClasses();
        double[] w = start(previous, c);
        double[] b = BiasedLogisticProblem.flatDouble(p.bias());
        RowTargets t = p.targets();
        return fit(c, t.totalWeight(), w, (v, g, h) -> loss(v, b, t, g, h));
    }

    /**
     * Hook for fitting rows held elsewhere (the Spark learner sums per-partition {@link #loss} terms):
     * the same damped Newton from {@code w} (not modified) on rows of total weight {@code n} (their
     * number unless weighted), where {@code total} gives L(w) summed over all rows with its gradient
     * and, when asked, its C x C Hessian (row-major).
     */
    public ConstantScore fit(int c, double n, double[] w0, SecondOrderObjective total) {
        double[] w = w0.clone();
        double[] grad = new double[c];
        double[] hess = new double[c * c];
        double[] trial = new double[c];
        double loss = total.valueGradientHessian(w, grad, hess);
        for (int it = 0; it < maxIterations; it++) {
            double gmax = 0;
            for (double g : grad) gmax = Math.max(gmax, Math.abs(g));
            if (gmax / n <= gradTolerance) break;
            double diag = 0;
            for (int k = 0; k < c; k++) diag += hess[k * c + k];
            diag = Math.max(diag / c, 1e-300);
            double[][] a = new double[c][c];
            double[] rhs = new double[c];
            for (int i = 0; i < c; i++) {
                for (int j = 0; j < c; j++) a[i][j] = hess[i * c + j] + diag;
                a[i][i] += 1e-12 * diag;
                rhs[i] = -grad[i];
            }
            double[] d = solve(a, rhs);
            double slope = 0;
            if (d != null) for (int k = 0; k < c; k++) slope += d[k] * grad[k];
            if (d == null || !(slope < 0)) {              // not a descent direction: fall back to -grad
                d = rhs;
                slope = 0;
                for (int k = 0; k < c; k++) slope -= grad[k] * grad[k];
            }
            double t = 1;
            boolean accepted = false;
            for (int ls = 0; ls < 60; ls++) {
                for (int k = 0; k < c; k++) trial[k] = w[k] + t * d[k];
                double trialLoss = total.valueGradientHessian(trial, null, null);
                if (trialLoss <= loss + 1e-4 * t * slope) {
                    accepted = true;
                    break;
                }
                t *= 0.5;
            }
            if (!accepted || t < 1e-6) break;               // no further decrease representable
            System.arraycopy(trial, 0, w, 0, c);
            loss = total.valueGradientHessian(w, grad, hess);
        }
        return new ConstantScore(w);
    }

    /** Where a fit continues from: the previous weights, or zeros after nothing or the zero function (hook for the Spark learner). */
    public static double[] start(ScoreFunction previous, int c) {
        if (previous == null || previous instanceof ZeroScore) return new double[c];
        if (previous instanceof ConstantScore cs) return cs.weights();
        throw new IllegalArgumentException("constant oracle: cannot continue from a " + previous.kind() + " function");
    }

    /**
     * L(w) summed over the rows (bias b row-major [n, C], targets t); fills grad (C) and hess (C x C,
     * row-major) when they are non-null: per row ({@link BiasedLogisticLoss#row}) the residual
     * W p - T and W (diag p - p p^T). Public for the Spark learner's per-partition sums.
     */
    public static double loss(double[] w, double[] b, RowTargets t, double[] grad, double[] hess) {
        int c = w.length;
        double[] z = new double[c], pr = new double[c], r = grad == null ? null : new double[c];
        if (grad != null) java.util.Arrays.fill(grad, 0);
        if (hess != null) java.util.Arrays.fill(hess, 0);
        double total = 0;
        for (int i = 0; i < t.numRows(); i++) {
            int o = i * c;
            for (int k = 0; k < c; k++) z[k] = w[k] + b[o + k];
            total += BiasedLogisticLoss.row(t, i, z, 0, pr, r);
            if (grad == null) continue;
            for (int k = 0; k < c; k++) grad[k] += r[k];
            if (hess == null) continue;
            double wi = t.weight(i);
            for (int k = 0; k < c; k++) {
                hess[k * c + k] += wi * pr[k];
                for (int j = 0; j < c; j++) hess[k * c + j] -= wi * pr[k] * pr[j];
            }
        }
        return total;
    }

    /** Gaussian elimination with partial pivoting; null when singular. */
    static double[] solve(double[][] a, double[] rhs) {
        int n = rhs.length;
        double[][] m = new double[n][];
        for (int i = 0; i < n; i++) m[i] = a[i].clone();
        double[] x = rhs.clone();
        for (int col = 0; col < n; col++) {
            int piv = col;
            for (int r = col + 1; r < n; r++) if (Math.abs(m[r][col]) > Math.abs(m[piv][col])) piv = r;
            if (m[piv][col] == 0 || !Double.isFinite(m[piv][col])) return null;
            double[] tr = m[piv]; m[piv] = m[col]; m[col] = tr;
            double tx = x[piv]; x[piv] = x[col]; x[col] = tx;
            for (int r = col + 1; r < n; r++) {
                double f = m[r][col] / m[col][col];
                if (f == 0) continue;
                for (int k = col; k < n; k++) m[r][k] -= f * m[col][k];
                x[r] -= f * x[col];
            }
        }
        for (int r = n - 1; r >= 0; r--) {
            double s = x[r];
            for (int k = r + 1; k < n; k++) s -= m[r][k] * x[k];
            x[r] = s / m[r][r];
        }
        for (double v : x) if (!Double.isFinite(v)) return null;
        return x;
    }

    @Override
    public String describe() {
        return "constant (damped Newton, grad tol " + gradTolerance + " per row, <= " + maxIterations + " steps)";
    }
}
