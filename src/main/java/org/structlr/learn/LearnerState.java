package org.structlr.learn;

import java.util.List;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.structlr.oracle.ScoreFunction;

/**
 * Everything the alternating learner carries from one iteration to the next, taken after
 * {@code iteration} iterations: the function of every factor type (which also carries its oracle's
 * warm-start state: an MLP's momentum and fit count, a booster's rounds), the messages of the
 * training engine and of the warm-started evaluation engines ({@code [E, 2, L]}, null where an
 * engine does not exist), the curve so far, and the seconds spent so far. Continuing from it with
 * the same settings, data and oracle kinds gives exactly the iterations an uninterrupted run gives.
 */
public record LearnerState(int iteration, ScoreFunction unary, List<ScoreFunction> pair,
                           INDArray trainMessages, INDArray trainEvalMessages, INDArray testEvalMessages,
                           List<IterationRecord> curve, double fitSeconds, double passingSeconds, double evalSeconds) {
    public LearnerState {
        if (iteration < 1) throw new IllegalArgumentException("a learner state comes after at least one iteration, got " + iteration);
        if (unary == null || pair == null || pair.contains(null)) throw new IllegalArgumentException("every factor type needs its function");
        if (trainMessages == null) throw new IllegalArgumentException("the training messages are required");
        if (curve.size() != iteration) throw new IllegalArgumentException(curve.size() + " curve entries after " + iteration + " iterations");
        pair = List.copyOf(pair);
        curve = List.copyOf(curve);
    }

    /** Seconds since the start of the run, at the end of this state's iteration. */
    public double seconds() {
        return curve.get(curve.size() - 1).seconds();
    }
}
