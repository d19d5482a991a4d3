package org.structlr.inference;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.function.LongSupplier;

/**
 * When long work must stop. {@link #wall} is what a user's time limit means; {@link #threadCpu}
 * counts only the calling thread's CPU time, so that a benchmark on a shared machine gives every
 * model the same work whatever else runs (single-threaded engines only).
 */
@FunctionalInterface
public interface Deadline {
    /** True once the time is up. */
    boolean passed();

    /**
     * A deadline for one part of the work: it passes once {@code fraction} of the time this one has
     * left now has gone by on this one's clock (so never after this one). A deadline with no clock
     * ({@link #NONE}, or a bare {@link #passed} test) is its own share.
     */
    default Deadline share(double fraction) {
        return this;
    }

    /** Never passes. */
    Deadline NONE = () -> false;

    /** Passes {@code seconds} of wall-clock time from now. */
    static Deadline wall(double seconds) {
        return after(System::nanoTime, seconds);
    }

    /** Passes once the calling thread has used {@code seconds} more CPU time (checked on the thread that made it). */
    static Deadline threadCpu(double seconds) {
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        return after(mx::getCurrentThreadCpuTime, seconds);
    }

    /** Passes once {@code clock} (nanoseconds) has advanced {@code seconds} from its reading now. */
    static Deadline after(LongSupplier clock, double seconds) {
        if (!(seconds >= 0)) throw new IllegalArgumentException("seconds must be at least 0, got " + seconds);
        return at(clock, clock.getAsLong() + (long) (seconds * 1e9));
    }

    private static Deadline at(LongSupplier clock, long end) {
        return new Deadline() {
            @Override
            public boolean passed() {
                return clock.getAsLong() - end > 0;
            }

            @Override
            public Deadline share(double fraction) {
                if (!(fraction > 0 && fraction <= 1)) throw new IllegalArgumentException("fraction must be in (0, 1], got " + fraction);
                long now = clock.getAsLong();
                return end - now < 0 ? this : at(clock, now + (long) (fraction * (end - now)));
            }
        };
    }
}
