package org.structlr.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code bench --only}, {@code --sweeps-per-call}, {@code --repeat}: what is run and written (no timing is checked). */
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
        assertEquals(2, rows.size(), "one row per default sweeps per call (1 and 25)\n" + String.join("\n", rows));
        assertTrue(rows.get(0).startsWith("| (a) 16 grids 100x100 | fused (Vector API), 1 thread | 160,000 | 316,800 | 2 | 1 |"), rows.get(0));
        assertTrue(rows.get(1).startsWith("| (a) 16 grids 100x100 | fused (Vector API), 1 thread | 160,000 | 316,800 | 2 | 25 |"), rows.get(1));
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
        long sweeps = Long.parseLong(row.split("\\|")[7].trim()); // | case | engine | variables | edges | labels | per call | sweeps |
        assertEquals("7", row.split("\\|")[6].trim(), row);
        assertTrue(sweeps > 0 && sweeps % 7 == 0, row);

        InferCommandTest.Run bad = InferCommandTest.run("bench", "--sweeps-per-call", "0", "--output", dir.resolve("x.md").toString());
        assertEquals(2, bad.code());
        assertTrue(bad.err().contains("--sweeps-per-call must be at least 1"), bad.err());
        assertTrue(Files.notExists(dir.resolve("x.md")));
    }

    @Test
    void repeatShowsTheMedianRunAndTheSpeedUpOfTwoThreads() throws Exception {
        Path out = dir.resolve("m.md");
        InferCommandTest.Run r = InferCommandTest.run("bench", "--only", "fused", "--only", "(a)", "--repeat", "3", "--sweeps-per-call", "1",
                "--seconds", "0.05", "--no-contention", "--learn-iterations", "0", "--output", out.toString());
        assertEquals(0, r.code(), r.err());
        List<String> lines = Files.readAllLines(out);
        assertTrue(lines.contains("- timed runs per row: 3 (the median run is shown)"), String.join("\n", lines));
        List<String> rows = lines.stream().filter(l -> l.startsWith("| (a)")).collect(Collectors.toList());
        assertEquals(2, rows.size(), String.join("\n", rows));
        assertTrue(rows.get(0).contains("fused (Vector API), 1 thread") && rows.get(0).matches(".*\\| median of 3 runs \\([0-9.]+-[0-9.]+ M/s\\)(; the hypervisor took up to [0-9]+% of the cores' time)? \\|$"), rows.get(0));
        assertTrue(rows.get(1).contains("fused (Vector API), 2 threads") && rows.get(1).matches(".*\\| [0-9.]+x 1 thread, [0-9.]+x per CPU-second \\(cores in use [0-9.]+ against [0-9.]+\\); median of 3 runs .*"), rows.get(1));
        for (String row : rows) {
            // the row's rate is one of the runs: inside the range it prints
            String[] cells = row.split("\\|");
            double rate = Double.parseDouble(cells[10].trim().replace(",", "")) / 1e6;
            java.util.regex.Matcher m = java.util.regex.Pattern.compile("\\(([0-9.]+)-([0-9.]+) M/s\\)").matcher(cells[12]);
            assertTrue(m.find(), row);
            assertTrue(rate >= Double.parseDouble(m.group(1)) - 0.05 && rate <= Double.parseDouble(m.group(2)) + 0.05, row);
        }
        String[] one = rows.get(0).split("\\|"), two = rows.get(1).split("\\|");
        double speedUp = Double.parseDouble(two[10].trim().replace(",", "")) / Double.parseDouble(one[10].trim().replace(",", ""));
        assertEquals(speedUp, Double.parseDouble(two[12].trim().split("x")[0]), 0.006, "the speed-up is the ratio of the two rows");

        InferCommandTest.Run bad = InferCommandTest.run("bench", "--repeat", "0", "--output", dir.resolve("y.md").toString());
        assertEquals(2, bad.code());
        assertTrue(bad.err().contains("--repeat must be at least 1"), bad.err());
        assertTrue(Files.notExists(dir.resolve("y.md")));
    }

    @Test
    void twoThreadsAreComparedWithOneThreadAtTheSameSweepsPerCall() throws Exception {
        Path out = dir.resolve("s.md");
        InferCommandTest.Run r = InferCommandTest.run("bench", "--only", "fused", "--only", "(a)", "--sweeps-per-call", "1,5",
                "--seconds", "0.05", "--no-contention", "--learn-iterations", "0", "--output", out.toString());
        assertEquals(0, r.code(), r.err());
        List<String> lines = Files.readAllLines(out);
        assertTrue(lines.contains("- sweeps per engine call in cases (a)-(c): 1, 5"), String.join("\n", lines));
        List<String[]> rows = lines.stream().filter(l -> l.startsWith("| (a)")).map(l -> l.split("\\|")).collect(Collectors.toList());
        assertEquals(4, rows.size(), String.join("\n", lines));
        for (int k = 0; k < 2; k++) {
            String[] one = rows.get(k), two = rows.get(2 + k);
            assertTrue(one[2].contains("1 thread") && two[2].contains("2 threads"), String.join("|", two));
            assertEquals(k == 0 ? "1" : "5", one[6].trim());
            assertEquals(one[6].trim(), two[6].trim(), "the pair has the same sweeps per call");
            double speedUp = Double.parseDouble(two[10].trim().replace(",", "")) / Double.parseDouble(one[10].trim().replace(",", ""));
            assertEquals(speedUp, Double.parseDouble(two[12].trim().split("x")[0]), 0.006, String.join("|", two));
            // per CPU-second and the cores in use: the wall ratio split into engine and host
            java.util.regex.Matcher m = java.util.regex.Pattern.compile(
                    "x 1 thread, ([0-9.]+)x per CPU-second \\(cores in use ([0-9.]+) against ([0-9.]+)\\)").matcher(two[12]);
            assertTrue(m.find(), String.join("|", two));
            double perCpu = Double.parseDouble(two[11].trim().replace(",", "")) / Double.parseDouble(one[11].trim().replace(",", ""));
            assertEquals(perCpu, Double.parseDouble(m.group(1)), 0.006, String.join("|", two));
            double coresTwo = Double.parseDouble(two[10].trim().replace(",", "")) / Double.parseDouble(two[11].trim().replace(",", ""));
            double coresOne = Double.parseDouble(one[10].trim().replace(",", "")) / Double.parseDouble(one[11].trim().replace(",", ""));
            assertEquals(coresTwo, Double.parseDouble(m.group(2)), 0.006, String.join("|", two));
            assertEquals(coresOne, Double.parseDouble(m.group(3)), 0.006, String.join("|", one));
        }
    }

    @Test
    void stolenTimeIsTheStealTicksShareOfAllTicks() {
        assertEquals(0.2, EngineBench.stolenShare(new long[] {1_000, 40}, new long[] {1_500, 140}), 1e-12);
        assertTrue(Double.isNaN(EngineBench.stolenShare(null, new long[] {1, 0})));
        assertTrue(Double.isNaN(EngineBench.stolenShare(new long[] {5, 0}, new long[] {5, 0})), "no time passed");
        long[] now = EngineBench.machineTicks();
        if (Files.isReadable(Path.of("/proc/stat"))) {
            assertTrue(now != null && now[0] > 0 && now[1] >= 0 && now[1] <= now[0], java.util.Arrays.toString(now));
        } else {
            assertEquals(null, now, "no /proc/stat: unknown");
        }
    }
}
