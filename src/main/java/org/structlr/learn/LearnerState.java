package org.structlr.learn;

import java.util.List;
import org.structlr.oracle.ScoreFunction;

/**
 * Everything the alternating learner carries from one iteration to the next, taken after
 * {@code iteration} iterations: the function of every factor type (which also carries its oracle's
 * warm-start state: an MLP's momentum and fit count, a booster's rounds), the state of the training
 * engine, of the warm-started evaluation engines and of the clamped void form's engine ({@link ClampedRows})
 * (null where an engine does not exist), the
 * curve so far (its evaluated iterations only, see {@link LearnSettings#evaluates}), the
 * seconds spent so far, and what the oracles said of themselves ({@code oracles}: {@link
 * org.structlr.oracle.Oracle#describe}, unary first, then each pairwise type; null where it was not
 * recorded, in checkpoints written before it was), and the function of every region type
 * ({@code regions}, in the batch's region type order; empty without region factors; their oracles'
 * descriptions follow the pairwise ones in {@code oracles}). Continuing from it with the same settings, data,
 * oracles (the learner refuses others) and engine gives exactly the iterations an uninterrupted run gives.
 */
public record LearnerState(int iteration, ScoreFunction unary, List<ScoreFunction> pair,
                           EngineState train, EngineState trainEval, EngineState testEval,
                           List<IterationRecord> curve, double seconds, double fitSeconds, double passingSeconds, double evalSeconds,
                           List<String> oracles, EngineState clamped, List<ScoreFunction> regions) {
    /** Without region factors. */
    public LearnerState(int iteration, ScoreFunction unary, List<ScoreFunction> pair, EngineState train, EngineState trainEval, EngineState testEval,
                        List<IterationRecord> curve, double seconds, double fitSeconds, double passingSeconds, double evalSeconds,
                        List<String> oracles, EngineState clamped) {
        this(iteration, unary, pair, train, trainEval, testEval, curve, seconds, fitSeconds, passingSeconds, evalSeconds, oracles, clamped, List.of());
    }

    /** Without a clamped engine. */
    public LearnerState(int iteration, ScoreFunction unary, List<ScoreFunction> pair, EngineState train, EngineState trainEval, EngineState testEval,
                        List<IterationRecord> curve, double seconds, double fitSeconds, double passingSeconds, double evalSeconds,
                        List<String> oracles) {
        this(iteration, unary, pair, train, trainEval, testEval, curve, seconds, fitSeconds, passingSeconds, evalSeconds, oracles, null);
    }

    public LearnerState {
        if (regions == null) regions = List.of();
        if (oracles != null && oracles.size() != pair.size() + regions.size() + 1) {
            throw new IllegalArgumentException(oracles.size() + " oracle descriptions for " + (pair.size() + regions.size() + 1) + " factor types");
        }
        if (iteration < 1) throw new IllegalArgumentException("a learner state comes after at least one iteration, got " + iteration);
        if (unary == null || pair == null || pair.stream().anyMatch(java.util.Objects::isNull)
                || regions.stream().anyMatch(java.util.Objects::isNull)) throw new IllegalArgumentException("every factor type needs its function");
        if (train == null) throw new IllegalArgumentException("the training engine's state is required");
        for (int k = 0; k < curve.size(); k++) {
            int it = curve.get(k).iteration();
            if (it < 1 || it > iteration || (k > 0 && it <= curve.get(k - 1).iteration())) {
                throw new IllegalArgumentException("curve entry " + k + " is iteration " + it + ": entries must increase within 1.." + iteration);
            }
        }
        pair = List.copyOf(pair);
        regions = List.copyOf(regions);
        curve = List.copyOf(curve);
        if (oracles != null) oracles = List.copyOf(oracles);
    }
}
