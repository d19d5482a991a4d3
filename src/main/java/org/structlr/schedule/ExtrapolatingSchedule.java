package org.structlr.schedule;

/**
 * Another schedule's message passing, with every iteration ending in an extrapolation step along
 * the iteration's displacement of the function parameters and the messages, kept only where the
 * objective falls (so R still never rises with exact oracles).
 */
public record ExtrapolatingSchedule(String name, Schedule passing) implements Schedule {

    @Override public boolean extrapolates() { return true; }

    @Override public boolean needsFitGain() { return passing.needsFitGain(); }

    @Override
    public int passAfterFit(Passing engine, Fit fit) {
        return passing.passAfterFit(engine, fit);
    }
}
