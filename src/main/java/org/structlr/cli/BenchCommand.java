package org.structlr.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Properties;
import java.util.concurrent.Callable;
import org.nd4j.linalg.factory.Nd4j;
import org.structlr.inference.engines.Engines;
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
 * eps = 0.1. Each engine is timed at every {@code --sweeps-per-call} K (by default 1, single sweeps, and
 * 25, the learner's calls): warmed up, then timed over repeated calls of K sweeps for about {@code --seconds},
 * {@code --repeat} times (the row is the median run; its note gives the range); beside wall-clock
 * throughput the table gives throughput per CPU-second of the process, which says more than wall
 * time on a shared machine, and the fused engine's 2-thread row its speed-up over 1 thread at the same K. Then:
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

    @Option(names = "--sweeps-per-call", paramLabel = "K", split = ",", defaultValue = "1,25",
            description = "Sweeps per engine call in cases (a)-(c), one row per K (comma-separated): 1 times single sweeps, "
                    + "which stream each batch from memory every sweep; 25 is what the learner asks for at once (its --sweeps), "
                    + "which engines may run as one pass over memory; the contention case (d) uses the first K "
                    + "(default: ${DEFAULT-VALUE}).")
    List<Integer> sweepsPerCall;

    @Option(names = "--only", paramLabel = "TEXT",
            description = "Run only the rows of cases (a)-(c) whose case and engine name contain every TEXT given, e.g. "
                    + "--only fused --only '(b)' for the fused engine on the 5-label case (default: all rows).")
    List<String> only = new ArrayList<>();

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
        for (int k : sweepsPerCall) {
            if (k < 1) throw new ParameterException(spec.commandLine(), "--sweeps-per-call must be at least 1, got " + k);
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
        if (threads != null && Engines.setThreads(threads) != threads) {
            spec.commandLine().getErr().println("warning: --threads " + threads + " is above the native thread pool of "
                    + Nd4j.getEnvironment().maxThreads() + "; using " + Nd4j.getEnvironment().maxMasterThreads()
                    + " (set OMP_NUM_THREADS before starting Java for more)");
        }
        String header = environment() + "- sweeps per engine call in cases (a)-(c): "
                + sweepsPerCall.stream().map(String::valueOf).collect(java.util.stream.Collectors.joining(", ")) + "\n"
                + "- timed runs per row: " + repeat + (repeat > 1 ? " (the median run is shown)" : "") + "\n";
        w.println(header);
        w.println(tableHeader());
        w.flush();

        List<EngineBench.Row> rows = new ArrayList<>();
        boolean failed = false;
        EngineBench bench = new EngineBench(seconds, repeat);
        for (EngineBench.Case c : EngineBench.cases()) {
            for (EngineBench.EngineSpec e : c.engines()) {
                String name = c.name() + " " + e.name();
                if (!only.stream().allMatch(name::contains)) continue;
                for (int k : sweepsPerCall) {
                    EngineBench.Row r = EngineBench.withSpeedUp(bench.measure(c, e, k), rows);
                    failed |= r.note().startsWith("failed");
                    rows.add(r);
                    w.println(tableRow(r));
                    w.flush();
                }
            }
        }
        StringBuilder md = new StringBuilder("# structlr message-passing benchmark\n\n").append(header).append('\n')
                .append("Throughput = star updates per second: variables updated per second, one sweep (iteration) ")
                .append("updating every variable once. Potentials normal(0, 1), eps = ").append(EngineBench.EPS)
                .append(", ND4J engines in float, timed for about ").append(seconds).append(" s after a warm-up. ")
                .append("Per CPU-second: the same divided by the CPU time of the whole process while timing ")
                .append("(on a busy machine closer to what an idle one gives than wall time).\n\n")
                .append(tableHeader()).append('\n');
        for (EngineBench.Row r : rows) md.append(tableRow(r)).append('\n');
        if (!noContention) {
            String t = bench.contention(w, sweepsPerCall.get(0));
            md.append("\n## (d) Contention: case (a) alone and beside one CPU-bound process, ").append(sweepsPerCall.get(0))
                    .append(sweepsPerCall.get(0) == 1 ? " sweep" : " sweeps").append(" per call\n\n").append(t);
        }
        if (learnIterations > 0) {
            String t = EngineBench.learningLoop(w, learnIterations, threads != null ? threads : Runtime.getRuntime().availableProcessors());
            md.append("\n## (e) Learning loop: (linear, linear) on the denoising set, 16 train / 16 test 100x100\n\n").append(t);
        }
        InferCommand.writeAtomically(out, md.toString().getBytes(StandardCharsets.UTF_8));
        w.println("wrote " + out);
        w.flush();
        return failed ? Main.EXIT_FAILURE : Main.EXIT_OK;
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
        return "| case | engine | variables | edges | labels | sweeps per call | sweeps | seconds | ms / sweep | star updates / s | per CPU-second | note |\n"
                + "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|";
    }

    static String tableRow(EngineBench.Row r) {
        EngineBench.Case c = r.c();
        boolean ran = r.sweeps() > 0;
        return String.format(Locale.ROOT, "| %s | %s | %,d | %,d | %d | %d | %s | %s | %s | %s | %s | %s |",
                c.name(), r.engine(), c.variables(), c.edges(), c.labels(), r.perCall(),
                ran ? String.valueOf(r.sweeps()) : "",
                ran ? String.format(Locale.ROOT, "%.2f", r.seconds()) : "",
                ran ? String.format(Locale.ROOT, "%.2f", 1e3 * r.seconds() / r.sweeps()) : "",
                ran ? String.format(Locale.ROOT, "%,.0f", r.updatesPerSecond()) : "",
                ran && r.cpuSeconds() > 0 ? String.format(Locale.ROOT, "%,.0f", r.updatesPerCpuSecond()) : "",
                r.note().replace('|', '/'));
    }
}
