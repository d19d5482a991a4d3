package org.structlr.memory;

import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.factory.Nd4j;

/** The C-heap trim reaches the JVM's command here (JDK 17.0.9+ on glibc, as in CI) and never grows the process. */
class NativeMemoryTest {

    @Test
    void trimRunsAndReportsTheResidentSizeBeforeAndAfter() {
        for (int k = 0; k < 20; k++) Nd4j.rand(DataType.FLOAT, 1000, 1000 + k).mmul(Nd4j.rand(DataType.FLOAT, 1000 + k, 50)).close();
        String report = NativeMemory.trim();
        assertNotNull(report, "the JVM's System.trim_native_heap command is not reachable");
        Matcher m = Pattern.compile("RSS\\+Swap: (\\d+)([KMG])->(\\d+)([KMG])").matcher(report);
        assertTrue(m.find(), report);
        assertTrue(bytes(m.group(3), m.group(4)) <= bytes(m.group(1), m.group(2)), report);
    }

    private static long bytes(String n, String unit) {
        return Long.parseLong(n) << switch (unit) {
            case "K" -> 10;
            case "M" -> 20;
            default -> 30;
        };
    }
}
