package org.structlr.schedule;

/**
 * How much message passing follows each oracle fit of the alternating learner (docs/design.md §1, Alg. 1).
 * A schedule only decides how many sweeps to run after a fit: every choice is a block-coordinate
 * step on the same objective R = sum_k [-F(x^k, y^k) + A(lambda^k, theta^k)] (a sweep never
 * increases A, an exact fit never increases R), so every schedule minimises the same R and ends at
 * the same optimum; they differ in how fast they get there.
 *
 * <p>Implementations are deterministic (decisions depend on objective values, never on clocks), so
 * a run is repeatable for a given seed, and hold no state between calls beyond the run they serve.
 */
public interface Schedule {

    /** The name used by {@code --schedule}. */
    String name();

    /**
     * Whether each iteration ends with an extrapolation step along the iteration's displacement
     * (see {@code org.structlr.learn.Extrapolation}): tried on R, kept only where R falls.
     */
    default boolean extrapolates() {
        return false;
    }

    /**
     * At most this many optimiser iterations for the fits of {@code iteration} by iterative oracles
     * ({@link org.structlr.oracle.IterativeOracle}); 0 leaves the oracle's own limit.
     */
    default int fitIterations(int iteration) {
        return 0;
    }

    /** Whether {@link Fit#gain()} must be measured (two extra dual evaluations per fit). */
    boolean needsFitGain();

    /**
     * Runs the message passing that follows one fit on {@code engine} (whose potentials already hold
     * the new function) and returns the number of sweeps run.
     */
    int passAfterFit(Passing engine, Fit fit);

    /**
     * What a schedule may do with the training examples' engines: sweep all of them, and read their
     * summed smoothed dual A(lambda, theta). The learner's examples may live on one machine or in
     * Spark partitions ({@code learn.ExampleStates}); a schedule sees only this.
     */
    interface Passing {
        /** {@code sweeps} sweeps of star updates on every training example. */
        void iterate(int sweeps);

        /** The smoothed dual summed over the training examples (about one sweep's work). */
        double dual();
    }

    /**
     * What the learner knows about the fit just made.
     *
     * @param iteration  learning iteration (1-based)
     * @param pairwise   false after the unary fits, true after the pairwise fits
     * @param gain       decrease of the objective R (summed over variables) the fit achieved at fixed
     *                   messages; NaN unless {@link #needsFitGain()}
     */
    record Fit(int iteration, boolean pairwise, double gain) {}
}
