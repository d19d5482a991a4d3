package org.structlr.learn;

import java.util.ArrayList;
import java.util.List;
import org.structlr.oracle.ParametricScore;
import org.structlr.oracle.ScoreFunction;

/**
 * Extrapolation of one learning iteration: with x0 = (functions, messages) at the iteration's start
 * and x1 at its end, minimise R along the line x1 + beta (x1 - x0) by damped Newton in beta
 * ({@link SubspaceObjective}: R, dR/dbeta and d2R/dbeta2 in one pass over the regions, no engine
 * calls; summed over partitions where the examples are split), rebuild the point at that beta from its functions, and keep it only if the engine's R
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

    private Extrapolation() {}

    /**
     * The step from x0 (functions {@code f0}, messages of {@link ExampleStates#markLineStart}) to
     * the current point x1 (functions {@code f1}, objective {@code r1}): leaves the examples at the
     * point whose functions it returns ({@code f1} when no step lowers R).
     */
    static Functions step(ExampleStates states, Functions f0, Functions f1, double r1) {
        if (f1.numRegionTypes() > 0) throw new IllegalStateException("extrapolation does not handle region factors yet");
        boolean moveUnary = parametric(f0.unary(), f1.unary());
        boolean movePair = true;
        for (int t = 0; t < f1.numPairTypes(); t++) movePair &= parametric(f0.pair().get(t), f1.pair().get(t));
        ExampleStates.Line line = states.line(f0, moveUnary, movePair);
        if (line == null) return f1;
        try {
            SubspaceObjective.Minimum min = SubspaceObjective.minimise(line::at, 1, MAX_PASSES, REL_TOL);
            double beta = min.b()[0];
            if (!(min.value() < min.valueAtZero()) || beta == 0) return f1;
            ScoreFunction u = moveUnary ? along(f0.unary(), f1.unary(), beta) : f1.unary();
            List<ScoreFunction> p = new ArrayList<>();
            for (int t = 0; t < f1.numPairTypes(); t++) p.add(movePair ? along(f0.pair().get(t), f1.pair().get(t), beta) : f1.pair().get(t));
            Functions atBeta = new Functions(u, p);
            line.moveTo(beta, atBeta);
            if (states.objective() < r1) return atBeta;
            line.undo(); // nothing lower: back to x1
            return f1;
        } finally {
            line.release();
        }
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
}
