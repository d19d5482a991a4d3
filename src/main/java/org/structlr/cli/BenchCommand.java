package org.structlr.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Properties;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.function.Supplier;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.structlr.graph.Coloring;
import org.structlr.graph.FactorGraph;
import org.structlr.graph.Grids;
import org.structlr.data.Dataset;
import org.structlr.data.DenoisingGenerator;
import org.structlr.graph.GridBatch;
import org.structlr.inference.engines.Engines;
import org.structlr.inference.fused.FusedGridMessagePassing;
import org.structlr.inference.nd4j.GraphMessagePassing;
import org.structlr.inference.nd4j.GridMessagePassing;
import org.structlr.inference.loop.LoopMessagePassing;
import org.structlr.inference.MessagePassing;
import org.structlr.learn.LearnSettings;
import org.structlr.learn.Training;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code structlr bench}: star-update throughput of the message-passing engines, in variables
 * updated per second (one sweep updates every variable once), on
 * <ol type="a">
 *   <li>16 grids of 100x100, 2 labels;</li>
 *   <li>4 grids of 256x256, 5 labels;</li>
 *   <li>a random general graph of 100,000 variables, 200,000 distinct random edges (average
 *       degree 4, fixed seed), 2 labels.</li>
 * </ol>
 * Every case runs the fused Vector API engine (grids only) on 1 and 2 threads, the batched ND4J
 * engines in float (the grid engine only on grids) and the plain Java loop engine as the baseline,
 * in the same run on the same machine. Potentials are random normal(0, 1), unary and pairwise,
 * eps = 0.1. Each engine is warmed up, then timed over repeated sweeps for about {@code --seconds},
 * {@code --repeat} times (the row is the median run; its note gives the range); beside wall-clock
 * throughput the table gives throughput per CPU-second of the process, which says more than wall
 * time on a shared machine, and the fused engine's 2-thread row its speed-up over 1 thread. Then:
 * <ol type="a" start="4">
 *   <li>contention: case (a) with the default engines alone and with one CPU-bound process
 *       ({@code sh -c 'while :; do :; done'}, started and killed by the bench) beside it;</li>
 *   <li>the learning loop: {@code --learn-iterations} iterations of (linear, linear) on the
 *       denoising set (16 train and 16 test images of 100x100), seconds per iteration split into
 *       oracle fits, message passing and evaluation.</li>
 * </ol>
 * The tables are printed and written as Markdown, with the date, Java version, ND4J backend, OpenMP
 * threads and cores, atomically to {@code --output}.
 *
 * <p>The bench knows the engines only by their constructors; an engine that is not in the build
 * is listed as "n/a". An engine that fails is listed with its error and the exit code is 1.
 */
@Command(name = "bench", mixinStandardHelpOptions = true, sortOptions = false,
        description = "Benchmark the message-passing engines: star updates (variables updated) per second.")
final class BenchCommand implements Callable<Integer> {
    static final double EPS = 0.1;
    static final long SEED = 20130101L;

    @Spec
    CommandSpec spec;

    @Option(names = "--output", paramLabel = "FILE", defaultValue = "bench/results.md",
            description = "Markdown results file, written atomically; its folder is created (default: ${DEFAULT-VALUE}).")
    Path output;

    @Option(names = "--seconds", paramLabel = "S", defaultValue = "3",
            description = "Timed seconds per engine and case, after a warm-up (default: ${DEFAULT-VALUE}).")
    double seconds;

    @Option(names = "--repeat", paramLabel = "N", defaultValue = "1",
            description = "Timed runs per engine and case after its warm-up; a row shows the median run and the range "
                    + "(default: ${DEFAULT-VALUE}).")
    int repeat;

    @Option(names = "--threads", paramLabel = "N",
            description = "OpenMP threads of the ND4J native backend (default: as configured, e.g. by OMP_NUM_THREADS).")
    Integer threads;

    @Option(names = "--learn-iterations", paramLabel = "N", defaultValue = "3",
            description = "Learning iterations of the learning-loop case; 0 skips it (default: ${DEFAULT-VALUE}).")
    int learnIterations;

    @Option(names = "--no-contention", description = "Skip the contention case (it runs a CPU-bound process beside the bench).")
    boolean noContention;

    @Option(names = "--sweeps-per-call", paramLabel = "K", defaultValue = "1",
            description = "Sweeps per engine call in cases (a)-(c): 1 times single sweeps; the learner asks for its "
                    + "--sweeps (25) at once, which engines may run as one pass over memory (default: ${DEFAULT-VALUE}).")
    int sweepsPerCall;

    @Option(names = "--only", paramLabel = "TEXT",
            description = "Run only the rows of cases (a)-(c) whose case and engine name contain every TEXT given, e.g. "
                    + "--only fused --only '(b)' for the fused engine on the 5-label case (default: all rows).")
    List<String> only = new ArrayList<>();

    /** One engine on one case: how to build it (null when it is not in this build). */
    record EngineSpec(String name, Supplier<MessagePassing> factory) {}

    /** A benchmark problem and the engines that run it. */
    record Case(String name, int variables, int edges, int labels, List<EngineSpec> engines) {}

    /** One line of the table. */
    record Row(Case c, String engine, long sweeps, double seconds, double cpuSeconds, String note) {
        Row(Case c, String engine, String note) {
            this(c, engine, 0, 0, 0, note);
        }

        double updatesPerSecond() {
            return sweeps * (double) c.variables() / seconds;
        }

        double updatesPerCpuSecond() {
            return sweeps * (double) c.variables() / cpuSeconds;
        }
    }

    @Override
    public Integer call() throws IOException {
        if (!(seconds > 0) || Double.isInfinite(seconds)) {
            throw new ParameterException(spec.commandLine(), "--seconds must be a finite number greater than 0, got " + seconds);
        }
        if (threads != null && threads < 1) {
            throw new ParameterException(spec.commandLine(), "--threads must be at least 1, got " + threads);
        }
        if (repeat < 1) {
            throw new ParameterException(spec.commandLine(), "--repeat must be at least 1, got " + repeat);
        }
        if (sweepsPerCall < 1) {
            throw new ParameterException(spec.commandLine(), "--sweeps-per-call must be at least 1, got " + sweepsPerCall);
        }
        if (learnIterations < 0) {
            throw new ParameterException(spec.commandLine(), "--learn-iterations must be at least 0, got " + learnIterations);
        }
        Path out = output.toAbsolutePath();
        if (Files.isDirectory(out)) throw new org.structlr.data.BadInputException(out, "output is a directory");
        try {
            Files.createDirectories(out.getParent());
        } catch (IOException e) {
            throw new org.structlr.data.BadInputException(out, "cannot create the output folder: " + e);
        }
        InferCommand.checkWritable(out);

        PrintWriter w = spec.commandLine().getOut();
        if (threads != null && setThreads(threads) != threads) {
            spec.commandLine().getErr().println("warning: --threads " + threads + " is above the native thread pool of "
                    + Nd4j.getEnvironment().maxThreads() + "; using " + Nd4j.getEnvironment().maxMasterThreads()
                    + " (set OMP_NUM_THREADS before starting Java for more)");
        }
        String header = environment() + "- sweeps per engine call in cases (a)-(c): " + sweepsPerCall + "\n"
                + "- timed runs per row: " + repeat + (repeat > 1 ? " (the median run is shown)" : "") + "\n";
        w.println(header);
        w.println(tableHeader());
        w.flush();

        List<Row> rows = new ArrayList<>();
        boolean failed = false;
        for (Case c : cases()) {
            for (EngineSpec e : c.engines()) {
                String name = c.name() + " " + e.name();
                if (!only.stream().allMatch(name::contains)) continue;
                Row r = withSpeedUp(measure(c, e), rows);
                failed |= r.note().startsWith("failed");
                rows.add(r);
                w.println(tableRow(r));
                w.flush();
            }
        }
        StringBuilder md = new StringBuilder("# structlr message-passing benchmark\n\n").append(header).append('\n')
                .append("Throughput = star updates per second: variables updated per second, one sweep (iteration) ")
                .append("updating every variable once. Potentials normal(0, 1), eps = ").append(EPS)
                .append(", ND4J engines in float, timed for about ").append(seconds).append(" s after a warm-up. ")
                .append("Per CPU-second: the same divided by the CPU time of the whole process while timing ")
                .append("(on a busy machine closer to what an idle one gives than wall time).\n\n")
                .append(tableHeader()).append('\n');
        for (Row r : rows) md.append(tableRow(r)).append('\n');
        if (!noContention) {
            String t = contention(w);
            md.append("\n## (d) Contention: case (a) alone and beside one CPU-bound process\n\n").append(t);
        }
        if (learnIterations > 0) {
            String t = learningLoop(w);
            md.append("\n## (e) Learning loop: (linear, linear) on the denoising set, 16 train / 16 test 100x100\n\n").append(t);
        }
        InferCommand.writeAtomically(out, md.toString().getBytes(StandardCharsets.UTF_8));
        w.println("wrote " + out);
        w.flush();
        return failed ? Main.EXIT_FAILURE : Main.EXIT_OK;
    }

    /**
     * Threads of the ND4J native (libnd4j) backend in 1.0.0-M2.1 (observed: after
     * {@code setMaxThreads(1)} {@code maxThreads()} still reports the pool size, while
     * {@code maxMasterThreads()} follows; a timing check needs an otherwise idle machine):
     * <ul>
     *   <li>{@code Environment.setMaxMasterThreads(n)} is the knob that works: libnd4j's
     *       {@code Threads::parallel_for} splits every op over this many threads of its pool.</li>
     *   <li>{@code Environment.setMaxThreads(n)} is accepted but ignored ({@code maxThreads()} keeps
     *       the pool size): the pool is sized once, at start-up, from {@code OMP_NUM_THREADS}
     *       (else the core count). So {@code --threads} can lower the threads below the pool but
     *       not raise them above it; set {@code OMP_NUM_THREADS} before starting Java for that.
     *       Master threads above the pool size are capped by libnd4j.</li>
     *   <li>The BLAS library (only matrix products) has its own pool: {@code Blas.setMaxThreads}.</li>
     * </ul>
     * On CUDA they only affect host-side work. Returns the effective per-op thread count.
     */
    static int setThreads(int n) {
        Nd4j.getEnvironment().setMaxThreads(n);
        Nd4j.getEnvironment().setMaxMasterThreads(n);
        try {
            Nd4j.factory().blas().setMaxThreads(n);
        } catch (RuntimeException ignored) {
            // A backend without a settable BLAS pool (e.g. CUDA): nothing to cap.
        }
        return Nd4j.getEnvironment().maxMasterThreads();
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

    /** Builds the engine, sets random potentials, warms up, then times sweeps for about --seconds. */
    Row measure(Case c, EngineSpec e) {
        MessagePassing mp;
        try {
            mp = e.factory().get();
        } catch (UnsupportedOperationException ex) {
            return new Row(c, e.name(), "n/a (" + (ex.getMessage() == null ? "not in this build" : ex.getMessage()) + ")");
        } catch (RuntimeException | OutOfMemoryError ex) {
            return new Row(c, e.name(), "failed: " + ex);
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
            for (int i = 0; i < repeat; i++) runs.add(timeRun(c, e, mp));
            runs.sort(java.util.Comparator.comparingDouble(Row::updatesPerSecond));
            Row median = runs.get((repeat - 1) / 2);
            double dual = mp.dual();
            String note = !Double.isFinite(dual) ? "failed: dual is " + dual + " after the sweeps"
                    : repeat == 1 ? "" : String.format(Locale.ROOT, "median of %d runs (%.1f-%.1f M/s)", repeat,
                            runs.get(0).updatesPerSecond() / 1e6, runs.get(repeat - 1).updatesPerSecond() / 1e6);
            return new Row(c, e.name(), median.sweeps(), median.seconds(), median.cpuSeconds(), note);
        } catch (RuntimeException | OutOfMemoryError ex) {
            return new Row(c, e.name(), "failed: " + ex);
        }
    }

    /** One timed run of about --seconds of sweeps. */
    private Row timeRun(Case c, EngineSpec e, MessagePassing mp) {
        long budget = (long) (seconds * 1e9);
        long sweeps = 0;
        long cpu0 = processCpuNanos();
        long start = System.nanoTime(), now;
        do {
            mp.iterate(sweepsPerCall);
            Nd4j.getExecutioner().commit();
            sweeps += sweepsPerCall;
            now = System.nanoTime();
        } while (now - start < budget);
        return new Row(c, e.name(), sweeps, (now - start) / 1e9, (processCpuNanos() - cpu0) / 1e9, "");
    }

    /** A fused row on several threads gets its speed-up over the same case's 1-thread row (wall clock) in its note. */
    static Row withSpeedUp(Row r, List<Row> before) {
        if (r.sweeps() == 0 || r.note().startsWith("failed") || !r.engine().startsWith("fused") || !r.engine().endsWith(" threads")) return r;
        for (Row one : before) {
            if (one.c() == r.c() && one.sweeps() > 0 && one.engine().startsWith("fused") && one.engine().endsWith(" 1 thread")) {
                String speedUp = String.format(Locale.ROOT, "%.2fx 1 thread", r.updatesPerSecond() / one.updatesPerSecond());
                return new Row(r.c(), r.engine(), r.sweeps(), r.seconds(), r.cpuSeconds(), r.note().isEmpty() ? speedUp : speedUp + "; " + r.note());
            }
        }
        return r;
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
     * beside one CPU-bound process that the bench starts and kills; the ratio is the slow-down.
     */
    String contention(PrintWriter w) {
        Case a = cases().get(0);
        List<EngineSpec> engines = new ArrayList<>();
        for (EngineSpec e : a.engines()) if (e.name().endsWith("2 threads") || e.name().startsWith("grid (ND4J")) engines.add(e);
        StringBuilder t = new StringBuilder("| engine | alone: star updates / s | beside a busy process | slow-down |\n|---|---:|---:|---:|\n");
        w.println();
        w.println("(d) contention, case (a):");
        w.println(t.toString().trim());
        for (EngineSpec e : engines) {
            Row alone = measure(a, e);
            Row busy;
            Process hog = null;
            try {
                hog = new ProcessBuilder("sh", "-c", "while :; do :; done").redirectErrorStream(true).start();
                busy = measure(a, e);
            } catch (IOException ex) {
                busy = new Row(a, e.name(), "failed: cannot start the busy process: " + ex);
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
    String learningLoop(PrintWriter w) {
        int n = threads != null ? threads : Runtime.getRuntime().availableProcessors();
        Engines.setCpuThreads(n);
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

    static String environment() {
        Runtime rt = Runtime.getRuntime();
        String backend = Nd4j.getBackend().getClass().getSimpleName();
        Properties info = new Properties();
        try {
            info = Nd4j.getExecutioner().getEnvironmentInformation();
        } catch (RuntimeException ignored) {
            // Optional detail only.
        }
        String blas = info.getProperty("blas.vendor", "?");
        return "- date: " + ZonedDateTime.now().format(DateTimeFormatter.ISO_OFFSET_DATE_TIME) + "\n"
                + "- Java: " + System.getProperty("java.version") + " (" + System.getProperty("java.vm.name") + ")\n"
                + "- ND4J: " + nd4jVersion() + ", backend " + backend
                + ", BLAS " + blas + "\n"
                + "- native threads (OpenMP / libnd4j): " + Nd4j.getEnvironment().maxMasterThreads() + " per op, pool of "
                + Nd4j.getEnvironment().maxThreads() + " (OMP_NUM_THREADS=" + System.getenv().getOrDefault("OMP_NUM_THREADS", "unset") + ")\n"
                + "- cores: " + rt.availableProcessors() + ", OS: " + System.getProperty("os.name") + " "
                + System.getProperty("os.arch") + ", max heap " + rt.maxMemory() / (1 << 20) + " MiB\n";
    }

    /** The nd4j-api version from its Maven metadata ("?" when the jar has none, e.g. when shaded). */
    static String nd4jVersion() {
        try (var in = Nd4j.class.getResourceAsStream("/META-INF/maven/org.nd4j/nd4j-api/pom.properties")) {
            if (in == null) return "?";
            Properties p = new Properties();
            p.load(in);
            return p.getProperty("version", "?");
        } catch (IOException e) {
            return "?";
        }
    }

    static String tableHeader() {
        return "| case | engine | variables | edges | labels | sweeps | seconds | ms / sweep | star updates / s | per CPU-second | note |\n"
                + "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|";
    }

    static String tableRow(Row r) {
        Case c = r.c();
        boolean ran = r.sweeps() > 0;
        return String.format(Locale.ROOT, "| %s | %s | %,d | %,d | %d | %s | %s | %s | %s | %s | %s |",
                c.name(), r.engine(), c.variables(), c.edges(), c.labels(),
                ran ? String.valueOf(r.sweeps()) : "",
                ran ? String.format(Locale.ROOT, "%.2f", r.seconds()) : "",
                ran ? String.format(Locale.ROOT, "%.2f", 1e3 * r.seconds() / r.sweeps()) : "",
                ran ? String.format(Locale.ROOT, "%,.0f", r.updatesPerSecond()) : "",
                ran && r.cpuSeconds() > 0 ? String.format(Locale.ROOT, "%,.0f", r.updatesPerCpuSecond()) : "",
                r.note().replace('|', '/'));
    }
}
