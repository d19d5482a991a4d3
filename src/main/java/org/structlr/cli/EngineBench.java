package org.structlr.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.Set;
import java.util.function.Supplier;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.structlr.data.Dataset;
import org.structlr.data.DenoisingGenerator;
import org.structlr.graph.Coloring;
import org.structlr.graph.FactorGraph;
import org.structlr.graph.GridBatch;
import org.structlr.graph.Grids;
import org.structlr.inference.MessagePassing;
import org.structlr.inference.engines.Engines;
import org.structlr.inference.fused.FusedGridMessagePassing;
import org.structlr.inference.loop.LoopMessagePassing;
import org.structlr.inference.nd4j.GraphMessagePassing;
import org.structlr.inference.nd4j.GridMessagePassing;
import org.structlr.learn.LearnSettings;
import org.structlr.learn.Training;

/**
 * The benchmark behind {@code structlr bench} ({@link BenchCommand} parses its options and writes
 * its tables): the cases and the engines that run them, how one row is warmed up and timed, the
 * contention case and the learning-loop case. Engines are known here by their constructors, so
 * every engine family is timed whatever {@link Engines} would pick.
 */
final class EngineBench {
    static final double EPS = 0.1;
    static final long SEED = 20130101L;

    private final double seconds;
    private final int repeat;

    /** Rows timed for about {@code seconds}, {@code repeat} times (the median is kept). */
    EngineBench(double seconds, int repeat) {
        this.seconds = seconds;
        this.repeat = repeat;
    }

    /** One engine on one case: how to build it (null when it is not in this build). */
    record EngineSpec(String name, Supplier<MessagePassing> factory) {}

    /** A benchmark problem and the engines that run it. */
    record Case(String name, int variables, int edges, int labels, List<EngineSpec> engines) {}

    /** One line of the table: an engine on a case, asked for {@code perCall} sweeps per call. */
    record Row(Case c, String engine, int perCall, long sweeps, double seconds, double cpuSeconds, double stolen, String note) {
        Row(Case c, String engine, int perCall, String note) {
            this(c, engine, perCall, 0, 0, 0, Double.NaN, note);
        }

        double updatesPerSecond() {
            return sweeps * (double) c.variables() / seconds;
        }

        double updatesPerCpuSecond() {
            return sweeps * (double) c.variables() / cpuSeconds;
        }
    }

    /** The three cases; the engines are built lazily, one at a time, so only one lives at once. */
    static List<Case> cases() {
        List<Case> cases = new ArrayList<>();
        cases.add(gridCase("(a) 16 grids 100x100", 16, 100, 100, 2));
        cases.add(gridCase("(b) 4 grids 256x256", 4, 256, 256, 5));

        int n = 100_000, m = 200_000;
        Supplier<FactorGraph> random = memo(() -> randomGraph(n, m, 2, SEED));
        Supplier<Coloring> greedy = memo(() -> Coloring.greedy(random.get()));
        cases.add(new Case("(c) random graph, degree 4", n, m, 2, List.of(
                new EngineSpec("fused (Vector API)", () -> {
                    throw new UnsupportedOperationException("grids only");
                }),
                new EngineSpec("graph (ND4J, float)", () -> new GraphMessagePassing(random.get(), greedy.get(), EPS, DataType.FLOAT)),
                loop(random, greedy))));
        return cases;
    }

    private static Case gridCase(String name, int count, int h, int w, int labels) {
        Supplier<FactorGraph> union = memo(() -> FactorGraph.disjointUnion(Collections.nCopies(count, Grids.grid(h, w, labels, false))));
        Supplier<Coloring> board = () -> Coloring.checkerboard(h, w, count);
        int edges = count * (h * (w - 1) + (h - 1) * w);
        return new Case(name, count * h * w, edges, labels, List.of(
                fused(count, h, w, labels, 1),
                fused(count, h, w, labels, 2),
                new EngineSpec("grid (ND4J, float)", () -> new GridMessagePassing(count, h, w, labels, EPS, DataType.FLOAT)),
                new EngineSpec("graph (ND4J, float)", () -> new GraphMessagePassing(union.get(), board.get(), EPS, DataType.FLOAT)),
                loop(union, board)));
    }

    /** The fused engine on {@code threads} threads; "n/a" without the Vector API module. */
    private static EngineSpec fused(int count, int h, int w, int labels, int threads) {
        return new EngineSpec("fused (Vector API), " + threads + (threads == 1 ? " thread" : " threads"), () -> {
            if (!Engines.vectorApiPresent()) throw new UnsupportedOperationException("start java with --add-modules jdk.incubator.vector");
            return new FusedGridMessagePassing(GridBatch.uniform(count, h, w), labels, EPS, threads);
        });
    }

    private static EngineSpec loop(Supplier<FactorGraph> g, Supplier<Coloring> c) {
        return new EngineSpec("loop (plain Java)", () -> new LoopMessagePassing(g.get(), c.get(), EPS));
    }

    /** {@code m} distinct random edges over {@code n} variables (no self-loops), from a fixed seed. */
    static FactorGraph randomGraph(int n, int m, int labels, long seed) {
        Random rnd = new Random(seed);
        Set<Long> seen = new HashSet<>(2 * m);
        int[][] edges = new int[m][];
        int k = 0;
        while (k < m) {
            int i = rnd.nextInt(n), j = rnd.nextInt(n);
            if (i == j) continue;
            int a = Math.min(i, j), b = Math.max(i, j);
            if (seen.add((long) a * n + b)) edges[k++] = new int[] {a, b};
        }
        return FactorGraph.of(n, labels, edges);
    }

    private static <T> Supplier<T> memo(Supplier<T> s) {
        return new Supplier<>() {
            private T value;

            @Override
            public synchronized T get() {
                if (value == null) value = s.get();
                return value;
            }
        };
    }

    /** Builds the engine, sets random potentials, warms up, then times calls of {@code sweepsPerCall} sweeps for about --seconds. */
    Row measure(Case c, EngineSpec e, int sweepsPerCall) {
        MessagePassing mp;
        try {
            mp = e.factory().get();
        } catch (UnsupportedOperationException ex) {
            return new Row(c, e.name(), sweepsPerCall, "n/a (" + (ex.getMessage() == null ? "not in this build" : ex.getMessage()) + ")");
        } catch (RuntimeException | OutOfMemoryError ex) {
            return new Row(c, e.name(), sweepsPerCall, "failed: " + ex);
        }
        try (mp) {
            FactorGraph g = mp.graph();
            int l = g.maxLabels();
            Nd4j.getRandom().setSeed(SEED);
            INDArray unary = Nd4j.randn(DataType.FLOAT, g.numVariables(), l);
            INDArray pair = Nd4j.randn(DataType.FLOAT, g.numEdges(), (long) l * l);
            mp.setPotentials(unary, pair);

            // Warm-up: JIT (the Vector API kernels reach full speed only once C2 has compiled them,
            // which takes seconds on a busy machine), scratch buffers, native thread pools. Rounds of
            // ~1/4 of the time until a round is no more than 5% faster than the one before (at most 12).
            long round = (long) (0.25 * seconds * 1e9);
            double previous = 0;
            for (int r = 0; r < 12; r++) {
                long t0 = System.nanoTime(), k = 0;
                do {
                    mp.iterate(sweepsPerCall);
                    Nd4j.getExecutioner().commit(); // wait for queued device work (a no-op on CPU)
                    k++;
                } while (k < 3 || System.nanoTime() - t0 < round);
                double rate = k / ((System.nanoTime() - t0) / 1e9);
                if (r > 0 && rate <= 1.05 * previous) break;
                previous = rate;
            }
            List<Row> runs = new ArrayList<>();
            for (int i = 0; i < repeat; i++) runs.add(timeRun(c, e, mp, sweepsPerCall));
            runs.sort(java.util.Comparator.comparingDouble(Row::updatesPerSecond));
            Row median = runs.get((repeat - 1) / 2);
            double dual = mp.dual();
            String note = !Double.isFinite(dual) ? "failed: dual is " + dual + " after the sweeps"
                    : repeat == 1 ? "" : String.format(Locale.ROOT, "median of %d runs (%.1f-%.1f M/s)", repeat,
                            runs.get(0).updatesPerSecond() / 1e6, runs.get(repeat - 1).updatesPerSecond() / 1e6);
            double stolen = runs.stream().mapToDouble(Row::stolen).max().orElse(Double.NaN);
            if (stolen >= 0.01 && !note.startsWith("failed")) {
                note = (note.isEmpty() ? "" : note + "; ") + String.format(Locale.ROOT, "the hypervisor took up to %.0f%% of the cores' time", 100 * stolen);
            }
            return new Row(c, e.name(), sweepsPerCall, median.sweeps(), median.seconds(), median.cpuSeconds(), stolen, note);
        } catch (RuntimeException | OutOfMemoryError ex) {
            return new Row(c, e.name(), sweepsPerCall, "failed: " + ex);
        }
    }

    /** One timed run of about {@code seconds} of calls. */
    private Row timeRun(Case c, EngineSpec e, MessagePassing mp, int sweepsPerCall) {
        long budget = (long) (seconds * 1e9);
        long sweeps = 0;
        long cpu0 = processCpuNanos();
        long[] ticks0 = machineTicks();
        long start = System.nanoTime(), now;
        do {
            mp.iterate(sweepsPerCall);
            Nd4j.getExecutioner().commit();
            sweeps += sweepsPerCall;
            now = System.nanoTime();
        } while (now - start < budget);
        return new Row(c, e.name(), sweepsPerCall, sweeps, (now - start) / 1e9, (processCpuNanos() - cpu0) / 1e9,
                stolenShare(ticks0, machineTicks()), "");
    }

    /**
     * A fused row on several threads gets its speed-up over the 1-thread row of the same case and
     * sweeps per call in its note: on the wall clock, per CPU-second, and the cores each row's
     * median run had (CPU-seconds per second). Wall ratio = per-CPU-second ratio x (cores of the
     * threaded run / cores of the 1-thread run), so a reader sees whether a low ratio is the engine
     * (per CPU-second below 1) or the host (fewer cores than threads).
     */
    static Row withSpeedUp(Row r, List<Row> before) {
        if (r.sweeps() == 0 || r.note().startsWith("failed") || !r.engine().startsWith("fused") || !r.engine().endsWith(" threads")) return r;
        for (Row one : before) {
            if (one.c() == r.c() && one.perCall() == r.perCall() && one.sweeps() > 0 && one.engine().startsWith("fused") && one.engine().endsWith(" 1 thread")) {
                String speedUp = String.format(Locale.ROOT, "%.2fx 1 thread", r.updatesPerSecond() / one.updatesPerSecond());
                if (r.cpuSeconds() > 0 && one.cpuSeconds() > 0) {
                    speedUp += String.format(Locale.ROOT, ", %.2fx per CPU-second (cores in use %.2f against %.2f)",
                            r.updatesPerCpuSecond() / one.updatesPerCpuSecond(), r.cpuSeconds() / r.seconds(), one.cpuSeconds() / one.seconds());
                }
                return new Row(r.c(), r.engine(), r.perCall(), r.sweeps(), r.seconds(), r.cpuSeconds(), r.stolen(),
                        r.note().isEmpty() ? speedUp : speedUp + "; " + r.note());
            }
        }
        return r;
    }

    /**
     * The machine's CPU time so far, from the first line of Linux's /proc/stat (in clock ticks, all
     * cores): {all eight counters, steal}, or null elsewhere. Steal is the time the hypervisor ran
     * other guests while this one wanted a core; on a shared virtual machine it, not the code, moves
     * a row from run to run, so the bench says when it happened. (No library reads it; ten lines do.)
     */
    static long[] machineTicks() {
        try {
            String[] f = Files.readAllLines(Path.of("/proc/stat")).get(0).trim().split("\\s+");
            if (!f[0].equals("cpu") || f.length < 9) return null;
            long all = 0;
            for (int i = 1; i <= 8; i++) all += Long.parseLong(f[i]);   // user nice system idle iowait irq softirq steal
            return new long[] {all, Long.parseLong(f[8])};
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    /** The share of the machine's CPU time stolen between two {@link #machineTicks()} readings, NaN when unknown. */
    static double stolenShare(long[] before, long[] after) {
        if (before == null || after == null || after[0] <= before[0]) return Double.NaN;
        return (double) (after[1] - before[1]) / (after[0] - before[0]);
    }

    /** CPU time of this process (all threads, native ones included), or -1 when the JVM cannot tell. */
    static long processCpuNanos() {
        if (java.lang.management.ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os) {
            return os.getProcessCpuTime();
        }
        return -1;
    }

    /**
     * Case (a) with the fused engine (2 threads) and the ND4J grid engine, each timed alone and then
     * beside one CPU-bound process that the bench starts and kills, at {@code sweepsPerCall} sweeps per
     * call; the ratio is the slow-down.
     */
    String contention(PrintWriter w, int sweepsPerCall) {
        Case a = cases().get(0);
        List<EngineSpec> engines = new ArrayList<>();
        for (EngineSpec e : a.engines()) if (e.name().endsWith("2 threads") || e.name().startsWith("grid (ND4J")) engines.add(e);
        StringBuilder t = new StringBuilder("| engine | alone: star updates / s | beside a busy process | slow-down |\n|---|---:|---:|---:|\n");
        w.println();
        w.println("(d) contention, case (a):");
        w.println(t.toString().trim());
        for (EngineSpec e : engines) {
            Row alone = measure(a, e, sweepsPerCall);
            Row busy;
            Process hog = null;
            try {
                hog = new ProcessBuilder("sh", "-c", "while :; do :; done").redirectErrorStream(true).start();
                busy = measure(a, e, sweepsPerCall);
            } catch (IOException ex) {
                busy = new Row(a, e.name(), sweepsPerCall, "failed: cannot start the busy process: " + ex);
            } finally {
                if (hog != null) {
                    hog.destroyForcibly();
                    try {
                        hog.waitFor();
                    } catch (InterruptedException ex) {
                        Thread.currentThread().interrupt();
                    }
                }
            }
            String line = alone.sweeps() > 0 && busy.sweeps() > 0
                    ? String.format(Locale.ROOT, "| %s | %,.0f | %,.0f | %.2fx |", e.name(), alone.updatesPerSecond(), busy.updatesPerSecond(),
                            alone.updatesPerSecond() / busy.updatesPerSecond())
                    : "| " + e.name() + " | " + alone.note() + " | " + busy.note() + " | |";
            t.append(line).append('\n');
            w.println(line);
            w.flush();
        }
        return t.toString();
    }

    /**
     * {@code --learn-iterations} iterations of the paper's schedule with linear unary and pairwise
     * oracles on the denoising set (generated with a fixed seed), through the same path as
     * {@code train}: the engine is the one {@link Engines} picks.
     */
    static String learningLoop(PrintWriter w, int learnIterations, int n) {
        Engines.setThreads(n);
        Dataset data = new DenoisingGenerator().generate(16, 16, SEED);
        long t0 = System.nanoTime();
        Training.Outcome o = Training.train(data, "linear", "linear", LearnSettings.paperDefaults(learnIterations, SEED), n,
                (rec, total) -> { });
        double total = (System.nanoTime() - t0) / 1e9, it = learnIterations;
        double err = o.curve().isEmpty() ? Double.NaN : o.curve().get(o.curve().size() - 1).testError();
        String t = "| iterations | threads | s / iteration | oracle fits | message passing | evaluation | other | test error |\n"
                + "|---:|---:|---:|---:|---:|---:|---:|---:|\n"
                + String.format(Locale.ROOT, "| %d | %d | %.2f | %.2f | %.2f | %.2f | %.2f | %.4f |%n", learnIterations, n, total / it,
                        o.fitSeconds() / it, o.passingSeconds() / it, o.evalSeconds() / it,
                        (total - o.fitSeconds() - o.passingSeconds() - o.evalSeconds()) / it, err);
        w.println();
        w.println("(e) learning loop, seconds per iteration:");
        w.print(t);
        w.flush();
        return t;
    }
}
