package org.structlr.learn;

/** Told after every learning iteration (progress bars, reports, checkpoints). */
@FunctionalInterface
public interface LearnListener {
    void onIteration(IterationRecord record, int totalIterations);

    LearnListener NONE = (r, n) -> {};
}
