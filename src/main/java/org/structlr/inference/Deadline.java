package org.structlr.inference;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;

/**
 * When long work must stop. {@link #wall} is what a user's time limit means; {@link #threadCpu}
 * counts only the calling thread's CPU time, so that a benchmark on a shared machine gives every
 * model the same work whatever else runs (single-threaded engines only).
 */
@FunctionalInterface
public interface Deadline {
    /** True once the time is up. */
    boolean passed();

    /** Never passes. */
    Deadline NONE = () -> false;

    /** Passes {@code seconds} of wall-clock time from now. */
    static Deadline wall(double seconds) {
        long end = System.nanoTime() + (long) (seconds * 1e9);
        return () -> System.nanoTime() - end > 0;
    }

    /** Passes once the calling thread has used {@code seconds} more CPU time (checked on the thread that made it). */
    static Deadline threadCpu(double seconds) {
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        long end = mx.getCurrentThreadCpuTime() + (long) (seconds * 1e9);
        return () -> mx.getCurrentThreadCpuTime() - end > 0;
    }
}
