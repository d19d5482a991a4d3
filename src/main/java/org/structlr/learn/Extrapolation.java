package org.structlr.learn;

import java.util.ArrayList;
import java.util.List;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.structlr.inference.MessagePassing;
import org.structlr.model.ExampleBatch;
import org.structlr.oracle.ParametricScore;
import org.structlr.oracle.ScoreFunction;

/**
 * Extrapolation of one learning iteration. With x0 = (functions, messages) at the iteration's
 * start, xm after the unary fit and its sweeps, and x1 at its end, the iteration moved along two
 * half-steps: the unary parameters with the messages' first move (xm - x0), then the pairwise
 * parameters with the messages' second move (x1 - xm). The step minimises R over
 * <pre>
 *   x1 + b_u (wU1 - wU0) + b_p (wP1 - wP0) + b_a (m_m - m_0) + b_b (m_1 - m_m)
 * </pre>
 * (each block its own coefficient; {@link Basis}) by damped Newton on the subspace
 * ({@link SubspaceObjective}: value, gradient and Hessian in one pass, no engine calls), then
 * rebuilds the point from its functions and keeps it only if the engine's R there is below R(x1)
 * (else x1 stays: R never rises).
 *
 * <p>Why it pays: alternating exact minimisation over strongly coupled blocks (function parameters
 * and messages) zig-zags, each iteration moving a short way along a nearly constant direction. A
 * step along the iteration's own moves, sized by Newton on R itself, covers several iterations'
 * worth for a few passes over the regions. Only the parameters of {@link ParametricScore} functions
 * move (others stay at x1: their block has no direction), and the messages only when all of them
 * are finite (an impossible label's minus infinity must stay as it is). Every point tried is a
 * valid (functions, messages) pair, so R at the kept point is the same objective the other
 * schedules minimise. Only this iteration's points are used, so a run resumed between iterations
 * takes the same steps.
 */
final class Extrapolation {
    /** Newton passes over the regions per step, at most. */
    static final int MAX_PASSES = 6;
    /** Stop when the Newton decrement is below this fraction of the decrease made so far. */
    static final double REL_TOL = 1e-3;

    /**
     * Which coefficient each subspace direction gives the blocks (unary parameters, pairwise
     * parameters, first message move, second message move).
     */
    enum Basis {
        /** One direction: the iteration's whole displacement x1 - x0. */
        LINE(new double[][] {{1, 1, 1, 1}}),
        /** Two: the two half-steps (unary fit with the first message move, pairwise fit with the second). */
        HALVES(new double[][] {{1, 0, 1, 0}, {0, 1, 0, 1}}),
        /** Four: every block its own coefficient. */
        BLOCKS(new double[][] {{1, 0, 0, 0}, {0, 1, 0, 0}, {0, 0, 1, 0}, {0, 0, 0, 1}});

        final double[][] coef;

        Basis(double[][] coef) {
            this.coef = coef;
        }
    }

    /** The basis used; a system property selects another for measurements (not a user option). */
    static final Basis BASIS = Basis.valueOf(System.getProperty("structlr.extrapolation.basis", "LINE"));

    /**
     * One end of the iteration: the functions (null = not fitted yet, i.e. g = 0), the messages
     * [E, 2, L], and the potentials of these functions (unary with the loss augmentation).
     */
    record Point(ScoreFunction unary, List<ScoreFunction> pair, INDArray messages, INDArray thetaU, INDArray thetaP) {}

    /**
     * Where the step ended: the point the engine now holds, its potentials (thetaU0: the unary ones
     * without the loss augmentation, null when the unary function is x1's), R (summed), and the
     * coefficients taken per block (unary, pairwise, first and second message move; all 0: none).
     */
    record Outcome(ScoreFunction unary, List<ScoreFunction> pair, INDArray thetaU0, INDArray thetaU, INDArray thetaP, double objective,
                   double[] beta) {}

    /** R of the engine's current potentials and messages, given the potentials. */
    interface Objective {
        double at(INDArray thetaU, INDArray thetaP);
    }

    private static final boolean DEBUG = Boolean.getBoolean("structlr.extrapolation.debug"); // TODO sched2: remove

    private Extrapolation() {}

    /**
     * The step from x0 through xm (messages after the unary fit's sweeps: {@code midMessages}) to
     * x1, whose R is {@code r1}; leaves the engine at the point returned.
     */
    static Outcome step(MessagePassing mp, ExampleBatch train, double eps, INDArray delta, Point x0, INDArray midMessages, Point x1,
                        double r1, Objective objective) {
        Outcome stay = new Outcome(x1.unary(), x1.pair(), null, x1.thetaU(), x1.thetaP(), r1, new double[4]);
        float[] m0 = AlternatingLearner.flat(x0.messages()), mm = AlternatingLearner.flat(midMessages), m1 = AlternatingLearner.flat(x1.messages());
        boolean moveMessages = finite(m0) && finite(mm) && finite(m1);
        boolean moveUnary = parametric(x0.unary(), x1.unary());
        boolean movePair = true;
        for (int t = 0; t < x1.pair().size(); t++) movePair &= parametric(x0.pair().get(t), x1.pair().get(t));
        float[] tu1 = AlternatingLearner.flat(x1.thetaU()), tp1 = AlternatingLearner.flat(x1.thetaP());
        // block displacements; potentials are linear in the parameters, so theta1 - theta0 is the potentials' move
        float[][] blocks = {
                moveUnary ? minus(tu1, AlternatingLearner.flat(x0.thetaU())) : null,
                movePair ? minus(tp1, AlternatingLearner.flat(x0.thetaP())) : null,
                moveMessages ? minus(mm, m0) : null,
                moveMessages ? minus(m1, mm) : null};
        List<double[]> coefs = new ArrayList<>();
        List<SubspaceObjective.Direction> dirs = new ArrayList<>();
        for (double[] c : BASIS.coef) {
            float[] dU = combine(c[0], blocks[0], 0, null), dP = combine(c[1], blocks[1], 0, null);
            float[] dm = combine(c[2], blocks[2], c[3], blocks[3]);
            if (dU == null && dP == null && dm == null) continue;
            double[] used = {dU == null ? 0 : c[0], dP == null ? 0 : c[1], blocks[2] == null ? 0 : c[2], blocks[3] == null ? 0 : c[3]};
            coefs.add(used);
            dirs.add(new SubspaceObjective.Direction(dU, dP, dm));
        }
        if (dirs.isEmpty()) return stay;
        SubspaceObjective.Minimum min;
        try {
            min = new SubspaceObjective(train.graph(), train.numLabels(), eps, train.labels(), train.jointLabels(), tu1, tp1, m1,
                    dirs.toArray(new SubspaceObjective.Direction[0])).minimise(MAX_PASSES, REL_TOL);
        } catch (IllegalArgumentException e) {
            return stay; // a non-finite direction (an absurd fit): no step
        }
        if (DEBUG) System.err.printf("%nextrapolation: %d passes, b=%s, R %.3f -> %.3f%n", min.passes(), java.util.Arrays.toString(min.b()), min.valueAtZero(), min.value());
        if (!(min.value() < min.valueAtZero())) return stay;
        double[] beta = new double[4];
        for (int k = 0; k < coefs.size(); k++) for (int j = 0; j < 4; j++) beta[j] += min.b()[k] * coefs.get(k)[j];

        ScoreFunction u = beta[0] != 0 ? along(x0.unary(), x1.unary(), beta[0]) : x1.unary();
        List<ScoreFunction> p = new ArrayList<>();
        for (int t = 0; t < x1.pair().size(); t++) p.add(beta[1] != 0 ? along(x0.pair().get(t), x1.pair().get(t), beta[1]) : x1.pair().get(t));
        // as the learner (and a resumed run) computes them: theta_u = eps g_u + Delta
        INDArray tu0 = beta[0] != 0 ? train.unaryPotentials(u, eps) : null;
        INDArray tu = tu0 != null ? tu0.add(delta) : x1.thetaU();
        INDArray tp = beta[1] != 0 ? train.pairPotentials(p, eps) : x1.thetaP();
        float[] m = m1;
        if (moveMessages && (beta[2] != 0 || beta[3] != 0)) {
            m = new float[m1.length];
            for (int i = 0; i < m.length; i++) m[i] = (float) (m1[i] + beta[2] * blocks[2][i] + beta[3] * blocks[3][i]);
        }
        mp.setPotentials(tu, tp);
        mp.setMessages(Nd4j.create(m, x1.messages().shape(), 'c'));
        double r = objective.at(tu, tp);
        if (r < r1) return new Outcome(u, p, tu0, tu, tp, r, beta);
        mp.setPotentials(x1.thetaU(), x1.thetaP()); // nothing lower: back to x1
        mp.setMessages(x1.messages());
        return stay;
    }

    /** a x + b y, null when both terms are absent or zero. */
    private static float[] combine(double a, float[] x, double b, float[] y) {
        boolean hx = a != 0 && x != null, hy = b != 0 && y != null;
        if (!hx && !hy) return null;
        int n = hx ? x.length : y.length;
        float[] out = new float[n];
        for (int i = 0; i < n; i++) out[i] = (float) ((hx ? a * x[i] : 0) + (hy ? b * y[i] : 0));
        return out;
    }

    private static float[] minus(float[] a, float[] b) {
        float[] out = new float[a.length];
        for (int i = 0; i < a.length; i++) out[i] = a[i] - b[i];
        return out;
    }

    /** A function that moves with its parameters: parametric (or not fitted yet, g = 0) at both ends. */
    private static boolean parametric(ScoreFunction f0, ScoreFunction f1) {
        return f1 instanceof ParametricScore && isParametric(f0);
    }

    private static boolean isParametric(ScoreFunction f) {
        return f == null || f instanceof ParametricScore || f instanceof org.structlr.oracle.ZeroScore;
    }

    /** f1 + beta (f1 - f0) for parametric functions (f0 null or of another class: its zero vector); f1 otherwise. */
    static ScoreFunction along(ScoreFunction f0, ScoreFunction f1, double beta) {
        if (!(f1 instanceof ParametricScore p1)) return f1;
        double[] w1 = p1.parameters();
        double[] w0 = f0 instanceof ParametricScore p0 && f0.getClass() == f1.getClass() ? p0.parameters() : new double[w1.length];
        if (w0.length != w1.length) return f1;
        double[] w = new double[w1.length];
        for (int i = 0; i < w.length; i++) w[i] = w1[i] + beta * (w1[i] - w0[i]);
        return p1.withParameters(w);
    }

    /** True when no entry is infinite or NaN. */
    private static boolean finite(float[] a) {
        for (float v : a) if (!Float.isFinite(v)) return false;
        return true;
    }
}
