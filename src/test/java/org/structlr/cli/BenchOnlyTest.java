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

    @Test
    void sweepsPerCallCountsEverySweepOfACall() throws Exception {
        Path out = dir.resolve("k.md");
        InferCommandTest.Run r = InferCommandTest.run("bench", "--only", "fused", "--only", "(a)", "--only", "1 thread",
                "--sweeps-per-call", "7", "--seconds", "0.05", "--no-contention", "--learn-iterations", "0", "--output", out.toString());
        assertEquals(0, r.code(), r.err());
        List<String> lines = Files.readAllLines(out);
        assertTrue(lines.contains("- sweeps per engine call in cases (a)-(c): 7"), String.join("\n", lines));
        String row = lines.stream().filter(l -> l.startsWith("| (a)")).findFirst().orElseThrow();
        long sweeps = Long.parseLong(row.split("\\|")[6].trim()); // | case | engine | variables | edges | labels | sweeps |
        assertTrue(sweeps > 0 && sweeps % 7 == 0, row);

        InferCommandTest.Run bad = InferCommandTest.run("bench", "--sweeps-per-call", "0", "--output", dir.resolve("x.md").toString());
        assertEquals(2, bad.code());
        assertTrue(bad.err().contains("--sweeps-per-call must be at least 1"), bad.err());
        assertTrue(Files.notExists(dir.resolve("x.md")));
    }
}
