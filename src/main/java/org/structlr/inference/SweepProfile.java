package org.structlr.inference;


/** Nanoseconds spent per phase of the grid engine's sweeps while {@link #on} (a measuring hook for GridSpeedCheck). */
public final class SweepProfile {
    public static final String[] PHASES = {"z = P + neighbour msg", "m = lse_yo z", "mask real edges", "total, U, lambda"};
    public final long[] nanos = new long[PHASES.length];
    public boolean on;

    public void reset() { java.util.Arrays.fill(nanos, 0); }

    public long now() { return on ? System.nanoTime() : 0; }
}
