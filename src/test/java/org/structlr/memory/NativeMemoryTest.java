package org.structlr.memory;

import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.bytedeco.javacpp.Pointer;
import org.junit.jupiter.api.Test;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;

/** Native memory back to the OS: the JVM's trim command answers here (JDK 17.0.9+ on glibc, as in CI), and a release frees unreachable ND4J arrays. */
class NativeMemoryTest {

    @Test
    void trimRunsAndReportsTheResidentSizeBeforeAndAfter() {
        String report = NativeMemory.trim();
        assertNotNull(report, "the JVM's System.trim_native_heap command is not reachable");
        Matcher m = Pattern.compile("RSS\\+Swap: (\\d+)([KMG])->(\\d+)([KMG])").matcher(report);
        assertTrue(m.find(), report);
        assertTrue(bytes(m.group(3), m.group(4)) <= bytes(m.group(1), m.group(2)), report);
    }

    /**
     * 480 MB of ND4J arrays, written (so their pages are resident) and dropped: a few small Java
     * objects, which no collection would come for soon, hold them. After a release the process's
     * resident size falls by most of that (the 40 MB buffers are mmapped by malloc, so freeing them
     * returns them at once; ND4J frees them on its deallocator threads, so the fall is awaited).
     */
    @Test
    void releaseFreesTheBuffersOfUnreachableArrays() throws InterruptedException {
        long before = Pointer.physicalBytes();
        List<INDArray> arrays = new ArrayList<>();
        for (int k = 0; k < 12; k++) arrays.add(Nd4j.create(DataType.FLOAT, 10_000_000).assign(1f));
        long full = Pointer.physicalBytes();
        assertTrue(full - before > 400L << 20, "the arrays are resident: " + ((full - before) >> 20) + " MB");
        arrays.clear();
        NativeMemory.releaseNow();
        long after = full;
        // Up to 30 s, asking again every second: on a loaded machine the collector and ND4J's
        // deallocator threads may take more than a few seconds (5 s failed at load 16); the loop
        // ends as soon as the fall is seen, so an idle run still takes well under a second.
        for (int wait = 1; wait <= 600 && full - after < 300L << 20; wait++) {
            Thread.sleep(50);
            if (wait % 20 == 0) NativeMemory.releaseNow();
            after = Pointer.physicalBytes();
        }
        assertTrue(full - after >= 300L << 20, "resident size fell by only " + ((full - after) >> 20) + " MB after the release");
    }

    private static long bytes(String n, String unit) {
        return Long.parseLong(n) << switch (unit) {
            case "K" -> 10;
            case "M" -> 20;
            default -> 30;
        };
    }
}
