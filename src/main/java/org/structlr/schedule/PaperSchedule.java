package org.structlr.schedule;

/** The paper's Alg. 1: a fixed number of sweeps (25) after every fit. */
public record PaperSchedule(int sweepsPerFit) implements Schedule {

    public PaperSchedule {
        if (sweepsPerFit < 1) throw new IllegalArgumentException("sweeps per fit must be at least 1, got " + sweepsPerFit);
    }

    @Override public String name() { return Schedules.PAPER; }

    @Override public boolean needsFitGain() { return false; }

    @Override
    public int passAfterFit(Passing engine, Fit fit) {
        engine.iterate(sweepsPerFit);
        return sweepsPerFit;
    }
}
