package org.structlr.learn;

/** Told about learning progress (progress bars, reports, checkpoints). */
@FunctionalInterface
public interface LearnListener {
    /** After every evaluated iteration ({@link LearnSettings#evaluates}): its curve row. */
    void onIteration(IterationRecord record, int totalIterations);

    /** After every iteration, evaluated or not (before {@link #onIteration} when both apply). */
    default void onProgress(int iteration, int totalIterations) {}

    /**
     * After every iteration's learning, before its evaluation: the functions learned so far (what a
     * validation set is scored with). False stops learning after this iteration, which is then
     * evaluated, saved by a checkpoint sink, and the last (early stopping).
     */
    default boolean keepLearning(int iteration, Functions functions) {
        return true;
    }

    LearnListener NONE = (r, n) -> {};
}
