package org.structlr.cli;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import me.tongfei.progressbar.ConsoleProgressBarConsumer;
import me.tongfei.progressbar.ProgressBar;
import me.tongfei.progressbar.ProgressBarBuilder;
import me.tongfei.progressbar.ProgressBarStyle;
import org.structlr.data.BadInputException;
import org.structlr.data.Dataset;
import org.structlr.experiment.Experiment;
import org.structlr.experiment.ScheduleComparison;
import org.structlr.learn.IterationRecord;
import org.structlr.learn.LearnSettings;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code structlr experiment denoise|horses|images}: the paper's experiments (and the same on any image data set), one pair of function classes
 * or the whole table (Table 1, Fig. 1-3). The work is {@link Experiment}'s; this class parses options.
 */
@Command(name = "experiment", mixinStandardHelpOptions = true,
        description = "The paper's experiments: one (unary, pairwise) pair, or --table for every pair (Table 1) with figures.",
        subcommands = {ExperimentCommand.Denoise.class, ExperimentCommand.Horses.class, ExperimentCommand.Images.class})
final class ExperimentCommand implements Runnable {
    @Spec
    CommandSpec spec;

    @Override
    public void run() {
        throw new CommandLine.ParameterException(spec.commandLine(), "missing data set: denoise, horses or images");
    }

    /** Options of both data sets. */
    static final class Options {
        @Option(names = "--unary", converter = FunctionClassConverter.class, completionCandidates = FunctionClassConverter.Names.class, paramLabel = "KIND",
                description = "Unary function class of a single pair: ${COMPLETION-CANDIDATES} (default: linear).")
        String unary;

        @Option(names = "--pairwise", converter = FunctionClassConverter.class, completionCandidates = FunctionClassConverter.Names.class, paramLabel = "KIND",
                description = "Pairwise function class of a single pair (default: linear).")
        String pairwise;

        @Mixin
        ClassOptionsOptions classOptions;

        @Option(names = "--regions", defaultValue = "none", paramLabel = "LAYOUT", converter = RegionLayoutConverter.class,
                description = "Factors over more than two pixels beside the pairs, as train --regions: none, patches2x2 or triplets (default: ${DEFAULT-VALUE}).")
        org.structlr.model.RegionLayout regions;

        @Option(names = "--table", description = "Run every (unary, pairwise) pair of --kinds, one after another (the paper's Table 1).")
        boolean table;

        @Option(names = "--resume", description = "With --table: read back the pairs already finished in --out (pairs/UNARY-PAIRWISE/) "
                + "instead of training them again; they must come from the same data and settings.")
        boolean resume;

        @Option(names = "--pairs-at-once", paramLabel = "N", defaultValue = "0",
                description = "With --table: pairs trained at the same time, sharing --threads (each gets threads / N, at least 1);"
                        + " 0 = 2 when --threads is 2 or more, else 1 (default: ${DEFAULT-VALUE}). The table is the same for every N"
                        + " at the same threads per pair.")
        int pairsAtOnce;

        @Option(names = "--kinds", split = ",", converter = FunctionClassConverter.class, completionCandidates = FunctionClassConverter.Names.class, paramLabel = "K1,K2,...",
                defaultValue = "zero,const,linear,boost,mlp", description = "Function classes of --table (default: ${DEFAULT-VALUE}).")
        List<String> kinds;

        @Option(names = "--iterations", defaultValue = "50", description = "Learning iterations per pair (default: ${DEFAULT-VALUE}).")
        int iterations;

        @Mixin
        LearningOptions learning;

        @Mixin
        ScheduleOptions schedule;

        @Mixin
        EngineOptions engine;

        @Option(names = "--schedules", split = ",", paramLabel = "S1,S2,...",
                description = "Train the one pair once per schedule (the first is the reference) and compare them on one time axis: "
                        + "schedules.md, time-to-objective.png, time-to-error.png.")
        List<String> schedules;

        @Option(names = "--out", paramLabel = "DIR", description = "Output folder (default: runs/experiment-<data set>[-table]).")
        Path out;

        LearnSettings settings() {
            if (table && (unary != null || pairwise != null)) {
                throw new BadInputException("--table runs every pair of --kinds: give either --table or --unary/--pairwise, not both");
            }
            if (table && classOptions.any()) {
                throw new BadInputException("--unary-option/--pairwise-option set the options of one pair's classes; they do not go with --table");
            }
            if (resume && !table) {
                throw new BadInputException("option '--resume' continues an interrupted --table; a single pair resumes with train --checkpoint/--resume");
            }
            if (table && kinds.stream().distinct().count() != kinds.size()) {
                throw new BadInputException("option '--kinds' repeats a function class: " + kinds);
            }
            if (pairsAtOnce < 0) throw new BadInputException("option '--pairs-at-once': must be at least 0, got " + pairsAtOnce);
            return schedule.apply(learning.settings(iterations)).withEngine(engine.engine);
        }

        /** Pairs at once for {@code threads} threads: --pairs-at-once, or its default; 1 without --table. */
        int pairsAtOnce(int threads) {
            if (!table) return 1;
            return pairsAtOnce > 0 ? pairsAtOnce : Math.min(2, threads);
        }

        /**
         * The experiment, with the table's pairs at once and each pair's share of the threads: the
         * engines' and ND4J's process-wide thread counts are lowered to that share.
         */
        Experiment experiment(String name, Dataset data, LearnSettings settings, int threads) {
            int atOnce = pairsAtOnce(threads);
            if (atOnce == 1) return new Experiment(name, data, settings, threads, 1, regions);
            int perPair = Math.max(1, threads / atOnce);
            org.structlr.inference.engines.Engines.setThreads(perPair);
            return new Experiment(name, data, settings, perPair, atOnce, regions);
        }

        Path out(String dataName) {
            Path o = out != null ? out : Path.of("runs", "experiment-" + dataName + (table ? "-table" : ""));
            CliChecks.output("--out", o, true);
            return o;
        }
    }

    @Command(name = "denoise", mixinStandardHelpOptions = true, sortOptions = false,
            description = "The synthetic binary denoising experiment on freshly generated images (docs/design.md §1).")
    static final class Denoise implements Callable<Integer> {
        @Mixin
        Options opts;

        @Mixin
        DenoisingOptions denoising;

        @Mixin
        CommonOptions common;

        @Spec
        CommandSpec spec;

        @Override
        public Integer call() throws Exception {
            LearnSettings settings = opts.settings();
            Path out = opts.out("denoise");
            int threads = common.apply();
            Dataset data = denoising.generate(opts.learning.seed);
            if (!common.quiet) System.err.println("generated " + denoising.describe());
            return ExperimentCommand.run(opts.experiment("denoise", data, settings, threads), opts, out, common.quiet, spec);
        }
    }

    @Command(name = "horses", mixinStandardHelpOptions = true, sortOptions = false,
            description = "The Weizmann horses experiment on a prepared .npz data set folder (train/, test/).")
    static final class Horses implements Callable<Integer> {
        @Mixin
        Options opts;

        @Option(names = "--data", required = true, paramLabel = "DIR", description = "Prepared horses data set folder (train/ and test/ .npz files).")
        Path data;

        @Mixin
        CommonOptions common;

        @Spec
        CommandSpec spec;

        @Override
        public Integer call() throws Exception {
            return onFolder("horses", data, opts, common, spec);
        }
    }

    @Command(name = "images", mixinStandardHelpOptions = true, sortOptions = false,
            description = "An experiment on any prepared .npz data set folder (images-data, scenes, your own): named after the folder.")
    static final class Images implements Callable<Integer> {
        @Mixin
        Options opts;

        @Option(names = "--data", required = true, paramLabel = "DIR", description = "Data set folder (train/ and test/ .npz files, val/ optional).")
        Path data;

        @Mixin
        CommonOptions common;

        @Spec
        CommandSpec spec;

        @Override
        public Integer call() throws Exception {
            Path name = data.toAbsolutePath().normalize().getFileName();
            return onFolder(name == null ? "data" : name.toString(), data, opts, common, spec);
        }
    }

    /** The experiment on the data set folder {@code data}, called {@code name} in titles and the default output folder. */
    static int onFolder(String name, Path data, Options opts, CommonOptions common, CommandSpec spec) throws Exception {
        LearnSettings settings = opts.settings();
        Path out = opts.out(name);
        int threads = common.apply();
        Dataset ds = Dataset.load(data);
        if (!common.quiet) System.err.println("loaded " + ds);
        return ExperimentCommand.run(opts.experiment(name, ds, settings, threads), opts, out, common.quiet, spec);
    }

    static int run(Experiment exp, Options opts, Path out, boolean quiet, CommandSpec spec) throws Exception {
        java.io.PrintWriter stdout = spec.commandLine().getOut();
        if (opts.schedules != null) {
            if (opts.table) throw new BadInputException("option '--schedules' compares schedules on one pair; it does not go with --table");
            for (String s : opts.schedules) { // every name checked before any training
                try {
                    exp.settings().withSchedule(s);
                } catch (IllegalArgumentException e) {
                    throw new BadInputException("option '--schedules': " + e.getMessage());
                }
            }
            String u = opts.unary != null ? opts.unary : "linear";
            String p = opts.pairwise != null ? opts.pairwise : "linear";
            List<ScheduleComparison.Run> runs = ScheduleComparison.run(exp, opts.classOptions.unary(u), opts.classOptions.pairwise(p),
                    opts.schedules, out,
                    s -> new TrainingProgress(exp.name() + " " + u + "/" + p + " " + s, opts.iterations, quiet));
            stdout.print(Files.readString(out.resolve("schedules.md")));
            stdout.println("schedules.md, schedules.csv, time-to-objective.png, time-to-error.png, one folder per schedule written to " + out);
            stdout.flush();
            return Main.EXIT_OK;
        }
        if (!opts.table) {
            String u = opts.unary != null ? opts.unary : "linear";
            String p = opts.pairwise != null ? opts.pairwise : "linear";
            Experiment.PairResult r;
            try (TrainingProgress progress = new TrainingProgress(exp.name() + " " + u + "/" + p, opts.iterations, quiet)) {
                r = exp.runPair(opts.classOptions.unary(u), opts.classOptions.pairwise(p), out, progress);
            }
            stdout.printf(Locale.ROOT, "%s %s: train error %.4f  test error %.4f  test mean IoU %.4f  %.1f s%n", exp.name(), r.label(),
                    r.finalTrainError(), r.finalTestError(), r.testMeanIou(), r.seconds());
            stdout.println("report.json (with the test metrics), report-confusion-test.png, curve.csv, curve.png, model, predictions.png"
                    + (Files.exists(out.resolve("functions.png")) ? ", functions.png" : "") + " written to " + out);
            stdout.flush();
            return Main.EXIT_OK;
        }
        Experiment.TableResult t;
        try (TableProgress progress = new TableProgress(exp.name() + " table", opts.kinds.size() * opts.kinds.size(), opts.iterations, quiet)) {
            t = exp.runTable(opts.kinds, out, progress, opts.resume);
        }
        stdout.print(Files.readString(out.resolve("table.md")));
        stdout.println("table.md, test_error.csv, train_error.csv, seconds.csv, results.csv, curves.png, pairs/, best/ written to " + out);
        stdout.flush();
        return Main.EXIT_OK;
    }

    /** One bar over every iteration of every pair, with the time left; a line per finished pair. */
    static final class TableProgress implements Experiment.Listener, AutoCloseable {
        private final ProgressBar bar;
        private final boolean quiet;
        private String pair = "";

        TableProgress(String task, int pairs, int iterations, boolean quiet) {
            this.quiet = quiet;
            bar = quiet ? null : new ProgressBarBuilder().setTaskName(task).setInitialMax((long) pairs * Math.max(1, iterations))
                    .setStyle(ProgressBarStyle.ASCII).setUpdateIntervalMillis(1000)
                    .setConsumer(new ConsoleProgressBarConsumer(System.err, 160)).build();
        }

        @Override
        public void pairStarted(int index, int total, String unary, String pairwise) {
            pair = String.format(Locale.ROOT, " pair %d/%d %s/%s", index + 1, total, unary, pairwise);
            if (bar != null) bar.setExtraMessage(pair);
        }

        @Override
        public void onIteration(IterationRecord r, int totalIterations) {
            if (bar == null) return;
            bar.setExtraMessage(pair + String.format(Locale.ROOT, " it %d test=%.4f", r.iteration(), r.testError()));
        }

        @Override
        public void onProgress(int iteration, int totalIterations) {
            if (bar != null) bar.step();
        }

        @Override
        public void pairResumed(int index, int total, Experiment.PairResult r) {
            if (bar != null) bar.stepBy(r.iterations()); // its iterations were done by the earlier run
            if (!quiet) System.err.printf(Locale.ROOT, "%n%s: read back from the earlier run%n", r.label());
        }

        @Override
        public void pairFinished(int index, int total, Experiment.PairResult r) {
            if (bar != null && r.iterations() == 0) bar.stepBy(1); // 0 iterations: one step per pair
            if (!quiet) {
                System.err.printf(Locale.ROOT, "%n%s: train %.4f test %.4f %.1f s%n", r.label(), r.finalTrainError(), r.finalTestError(), r.seconds());
            }
        }

        @Override
        public void close() {
            if (bar != null) bar.close();
        }
    }
}
