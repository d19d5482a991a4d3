package org.structlr.learn;

/**
 * One learning iteration's numbers: the objective R per training variable (docs/design.md §1), training
 * and test error (fraction of wrong labels; NaN when not evaluated), seconds since the start, and
 * the seconds of learning alone (oracle fits and training message passing, without the
 * evaluation): the time axis on which schedules are compared.
 */
public record IterationRecord(int iteration, double objective, double trainError, double testError, double seconds,
                              double learningSeconds) {

    /** A record whose learning time is not known separately (reports made before it was recorded). */
    public IterationRecord(int iteration, double objective, double trainError, double testError, double seconds) {
        this(iteration, objective, trainError, testError, seconds, seconds);
    }
}
