package org.structlr.learn;

import org.structlr.graph.FactorGraph;

/**
 * The objective R restricted to a low-dimensional affine subspace x1 + sum_k b_k d_k of
 * (potentials, messages), with its value, gradient and Hessian in b from one pass over the regions,
 * computed from flat arrays without touching an inference engine (docs/design.md §1):
 * <pre>
 *   R(b) = eps sum_r lse(z_r(b) / eps) - F(b),   z_r(b) = z_r + sum_k b_k dz_r^k
 *   edge region a=(i,j):  z_a(yi, yj) = theta_a(yi, yj) + lambda_{a->i}(yi) + lambda_{a->j}(yj)
 *   variable region i:    z_i(y)      = theta_i(y) - sum_{a ∋ i} lambda_{a->i}(y)
 *   F(b) = F(x1) + sum_k b_k dF^k      (F: the potentials at the true labels, linear in them)
 *   dR/db_k        = sum_r E_p[dz^k] - dF^k                     (p = softmax(z_r(b) / eps))
 *   d2R/db_k db_l  = (1/eps) sum_r Cov_p(dz^k, dz^l)
 * </pre>
 * R is convex in b (log-sum-exp of affine functions minus a linear term), so Newton steps with
 * backtracking on R find its minimum over the subspace in a few passes.
 *
 * <p>Why by hand rather than through the engine: trying a point through {@code setPotentials},
 * {@code setMessages} and {@code dual()} re-lays out the whole engine per trial (as costly as the
 * fits extrapolation saves), and gives only a value, so the step size had to be guessed (doubling);
 * here one pass gives the Newton step in all k directions at once.
 *
 * <p>Impossible entries (a minus-infinity potential or message, a label a variable does not have)
 * stay impossible along every direction (their exp is 0 everywhere).
 */
public final class SubspaceObjective implements java.io.Serializable {
    private final double eps;
    private final int m;
    /** Region logits at x1 and their derivatives per direction; edges (L*L each) then variables (L each). */
    private final float[] z;
    private final float[][] dz;
    private final int edges, L;
    private final double f1;
    private final double[] dF;

    /** R, its gradient and Hessian at one b. */
    public record Eval(double value, double[] gradient, double[][] hessian) implements java.io.Serializable {
        /** The sum of two objectives' evaluations at the same b (partitions of the examples). */
        public Eval plus(Eval o) {
            double[] g = gradient.clone();
            double[][] h = new double[hessian.length][];
            for (int k = 0; k < g.length; k++) {
                g[k] += o.gradient[k];
                h[k] = hessian[k].clone();
                for (int l = 0; l < h[k].length; l++) h[k][l] += o.hessian[k][l];
            }
            return new Eval(value + o.value, g, h);
        }
    }

    /**
     * @param thetaU [V*L] unary potentials at x1 (with the loss augmentation), row-major
     * @param thetaP [E*L*L] pairwise potentials at x1
     * @param msg    [E*2*L] messages at x1
     * @param dirs   per direction: its unary, pairwise potential and message displacement (null = 0)
     */
    SubspaceObjective(FactorGraph g, int L, double eps, int[] labels, int[] jointLabels, float[] thetaU, float[] thetaP, float[] msg,
                      Direction[] dirs) {
        this.eps = eps;
        this.L = L;
        this.m = dirs.length;
        this.edges = g.numEdges();
        int V = g.numVariables(), LL = L * L;
        int n = edges * LL + V * L;
        z = new float[n];
        dz = new float[m][];
        for (int k = 0; k < m; k++) dz[k] = new float[n];
        fill(g, L, thetaU, thetaP, msg, z);
        for (int k = 0; k < m; k++) {
            Direction d = dirs[k];
            fill(g, L, d.dU(), d.dP(), d.dm(), dz[k]);
            for (int j = 0; j < n; j++) {
                if (z[j] == Float.NEGATIVE_INFINITY) dz[k][j] = 0f; // impossible stays impossible
                else if (!Float.isFinite(dz[k][j])) throw new IllegalArgumentException("direction " + k + " is not finite");
            }
        }
        // labels a variable does not have: ignored by the engines, impossible here
        for (int v = 0; v < V; v++) {
            int nl = g.numLabels(v);
            for (int y = nl; y < L; y++) z[edges * LL + v * L + y] = Float.NEGATIVE_INFINITY;
        }
        for (int e = 0; e < edges; e++) {
            int ni = g.numLabels(g.edgeFrom(e)), nj = g.numLabels(g.edgeTo(e));
            if (ni == L && nj == L) continue;
            for (int yi = 0; yi < L; yi++) {
                for (int yj = 0; yj < L; yj++) if (yi >= ni || yj >= nj) z[e * LL + yi * L + yj] = Float.NEGATIVE_INFINITY;
            }
        }
        f1 = truthScore(labels, jointLabels, L, thetaU, thetaP);
        dF = new double[m];
        for (int k = 0; k < m; k++) dF[k] = truthScore(labels, jointLabels, L, dirs[k].dU(), dirs[k].dP());
    }

    /** One direction: displacements of the unary potentials [V*L], pairwise potentials [E*L*L], messages [E*2*L]; null = 0. */
    record Direction(float[] dU, float[] dP, float[] dm) {}

    int dimensions() {
        return m;
    }

    /** Region logits from potentials and messages (any may be null = 0), into {@code out}. */
    private static void fill(FactorGraph g, int L, float[] u, float[] p, float[] msg, float[] out) {
        int E = g.numEdges(), V = g.numVariables(), LL = L * L, base = E * LL;
        if (u != null) System.arraycopy(u, 0, out, base, V * L);
        for (int e = 0; e < E; e++) {
            int o = e * LL;
            if (p != null) System.arraycopy(p, o, out, o, LL);
            if (msg == null) continue;
            int mi = e * 2 * L, mj = mi + L, vi = base + g.edgeFrom(e) * L, vj = base + g.edgeTo(e) * L;
            for (int yi = 0; yi < L; yi++) {
                for (int yj = 0; yj < L; yj++) out[o + yi * L + yj] += msg[mi + yi] + msg[mj + yj];
            }
            for (int y = 0; y < L; y++) {
                // minus infinity minus minus infinity: still impossible, not NaN
                out[vi + y] = msg[mi + y] == Float.NEGATIVE_INFINITY ? Float.NEGATIVE_INFINITY : out[vi + y] - msg[mi + y];
                out[vj + y] = msg[mj + y] == Float.NEGATIVE_INFINITY ? Float.NEGATIVE_INFINITY : out[vj + y] - msg[mj + y];
            }
        }
    }

    /** F = sum_i theta_i(y_i) + sum_a theta_a(y_a); 0 for null arrays. */
    private static double truthScore(int[] labels, int[] joint, int L, float[] u, float[] p) {
        double f = 0;
        if (u != null) for (int v = 0; v < labels.length; v++) f += u[v * L + labels[v]];
        if (p != null) for (int e = 0; e < joint.length; e++) f += p[e * L * L + joint[e]];
        return f;
    }

    /** R(b) summed over variables, its gradient and Hessian: one pass over every region entry. */
    public Eval at(double[] b) {
        int LL = L * L;
        double[] s = new double[LL], w = new double[LL];
        double[] mean = new double[m], grad = new double[m];
        double[][] hess = new double[m][m];
        double lseSum = 0;
        int n = z.length;
        for (int start = 0; start < n; ) {
            int size = start < edges * LL ? LL : L;
            double mx = Double.NEGATIVE_INFINITY;
            for (int j = 0; j < size; j++) {
                double v = z[start + j];
                if (v != Double.NEGATIVE_INFINITY) for (int k = 0; k < m; k++) v += b[k] * dz[k][start + j];
                s[j] = v / eps;
                mx = Math.max(mx, s[j]);
            }
            if (mx == Double.NEGATIVE_INFINITY) { // a region with no possible entry contributes nothing
                start += size;
                continue;
            }
            double sum = 0;
            for (int j = 0; j < size; j++) sum += (w[j] = Math.exp(s[j] - mx));
            lseSum += mx + Math.log(sum);
            double inv = 1 / sum;
            for (int k = 0; k < m; k++) {
                double e = 0;
                for (int j = 0; j < size; j++) e += w[j] * dz[k][start + j];
                mean[k] = e * inv;
                grad[k] += mean[k];
            }
            for (int k = 0; k < m; k++) {
                for (int l = 0; l <= k; l++) {
                    double c = 0;
                    for (int j = 0; j < size; j++) c += w[j] * (dz[k][start + j] - mean[k]) * (dz[l][start + j] - mean[l]);
                    hess[k][l] += c * inv / eps;
                }
            }
            start += size;
        }
        double f = f1;
        for (int k = 0; k < m; k++) {
            f += b[k] * dF[k];
            grad[k] -= dF[k];
            for (int l = 0; l < k; l++) hess[l][k] = hess[k][l];
        }
        return new Eval(eps * lseSum - f, grad, hess);
    }

    /** The minimiser found and R there (summed); b all zero and R(0) when no step lowers R. */
    public record Minimum(double[] b, double value, double valueAtZero, int passes) {}

    /** {@link #minimise(java.util.function.Function, int, int, double)} of this objective. */
    Minimum minimise(int maxPasses, double relTol) {
        return minimise(this::at, m, maxPasses, relTol);
    }

    /**
     * Damped Newton from b = 0 on {@code at} (R over an m-dimensional subspace, its gradient and
     * Hessian: one objective's, or the sum of many, e.g. of Spark partitions'): at most
     * {@code maxPasses} evaluations, stopping when the Newton decrement g' H^-1 g / 2 (the
     * predicted further decrease) is below {@code relTol} times the decrease so far.
     */
    static Minimum minimise(java.util.function.Function<double[], Eval> at, int m, int maxPasses, double relTol) {
        double[] b = new double[m];
        Eval cur = at.apply(b);
        double r0 = cur.value();
        int passes = 1;
        while (passes < maxPasses) {
            double[] step = newtonStep(cur, m);
            if (step == null) break;
            double dec = 0;
            for (int k = 0; k < m; k++) dec -= cur.gradient()[k] * step[k];
            dec /= 2;
            if (!(dec > 0) || dec <= relTol * (r0 - cur.value()) || dec <= 1e-12 * Math.abs(r0)) break;
            double t = 1;
            Eval next = null;
            double[] nb = null;
            while (passes < maxPasses) {
                nb = new double[m];
                for (int k = 0; k < m; k++) nb[k] = b[k] + t * step[k];
                next = at.apply(nb);
                passes++;
                if (next.value() < cur.value()) break;
                next = null;
                t /= 4;
            }
            if (next == null) break;
            b = nb;
            cur = next;
        }
        return new Minimum(b, cur.value(), r0, passes);
    }

    /** -H^-1 g by Cholesky, with a small ridge when H is (nearly) singular; null when that fails. */
    private static double[] newtonStep(Eval e, int m) {
        double[][] h = e.hessian();
        double scale = 0;
        for (int k = 0; k < m; k++) scale = Math.max(scale, h[k][k]);
        if (!(scale > 0)) return null;
        for (double ridge = 1e-10; ridge <= 1e-2; ridge *= 100) {
            double[][] c = new double[m][m];
            boolean ok = true;
            for (int i = 0; i < m && ok; i++) {
                for (int j = 0; j <= i; j++) {
                    double s = h[i][j] + (i == j ? ridge * scale : 0);
                    for (int k = 0; k < j; k++) s -= c[i][k] * c[j][k];
                    if (i == j) {
                        if (!(s > 0)) { ok = false; break; }
                        c[i][i] = Math.sqrt(s);
                    } else {
                        c[i][j] = s / c[j][j];
                    }
                }
            }
            if (!ok) continue;
            double[] y = new double[m];
            for (int i = 0; i < m; i++) {
                double s = -e.gradient()[i];
                for (int k = 0; k < i; k++) s -= c[i][k] * y[k];
                y[i] = s / c[i][i];
            }
            double[] x = new double[m];
            for (int i = m - 1; i >= 0; i--) {
                double s = y[i];
                for (int k = i + 1; k < m; k++) s -= c[k][i] * x[k];
                x[i] = s / c[i][i];
            }
            return x;
        }
        return null;
    }
}
