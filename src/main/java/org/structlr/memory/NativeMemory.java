package org.structlr.memory;

import java.lang.management.ManagementFactory;
import javax.management.ObjectName;

/**
 * Gives native memory back to the operating system during long fits, at most every
 * {@value #MIN_INTERVAL_SECONDS} seconds: a garbage collection, then a trim of the C heap.
 *
 * <p>Why by hand, measured on an FCN run on the horses at longest side 96 (resident memory grew to
 * 10-11.7 GB within each iteration): (1) ND4J frees an array's native buffer only when the garbage
 * collector finds the Java object unreachable, and a heap of a few GB collects rarely while native
 * buffers of many MB pile up behind small objects (there: a trim alone freed nothing, a collection
 * and a trim 2 GB); ND4J's own periodic collection is off by default and tied to its allocator.
 * (2) glibc's malloc keeps freed memory in its arenas (a trim after the iteration: 10.9 -> 6.4 GB).
 * The trim is the JVM's {@code System.trim_native_heap} command through its diagnostic MBean
 * (JDK 17.0.9 or later, glibc; elsewhere only the collection runs). Not
 * {@code -XX:TrimNativeHeapInterval}: older JDK 17 builds refuse to start with an unknown flag, and
 * it would not collect.
 */
public final class NativeMemory {
    static final double MIN_INTERVAL_SECONDS = 30;
    private static final String OPERATION = "systemTrimNativeHeap";
    private static volatile boolean trimUnavailable;
    private static long lastNanos = System.nanoTime();

    private NativeMemory() {}

    /** {@link #releaseNow} if the last release was at least {@value #MIN_INTERVAL_SECONDS} s ago (cheap otherwise); true if it ran. */
    public static synchronized boolean release() {
        if (System.nanoTime() - lastNanos < MIN_INTERVAL_SECONDS * 1e9) return false;
        releaseNow();
        return true;
    }

    /**
     * A trim, then a collection. In this order because ND4J frees the buffers of collected arrays on
     * its own deallocator threads, after the collection returns: a trim right after it would find
     * little, so each trim returns what the previous collection let go.
     */
    static synchronized void releaseNow() {
        trim();
        System.gc();
        lastNanos = System.nanoTime();
    }

    /** Trims the C heap at once; the JVM's report ("Trim native heap: RSS+Swap: 10903M->6389M ..."), or null where unavailable. */
    static String trim() {
        if (trimUnavailable) return null;
        try {
            Object out = ManagementFactory.getPlatformMBeanServer().invoke(new ObjectName("com.sun.management:type=DiagnosticCommand"),
                    OPERATION, new Object[] {new String[0]}, new String[] {String[].class.getName()});
            return String.valueOf(out).trim();
        } catch (Exception | LinkageError e) {   // not this JVM's command, or no management support
            trimUnavailable = true;
            return null;
        }
    }
}
