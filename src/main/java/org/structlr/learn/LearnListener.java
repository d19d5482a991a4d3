package org.structlr.learn;

/** Told about learning progress (progress bars, reports, checkpoints). */
@FunctionalInterface
public interface LearnListener {
    /** After every evaluated iteration ({@link LearnSettings#evaluates}): its curve row. */
    void onIteration(IterationRecord record, int totalIterations);

    /** After every iteration, evaluated or not (before {@link #onIteration} when both apply). */
    default void onProgress(int iteration, int totalIterations) {}

    LearnListener NONE = (r, n) -> {};
}
