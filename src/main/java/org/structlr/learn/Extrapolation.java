package org.structlr.learn;

import org.structlr.model.Potentials;
import java.util.ArrayList;
import java.util.List;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.structlr.inference.MessagePassing;
import org.structlr.model.ExampleBatch;
import org.structlr.oracle.ParametricScore;
import org.structlr.oracle.ScoreFunction;

/**
 * Extrapolation of one learning iteration: with x0 = (functions, messages) at the iteration's start
 * and x1 at its end, minimise R along the line x1 + beta (x1 - x0) by damped Newton in beta
 * ({@link SubspaceObjective}: R, dR/dbeta and d2R/dbeta2 in one pass over the regions, no engine
 * calls), rebuild the point at that beta from its functions, and keep it only if the engine's R
 * there is below R(x1) (else x1 stays: R never rises).
 *
 * <p>Why it pays: alternating exact minimisation over strongly coupled blocks (function parameters
 * and messages) zig-zags, each iteration moving a short way along a nearly constant direction. A
 * step along that direction, sized by Newton on R itself, covers several iterations' worth (on
 * denoising (linear, linear) beta reached 39 once, R per variable 0.76 -> 0.50) for a few passes
 * over the regions. Only the parameters of {@link ParametricScore} functions move (others stay at
 * x1), and the messages only when all of them are finite (an impossible label's minus infinity
 * must stay as it is). Every point is a valid (functions, messages) pair, so R at the kept point is
 * the same objective the other schedules minimise. Only this iteration's two points are used, so a
 * run resumed between iterations takes the same steps.
 *
 * <p>Measured and not kept (denoising, (linear, linear), R per variable after 20 iterations): the
 * old rule, beta = 1, 2, 4, 8, 16 through the engine while R falls: 0.498 after 15 iterations (and each
 * trial re-laid out the engine); Newton over the two half-steps of the iteration (unary fit with
 * the messages' first move, pairwise fit with the second): 0.416; every block (unary parameters,
 * pairwise parameters, both message moves) its own coefficient: 0.392; the single line: 0.346.
 * Minimising over more directions each iteration made the following iterations' moves shorter.
 */
final class Extrapolation {
    /** Newton passes over the regions per step, at most. */
    static final int MAX_PASSES = 6;
    /** Stop when the Newton decrement is below this fraction of the decrease made so far. */
    static final double REL_TOL = 1e-3;

    /**
     * One end of the iteration: the functions (null = not fitted yet, i.e. g = 0), the messages
     * [E, 2, L], and the potentials of these functions (unary with the loss augmentation).
     */
    record Point(ScoreFunction unary, List<ScoreFunction> pair, INDArray messages, INDArray thetaU, INDArray thetaP) {}

    /**
     * Where the step ended: the point the engine now holds, its potentials (thetaU0: the unary ones
     * without the loss augmentation, null when the unary function is x1's), R (summed), and the beta
     * taken (0: none).
     */
    record Outcome(ScoreFunction unary, List<ScoreFunction> pair, INDArray thetaU0, INDArray thetaU, INDArray thetaP, double objective,
                   double beta) {}

    /** R of the engine's current potentials and messages, given the potentials. */
    interface Objective {
        double at(INDArray thetaU, INDArray thetaP);
    }

    private Extrapolation() {}

    /** The step from x0 to x1, whose R is {@code r1}; leaves the engine at the point returned. */
    static Outcome step(MessagePassing mp, ExampleBatch train, double eps, INDArray delta, Point x0, Point x1, double r1,
                        Objective objective) {
        Outcome stay = new Outcome(x1.unary(), x1.pair(), null, x1.thetaU(), x1.thetaP(), r1, 0);
        float[] m0 = AlternatingLearner.flat(x0.messages()), m1 = AlternatingLearner.flat(x1.messages());
        boolean moveMessages = finite(m0) && finite(m1);
        boolean moveUnary = parametric(x0.unary(), x1.unary());
        boolean movePair = true;
        for (int t = 0; t < x1.pair().size(); t++) movePair &= parametric(x0.pair().get(t), x1.pair().get(t));
        if (!moveMessages && !moveUnary && !movePair) return stay;
        float[] tu1 = AlternatingLearner.flat(x1.thetaU()), tp1 = AlternatingLearner.flat(x1.thetaP());
        // potentials are linear in the parameters, so theta1 - theta0 is the potentials' move
        float[] dU = moveUnary ? minus(tu1, AlternatingLearner.flat(x0.thetaU())) : null;
        float[] dP = movePair ? minus(tp1, AlternatingLearner.flat(x0.thetaP())) : null;
        float[] dm = moveMessages ? minus(m1, m0) : null;
        SubspaceObjective.Minimum min;
        try {
            min = new SubspaceObjective(train.graph(), train.numLabels(), eps, train.labels(), train.jointLabels(), tu1, tp1, m1,
                    new SubspaceObjective.Direction[] {new SubspaceObjective.Direction(dU, dP, dm)}).minimise(MAX_PASSES, REL_TOL);
        } catch (IllegalArgumentException e) {
            return stay; // a non-finite direction (an absurd fit): no step
        }
        double beta = min.b()[0];
        if (!(min.value() < min.valueAtZero()) || beta == 0) return stay;

        ScoreFunction u = moveUnary ? along(x0.unary(), x1.unary(), beta) : x1.unary();
        List<ScoreFunction> p = new ArrayList<>();
        for (int t = 0; t < x1.pair().size(); t++) p.add(movePair ? along(x0.pair().get(t), x1.pair().get(t), beta) : x1.pair().get(t));
        // as the learner (and a resumed run) computes them: theta_u = eps g_u + Delta
        INDArray tu0 = moveUnary ? Potentials.unary(train, u, eps) : null;
        INDArray tu = tu0 != null ? tu0.add(delta) : x1.thetaU();
        INDArray tp = movePair ? Potentials.pairwise(train, p, eps) : x1.thetaP();
        INDArray m = x1.messages();
        if (moveMessages) {
            float[] mb = new float[m1.length];
            for (int i = 0; i < mb.length; i++) mb[i] = (float) (m1[i] + beta * dm[i]);
            m = Nd4j.create(mb, x1.messages().shape(), 'c');
        }
        mp.setPotentials(tu, tp);
        mp.setMessages(m);
        double r = objective.at(tu, tp);
        if (r < r1) return new Outcome(u, p, tu0, tu, tp, r, beta);
        mp.setPotentials(x1.thetaU(), x1.thetaP()); // nothing lower: back to x1
        mp.setMessages(x1.messages());
        return stay;
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
