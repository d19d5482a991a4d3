package org.structlr.oracle.linear;

/**
 * Damped Newton on {@link LinearLoss}, for the linear class with few parameters (D * C up to
 * {@link #MAX_PARAMETERS}): one pass over the rows gives loss, gradient and Hessian, and from a warm
 * start near the optimum one or two steps end the fit, where L-BFGS, which learns the curvature
 * anew in every fit, took 25-60 loss evaluations on the denoising set's pairwise problems.
 *
 * <p>The loss is invariant to adding one vector to every class's column of W (for each feature j,
 * the direction e_j (x) 1_C), so the Hessian is singular along those D directions. The step solves
 * {@code (H + h P) d = -g}, P = sum_j (e_j (x) 1)(e_j (x) 1)^T, h = mean diagonal of H; the gradient
 * is orthogonal to those directions, so d is too: the Newton step in the gauge that keeps
 * sum_c W_jc where it started (0 from scratch), as {@link ConstantOracle} does for D = 1. Armijo
 * backtracking makes every accepted step decrease f. Stops like {@link Lbfgs}: max |grad| at most
 * {@code gradTolerance}, a decrease of at most {@code relDecrease * max(1, |f|)}, the step limit, or
 * no decreasing step.
 */
final class LinearNewton {
    /** Above this many parameters the m^2 Hessian per row costs more than L-BFGS's extra passes. */
    static final int MAX_PARAMETERS = 36;

    private LinearNewton() {}

    static Lbfgs.Result minimise(SecondOrderObjective f, double[] w, int d, int c, double gradTolerance, double relDecrease, int maxIterations) {
        int m = d * c;
        double[] g = new double[m], h = new double[m * m], gTrial = new double[m], hTrial = new double[m * m], trial = new double[m];
        double fx = f.valueGradientHessian(w, g, h);
        int evaluations = 1, it = 0;
        double gmax = maxAbs(g);
        boolean stalled = false;
        while (gmax > gradTolerance && !stalled && it < maxIterations) {
            double diag = 0;
            for (int i = 0; i < m; i++) diag += h[i * m + i];
            diag = Math.max(diag / m, 1e-300);
            double[][] a = new double[m][m];
            double[] rhs = new double[m];
            for (int i = 0; i < m; i++) {
                for (int k = 0; k < m; k++) a[i][k] = h[i * m + k] + (i / c == k / c ? diag : 0);
                a[i][i] += 1e-12 * diag;
                rhs[i] = -g[i];
            }
            double[] step = ConstantOracle.solve(a, rhs);
            double slope = 0;
            if (step != null) for (int i = 0; i < m; i++) slope += step[i] * g[i];
            if (step == null || !(slope < 0)) {                 // not a descent direction: steepest descent
                step = rhs;
                slope = 0;
                for (int i = 0; i < m; i++) slope -= g[i] * g[i];
            }
            double t = 1, fTrial = Double.NaN;
            boolean accepted = false;
            for (int ls = 0; ls < 40; ls++) {
                for (int i = 0; i < m; i++) trial[i] = w[i] + t * step[i];
                fTrial = f.valueGradientHessian(trial, gTrial, hTrial);
                evaluations++;
                if (fTrial <= fx + 1e-4 * t * slope) {
                    accepted = true;
                    break;
                }
                t *= 0.5;
            }
            if (!accepted) break;                                // no decrease representable
            stalled = fx - fTrial <= relDecrease * Math.max(1, Math.abs(fTrial));
            System.arraycopy(trial, 0, w, 0, m);
            double[] sw = g; g = gTrial; gTrial = sw;
            sw = h; h = hTrial; hTrial = sw;
            fx = fTrial;
            gmax = maxAbs(g);
            it++;
        }
        return new Lbfgs.Result(it, evaluations, fx, gmax, gmax <= gradTolerance || stalled);
    }

    private static double maxAbs(double[] a) {
        double m = 0;
        for (double v : a) m = Math.max(m, Math.abs(v));
        return m;
    }
}
