package org.structlr.inference;

/**
 * When message passing stops: after {@code maxIterations} sweeps, as soon as the duality gap,
 * checked every {@code checkEvery} sweeps, is at most {@code gapTolerance} (0 disables the check),
 * or once {@code deadline} has passed (checked every {@code checkEvery} sweeps).
 */
public record StopRule(int maxIterations, double gapTolerance, int checkEvery, Deadline deadline) {
    public StopRule {
        if (maxIterations < 0) throw new IllegalArgumentException("iterations must be at least 0, got " + maxIterations);
        if (!(gapTolerance >= 0)) throw new IllegalArgumentException("tolerance must be at least 0, got " + gapTolerance);
        if (checkEvery < 1) throw new IllegalArgumentException("checkEvery must be at least 1, got " + checkEvery);
        if (deadline == null) throw new IllegalArgumentException("deadline must not be null (Deadline.NONE for none)");
    }

    /** No deadline. */
    public StopRule(int maxIterations, double gapTolerance, int checkEvery) {
        this(maxIterations, gapTolerance, checkEvery, Deadline.NONE);
    }

    public static StopRule iterations(int n) {
        return new StopRule(n, 0, Math.max(1, n));
    }

    /** True once the deadline has passed. */
    public boolean pastDeadline() {
        return deadline.passed();
    }
}
