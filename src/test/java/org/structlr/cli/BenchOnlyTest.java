package org.structlr.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code bench --only}: only the matching rows are run and written (no timing is checked). */
class BenchOnlyTest {
    @TempDir
    Path dir;

    @Test
    void onlyRunsTheRowsWhoseNamesContainEveryText() throws Exception {
        Path out = dir.resolve("r.md");
        InferCommandTest.Run r = InferCommandTest.run("bench", "--only", "fused", "--only", "(a)", "--only", "1 thread",
                "--seconds", "0.05", "--no-contention", "--learn-iterations", "0", "--output", out.toString());
        assertEquals(0, r.code(), r.err());
        List<String> rows = Files.readAllLines(out).stream().filter(l -> l.startsWith("| (")).collect(Collectors.toList());
        assertEquals(1, rows.size(), String.join("\n", rows));
        assertTrue(rows.get(0).startsWith("| (a) 16 grids 100x100 | fused (Vector API), 1 thread |"), rows.get(0));
    }
}
