package org.structlr.learn;

import java.lang.management.ManagementFactory;
import javax.management.ObjectName;

/**
 * Returns native memory that the C allocator holds after it was freed to the operating system, at
 * most every {@value #MIN_INTERVAL_SECONDS} seconds. Why: ND4J, oneDNN and XGBoost allocate and free
 * large native buffers of ever new sizes (images of many sizes), and glibc's malloc keeps freed
 * memory in its arenas: an FCN run on the horses at longest side 96 grew to 10.9 GB resident, of
 * which 4.5 GB came back in one trim (measured with {@code jcmd PID System.trim_native_heap}). This
 * is that command, through the JVM's own diagnostic MBean (JDK 17.0.9 or later, glibc); where the
 * JVM lacks it nothing happens. Not {@code -XX:TrimNativeHeapInterval}: older JDK 17 builds refuse
 * to start with an unknown flag.
 */
public final class NativeHeap {
    static final double MIN_INTERVAL_SECONDS = 10;
    private static final String OPERATION = "systemTrimNativeHeap";
    private static volatile boolean unavailable;
    private static long lastNanos = System.nanoTime();

    private NativeHeap() {}

    /** Trims the native heap if the last trim was at least {@value #MIN_INTERVAL_SECONDS} s ago; true if it ran. */
    public static synchronized boolean trimNow() {
        if (unavailable || System.nanoTime() - lastNanos < MIN_INTERVAL_SECONDS * 1e9) return false;
        lastNanos = System.nanoTime();
        return trim() != null;
    }

    /** Trims at once; the JVM's report ("Trim native heap: RSS+Swap: 10903M->6389M ..."), or null where unavailable. */
    static String trim() {
        if (unavailable) return null;
        try {
            Object out = ManagementFactory.getPlatformMBeanServer().invoke(new ObjectName("com.sun.management:type=DiagnosticCommand"),
                    OPERATION, new Object[] {new String[0]}, new String[] {String[].class.getName()});
            return String.valueOf(out).trim();
        } catch (Exception | LinkageError e) {   // not this JVM's command, or no management support
            unavailable = true;
            return null;
        }
    }
}
