package org.structlr.oracle;

/**
 * An oracle that fits by an iterative optimiser, whose work per fit a learning schedule may bound:
 * warm-started from the previous function, a few optimiser steps per fit are often worth more than
 * a fit to convergence against messages that will change anyway.
 */
public interface IterativeOracle extends Oracle {

    /** This oracle, with at most {@code iterations} optimiser iterations per fit (at least 1). */
    Oracle limitedTo(int iterations);
}
