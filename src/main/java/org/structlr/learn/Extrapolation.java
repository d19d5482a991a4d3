package org.structlr.learn;

import java.util.ArrayList;
import java.util.List;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.structlr.inference.MessagePassing;
import org.structlr.model.ExampleBatch;
import org.structlr.oracle.ParametricScore;
import org.structlr.oracle.ScoreFunction;

/**
 * Extrapolation of one learning iteration: with x0 = (functions, messages) at the iteration's start
 * and x1 at its end, try x1 + beta (x1 - x0) for beta = 1, 2, 4, ... while the objective R falls,
 * and keep the lowest point (x1 itself when none is lower, so R never rises).
 *
 * <p>Why it pays: alternating exact minimisation over strongly coupled blocks (function parameters
 * and messages) zig-zags, each iteration moving a short way along a nearly constant direction; a
 * step along that direction, checked on R itself, covers several iterations' worth at the cost of
 * a few dual evaluations. Only the parameters of {@link ParametricScore} functions move (others
 * stay at x1), and the messages only when all of them are finite (an impossible label's minus
 * infinity must stay as it is). Every point is a valid (functions, messages) pair, so R at the
 * kept point is the same objective the other schedules minimise.
 */
final class Extrapolation {
    static final int MAX_DOUBLINGS = 4;

    /**
     * One end of the iteration: the functions (null = not fitted yet, i.e. g = 0), the messages
     * [E, 2, L], and the potentials of these functions (unary with the loss augmentation).
     */
    record Point(ScoreFunction unary, List<ScoreFunction> pair, INDArray messages, INDArray thetaU, INDArray thetaP) {}

    /**
     * Where the step ended: the point the engine now holds, its potentials (thetaU0: the unary ones
     * without the loss augmentation, null when the point is x1 itself), R (summed), and the beta
     * taken (0: none).
     */
    record Outcome(ScoreFunction unary, List<ScoreFunction> pair, INDArray thetaU0, INDArray thetaU, INDArray thetaP, double objective,
                   double beta) {}

    /** R of the engine's current potentials and messages, given the potentials. */
    interface Objective {
        double at(INDArray thetaU, INDArray thetaP);
    }

    private Extrapolation() {}

    /**
     * Tries beta = 1, 2, 4, ... on cheap trial points and keeps the best. Potentials are linear in
     * the parameters of parametric functions (theta = eps g(phi; w), g linear in w for the linear and
     * constant classes), so a trial's potentials are theta1 + beta (theta1 - theta0) without
     * evaluating any function; a type whose function is not parametric keeps theta1. The point
     * kept is then rebuilt exactly from its functions (so a resumed run, which recomputes potentials
     * from the functions, continues from the same bits) and kept only if R is still below R(x1).
     */
    static Outcome step(MessagePassing mp, ExampleBatch train, double eps, INDArray delta, Point x0, Point x1, double r1,
                        Objective objective) {
        boolean moveMessages = finite(x0.messages()) && finite(x1.messages());
        boolean moveUnary = parametric(x1.unary()), movePair = x1.pair().stream().allMatch(Extrapolation::parametric);
        INDArray dm = moveMessages ? x1.messages().sub(x0.messages()) : null;
        INDArray dU = moveUnary ? x1.thetaU().sub(x0.thetaU()) : null, dP = movePair ? x1.thetaP().sub(x0.thetaP()) : null;
        if (dm == null && dU == null && dP == null) return new Outcome(x1.unary(), x1.pair(), null, x1.thetaU(), x1.thetaP(), r1, 0);
        double bestR = r1, bestBeta = 0;
        for (int k = 0, beta = 1; k <= MAX_DOUBLINGS; k++, beta *= 2) {
            INDArray tu = dU == null ? x1.thetaU() : x1.thetaU().add(dU.mul(beta));
            INDArray tp = dP == null ? x1.thetaP() : x1.thetaP().add(dP.mul(beta));
            mp.setPotentials(tu, tp);
            mp.setMessages(dm == null ? x1.messages() : x1.messages().add(dm.mul(beta)));
            double r = objective.at(tu, tp);
            if (!(r < bestR)) break;
            bestR = r;
            bestBeta = beta;
        }
        if (bestBeta > 0) {
            ScoreFunction u = moveUnary ? along(x0.unary(), x1.unary(), bestBeta) : x1.unary();
            List<ScoreFunction> p = new ArrayList<>();
            for (int t = 0; t < x1.pair().size(); t++) p.add(movePair ? along(x0.pair().get(t), x1.pair().get(t), bestBeta) : x1.pair().get(t));
            // as the learner (and a resumed run) computes them: theta_u = eps g_u + Delta
            INDArray tu0 = train.unaryPotentials(u, eps), tu = tu0.add(delta), tp = train.pairPotentials(p, eps);
            mp.setPotentials(tu, tp);
            mp.setMessages(dm == null ? x1.messages() : x1.messages().add(dm.mul(bestBeta)));
            double r = objective.at(tu, tp);
            if (r < r1) return new Outcome(u, p, tu0, tu, tp, r, bestBeta);
        }
        mp.setPotentials(x1.thetaU(), x1.thetaP()); // nothing lower: back to x1
        mp.setMessages(x1.messages());
        return new Outcome(x1.unary(), x1.pair(), null, x1.thetaU(), x1.thetaP(), r1, 0);
    }

    /** A function that moves with its parameters: parametric, or not fitted yet (g = 0). */
    private static boolean parametric(ScoreFunction f) {
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

    /** True when no entry is infinite or NaN (a sum of finite floats can overflow only for absurd messages). */
    private static boolean finite(INDArray a) {
        return Double.isFinite(a.sumNumber().doubleValue());
    }
}
