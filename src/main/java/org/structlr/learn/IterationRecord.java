package org.structlr.learn;

/**
 * One learning iteration's numbers: the objective R per training variable (DESIGN §1), training
 * and test error (fraction of wrong labels; NaN when not evaluated) and seconds since the start.
 */
public record IterationRecord(int iteration, double objective, double trainError, double testError, double seconds) {}
