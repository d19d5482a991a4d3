package org.structlr.inference;

/** Nanoseconds spent per phase of the grid engine's sweeps while {@link #on} (a measuring hook for GridSpeedCheck). */
final class SweepProfile {
    static final String[] PHASES = {"z = P + neighbour msg", "m = lse_yo z", "mask real edges", "total, U, lambda"};
    final long[] nanos = new long[PHASES.length];
    boolean on;

    void reset() { java.util.Arrays.fill(nanos, 0); }

    long now() { return on ? System.nanoTime() : 0; }
}
