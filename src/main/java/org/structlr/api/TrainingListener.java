package org.structlr.api;

/**
 * Told how training goes, on the training thread: after every evaluated iteration (every one
 * unless {@link CrfTrainer.Builder#evalEvery} says otherwise) its curve row, in order, and each
 * validation check. A progress bar, a log line, a plot that grows, an early look at a long run.
 * <pre>{@code
 *   TrainingListener log = (row, total) -> System.out.printf("iteration %d/%d: objective %.4f, test error %.4f%n",
 *           row.iteration(), total, row.objective(), row.testError());
 *   Crf crf = CrfTrainer.builder().iterations(3).listener(log).build().train(CrfData.denoising(2, 2, 16, 1));
 * }</pre>
 */
@FunctionalInterface
public interface TrainingListener {
    /** After iteration {@code row.iteration()} of {@code totalIterations} was evaluated. */
    void onIteration(TrainingReport.Iteration row, int totalIterations);

    /** After a validation check (before the iteration's curve row). */
    default void onValidation(TrainingReport.Check check) {}

    /** Tells nothing. */
    TrainingListener NONE = (row, total) -> {};
}
