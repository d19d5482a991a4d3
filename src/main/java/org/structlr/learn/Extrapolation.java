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

    /** One end of the iteration: the functions (null = not fitted yet, i.e. g = 0) and the messages [E, 2, L]. */
    record Point(ScoreFunction unary, List<ScoreFunction> pair, INDArray messages) {}

    /** Where the step ended: the point the engine now holds, its potentials and R (summed), and the beta taken (0: none). */
    record Outcome(ScoreFunction unary, List<ScoreFunction> pair, INDArray thetaU, INDArray thetaP, double objective, double beta) {}

    /** R of the engine's current potentials and messages, given the potentials. */
    interface Objective {
        double at(INDArray thetaU, INDArray thetaP);
    }

    private Extrapolation() {}

    static Outcome step(MessagePassing mp, ExampleBatch train, double eps, INDArray delta, Point x0, Point x1,
                        INDArray thetaU1, INDArray thetaP1, double r1, Objective objective) {
        boolean moveMessages = finite(x0.messages()) && finite(x1.messages());
        INDArray dm = moveMessages ? x1.messages().sub(x0.messages()) : null;
        Outcome best = new Outcome(x1.unary(), x1.pair(), thetaU1, thetaP1, r1, 0);
        boolean engineAtBest = true;
        for (int k = 0, beta = 1; k <= MAX_DOUBLINGS; k++, beta *= 2) {
            ScoreFunction u = along(x0.unary(), x1.unary(), beta);
            List<ScoreFunction> p = new ArrayList<>();
            for (int t = 0; t < x1.pair().size(); t++) p.add(along(x0.pair().get(t), x1.pair().get(t), beta));
            INDArray thetaU = train.unaryPotentials(u, eps).addi(delta), thetaP = train.pairPotentials(p, eps);
            mp.setPotentials(thetaU, thetaP);
            if (moveMessages) mp.setMessages(x1.messages().add(dm.mul(beta)));
            else mp.setMessages(x1.messages());
            double r = objective.at(thetaU, thetaP);
            if (!(r < best.objective())) {
                engineAtBest = false;
                break;
            }
            best = new Outcome(u, p, thetaU, thetaP, r, beta);
            engineAtBest = true;
        }
        if (!engineAtBest) { // the last trial was worse: back to the best point
            mp.setPotentials(best.thetaU(), best.thetaP());
            mp.setMessages(best.beta() == 0 || !moveMessages ? x1.messages() : x1.messages().add(dm.mul(best.beta())));
        }
        return best;
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
