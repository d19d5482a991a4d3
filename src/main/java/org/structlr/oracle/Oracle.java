package org.structlr.oracle;

/**
 * The oracle step of docs/design.md §1: fit a function of one class to a {@link BiasedLogisticProblem}.
 *
 * <p>{@code previous} is the function this oracle returned last time for the same factor type (warm
 * start), or {@code null} to start from g = 0; a {@link ZeroScore} is treated like null. An oracle
 * refuses (IllegalArgumentException) a previous function of another class or shape. Given the same
 * seed, problem and previous function, a fit is deterministic (on one machine and thread count).
 */
public interface Oracle {

    ScoreFunction fit(BiasedLogisticProblem problem, ScoreFunction previous);

    /**
     * One line naming the oracle and every setting that changes what it fits (its class's option
     * values among them; the seed aside): reports print it and models record it.
     */
    String describe();
}
