package org.structlr.oracle.linear;

/**
 * Limited-memory BFGS (Nocedal and Wright, Numerical Optimization, Alg. 7.4 two-loop recursion
 * and Alg. 7.5) with a backtracking Armijo line search, in double precision, for the smooth convex
 * problems of the oracles. Every accepted step decreases the objective; a pair (s, y) enters the
 * memory only when s . y > 0, so the implicit Hessian stays positive definite.
 *
 * <p>Stops at the first of: {@code max |grad| <= gradTolerance} (converged); a step that decreases f
 * by at most {@code relDecrease * max(1, |f|)} (converged: f has stopped improving, the test of
 * L-BFGS-B's {@code factr}); {@code maxIterations} steps; no step along the search direction that
 * decreases f. A warm start near the optimum (the learner's late iterations, when the messages have
 * settled) thus costs a few steps rather than the many it takes to push the gradient down to a
 * tolerance that the loss can no longer resolve.
 */
public final class Lbfgs {

    /** f(w); writes the gradient into {@code grad}. */
    public interface Objective {
        double valueAndGradient(double[] w, double[] grad);
    }

    /** What a run did. */
    public record Result(int iterations, int evaluations, double value, double gradMax, boolean converged) {
    }

    private Lbfgs() {
    }

    /** Minimises from {@code w} (updated in place) with the gradient test only (no decrease test). */
    public static Result minimise(Objective f, double[] w, double gradTolerance, int maxIterations, int memory) {
        return minimise(f, w, gradTolerance, 0, maxIterations, memory);
    }

    /** Minimises from {@code w} (updated in place); see the class comment for when it stops. */
    public static Result minimise(Objective f, double[] w, double gradTolerance, double relDecrease, int maxIterations, int memory) {
        int m = w.length;
        double[] g = new double[m];
        double fx = f.valueAndGradient(w, g);
        int evaluations = 1;
        boolean stalled = false;
        double[][] s = new double[memory][];
        double[][] y = new double[memory][];
        double[] rho = new double[memory];
        double[] alpha = new double[memory];
        int stored = 0, newest = -1;
        double[] d = new double[m];
        double[] wTrial = new double[m];
        double[] gTrial = new double[m];
        double[] sTmp = new double[m];
        double[] yTmp = new double[m];
        int it = 0;
        double gmax = maxAbs(g);
        while (gmax > gradTolerance && !stalled && it < maxIterations) {
            // two-loop recursion: d = -H g
            for (int i = 0; i < m; i++) d[i] = -g[i];
            for (int k = 0, idx = newest; k < stored; k++, idx = (idx - 1 + memory) % memory) {
                alpha[idx] = rho[idx] * dot(s[idx], d);
                axpy(-alpha[idx], y[idx], d);
            }
            double gamma = stored > 0 ? dot(s[newest], y[newest]) / dot(y[newest], y[newest]) : 1.0 / Math.max(1, gmax);
            for (int i = 0; i < m; i++) d[i] *= gamma;
            for (int k = 0, idx = (newest - stored + 1 + memory) % memory; k < stored; k++, idx = (idx + 1) % memory) {
                double beta = rho[idx] * dot(y[idx], d);
                axpy(alpha[idx] - beta, s[idx], d);
            }
            double slope = dot(d, g);
            if (!(slope < 0)) {                       // lost descent (rounding): restart from -g
                stored = 0;
                for (int i = 0; i < m; i++) d[i] = -g[i] / Math.max(1, gmax);
                slope = dot(d, g);
            }
            double t = 1;
            double fTrial = Double.NaN;
            boolean accepted = false;
            for (int ls = 0; ls < 40; ls++) {
                for (int i = 0; i < m; i++) wTrial[i] = w[i] + t * d[i];
                fTrial = f.valueAndGradient(wTrial, gTrial);
                evaluations++;
                if (fTrial <= fx + 1e-4 * t * slope) {
                    accepted = true;
                    break;
                }
                t *= 0.5;
            }
            if (!accepted) {
                if (stored == 0) break;               // even steepest descent cannot decrease f
                stored = 0;                           // drop the memory and try steepest descent
                continue;
            }
            for (int i = 0; i < m; i++) {
                sTmp[i] = wTrial[i] - w[i];
                yTmp[i] = gTrial[i] - g[i];
            }
            double sy = dot(sTmp, yTmp);
            if (sy > 1e-300) {                        // keep the pair only with positive curvature
                newest = (newest + 1) % memory;
                s[newest] = sTmp.clone();
                y[newest] = yTmp.clone();
                rho[newest] = 1 / sy;
                stored = Math.min(stored + 1, memory);
            }
            System.arraycopy(wTrial, 0, w, 0, m);
            System.arraycopy(gTrial, 0, g, 0, m);
            stalled = fx - fTrial <= relDecrease * Math.max(1, Math.abs(fTrial));
            fx = fTrial;
            gmax = maxAbs(g);
            it++;
        }
        return new Result(it, evaluations, fx, gmax, gmax <= gradTolerance || stalled);
    }

    private static double dot(double[] a, double[] b) {
        double s = 0;
        for (int i = 0; i < a.length; i++) s += a[i] * b[i];
        return s;
    }

    private static void axpy(double a, double[] x, double[] y) {
        for (int i = 0; i < x.length; i++) y[i] += a * x[i];
    }

    private static double maxAbs(double[] a) {
        double m = 0;
        for (double v : a) m = Math.max(m, Math.abs(v));
        return m;
    }
}
