package org.structlr.cli;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import org.structlr.data.Dataset;
import org.structlr.learn.IterationRecord;
import org.structlr.learn.LearnSettings;
import org.structlr.learn.LearningReport;
import org.structlr.learn.OracleKind;
import org.structlr.learn.Training;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

@Command(name = "train", mixinStandardHelpOptions = true, sortOptions = false,
        description = "Train a CRF on an .npz data set (DIR/train, DIR/test) by alternating oracle fits and message passing.")
final class TrainCommand implements Callable<Integer> {
    @Option(names = "--data", required = true, paramLabel = "DIR", description = "Data set folder with train/ and test/ .npz files.")
    Path data;

    @Option(names = "--unary", defaultValue = "linear", converter = OracleKindConverter.class, paramLabel = "KIND",
            description = "Unary function class: zero, const, linear, mlp, boost (default: ${DEFAULT-VALUE}).")
    OracleKind unary;

    @Option(names = "--pairwise", defaultValue = "linear", converter = OracleKindConverter.class, paramLabel = "KIND",
            description = "Pairwise function class: zero, const, linear, mlp, boost (default: ${DEFAULT-VALUE}).")
    OracleKind pairwise;

    @Option(names = "--iterations", defaultValue = "100", description = "Learning iterations (default: ${DEFAULT-VALUE}).")
    int iterations;

    @Option(names = "--eps", defaultValue = "0.1", description = "Entropy smoothing eps (default: ${DEFAULT-VALUE}).")
    double eps;

    @Option(names = "--sweeps", defaultValue = "25", description = "Message-passing sweeps after each oracle fit (default: ${DEFAULT-VALUE}).")
    int sweeps;

    @Option(names = "--eval-sweeps", defaultValue = "50",
            description = "Warm-started prediction sweeps per iteration to report train/test error; 0 = no errors (default: ${DEFAULT-VALUE}).")
    int evalSweeps;

    @Option(names = "--seed", defaultValue = "1", description = "Random seed (default: ${DEFAULT-VALUE}).")
    long seed;

    @Option(names = "--output", paramLabel = "MODEL", description = "Folder to save the trained model in.")
    Path output;

    @Option(names = "--report", paramLabel = "FILE.json", description = "Learning curve and final errors as JSON.")
    Path report;

    @Option(names = "--csv", paramLabel = "FILE.csv", description = "Learning curve as CSV.")
    Path csv;

    @Mixin
    CommonOptions common;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        LearnSettings settings = CliChecks.settings(iterations, eps, sweeps, evalSweeps, seed);
        // Refuse unwritable outputs before training, so a failure never leaves some outputs behind.
        CliChecks.output("--output", output, true);
        CliChecks.output("--report", report, false);
        CliChecks.output("--csv", csv, false);
        if (output != null && java.nio.file.Files.isDirectory(output)
                && !java.nio.file.Files.isRegularFile(output.resolve(org.structlr.model.CrfModel.MANIFEST))) {
            throw new org.structlr.data.BadInputException(output, "cannot write --output: exists and is not a structlr model folder; not overwriting it");
        }
        int threads = common.apply();
        Dataset ds = Dataset.load(data);
        Training.Outcome out;
        try (TrainingProgress progress = new TrainingProgress("train " + unary.cliName() + "/" + pairwise.cliName(), iterations, common.quiet)) {
            out = Training.train(ds, unary, pairwise, settings, threads, progress);
        }
        write(out, output, report, csv, spec.commandLine().getOut());
        return Main.EXIT_OK;
    }

    static void write(Training.Outcome out, Path model, Path report, Path csv) throws java.io.IOException {
        write(out, model, report, csv, new java.io.PrintWriter(System.out, true));
    }

    /** Writes the outputs that are not null and prints the final line to {@code stdout}. */
    static void write(Training.Outcome out, Path model, Path report, Path csv, java.io.PrintWriter stdout) throws java.io.IOException {
        List<IterationRecord> curve = out.curve();
        if (model != null) out.model().save(model);
        if (report != null) {
            Map<String, Object> extra = new java.util.LinkedHashMap<>();
            extra.put("settings", out.model().settings());
            extra.put("seconds", Map.of("oracle_fits", out.fitSeconds(), "message_passing", out.passingSeconds(), "evaluation", out.evalSeconds()));
            LearningReport.writeJson(report, curve, extra);
        }
        if (csv != null) LearningReport.writeCsv(csv, curve);
        IterationRecord last = curve.isEmpty() ? null : curve.get(curve.size() - 1);
        if (last != null) {
            stdout.printf(java.util.Locale.ROOT, "final: iteration %d  objective %.5f  train error %.4f  test error %.4f  %.1f s%n",
                    last.iteration(), last.objective(), last.trainError(), last.testError(), last.seconds());
            stdout.printf(java.util.Locale.ROOT, "time: oracle fits %.1f s, message passing %.1f s, evaluation %.1f s%n",
                    out.fitSeconds(), out.passingSeconds(), out.evalSeconds());
            stdout.flush();
        }
    }
}
