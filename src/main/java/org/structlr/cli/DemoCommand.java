package org.structlr.cli;

import java.nio.file.Path;
import java.util.concurrent.Callable;
import org.structlr.data.AtomicFiles;
import org.structlr.data.BadInputException;
import org.structlr.data.Dataset;
import org.structlr.learn.LearnSettings;
import org.structlr.learn.Training;
import org.structlr.oracle.FunctionSpec;
import org.structlr.viz.Plots;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

@Command(name = "demo", mixinStandardHelpOptions = true, sortOptions = false,
        description = "The paper's synthetic denoising experiment on freshly generated data: generate, train, report.")
final class DemoCommand implements Callable<Integer> {
    @Option(names = "--out", defaultValue = "runs/demo", paramLabel = "DIR", description = "Where data, model and reports go (default: ${DEFAULT-VALUE}).")
    Path out;

    @Option(names = "--unary", defaultValue = "linear", converter = FunctionClassConverter.class, completionCandidates = FunctionClassConverter.Names.class, paramLabel = "KIND",
            description = "Unary function class (default: ${DEFAULT-VALUE}).")
    String unary;

    @Option(names = "--pairwise", defaultValue = "linear", converter = FunctionClassConverter.class, completionCandidates = FunctionClassConverter.Names.class, paramLabel = "KIND",
            description = "Pairwise function class (default: ${DEFAULT-VALUE}).")
    String pairwise;

    @Mixin
    ClassOptionsOptions classOptions;

    @Option(names = "--iterations", defaultValue = "50", description = "Learning iterations (default: ${DEFAULT-VALUE}).")
    int iterations;

    @Mixin
    DenoisingOptions denoising;

    @Option(names = "--eval-every", paramLabel = "K",
            description = "Evaluate (objective, errors: one curve row) after iteration 1, every K-th iteration and the last"
                    + " (default: iterations / 20, at least 1).")
    Integer evalEvery;

    @Mixin
    ScheduleOptions schedule;

    @Option(names = "--seed", defaultValue = "1", description = "Seed of the data and of learning (default: ${DEFAULT-VALUE}).")
    long seed;

    @Mixin
    CommonOptions common;

    @Override
    public Integer call() throws Exception {
        // demo always draws its learning curve, which needs at least one row (train takes 0 to only evaluate)
        if (iterations < 1) throw new BadInputException("option '--iterations' must be at least 1 for demo, got " + iterations);
        LearnSettings settings = schedule.apply(CliChecks.settings(iterations, 0.1, 25, LearnSettings.AUTO_EVAL_SWEEPS, evalEvery, seed));
        FunctionSpec unarySpec = classOptions.unary(unary), pairSpec = classOptions.pairwise(pairwise);
        int threads = common.apply();
        Dataset generated = denoising.generate(seed);
        // The demo owns out/data: a rerun replaces it whole.
        AtomicFiles.replaceFolder(out.resolve("data"), generated::write,
                d -> java.nio.file.Files.isDirectory(d.resolve("train")) && java.nio.file.Files.isDirectory(d.resolve("test")));
        Dataset ds = Dataset.load(out.resolve("data"));
        if (!common.quiet) System.err.printf("generated %s in %s%n", denoising.describe(), out.resolve("data"));
        Training.Outcome res;
        try (TrainingProgress progress = new TrainingProgress("denoise " + unary + "/" + pairwise, iterations, common.quiet)) {
            res = Training.train(ds, unarySpec, pairSpec, settings, threads, progress);
        }
        TrainCommand.write(res, out.resolve("model"), out.resolve("report.json"), out.resolve("curve.csv"));
        String name = unary + "/" + pairwise;
        Plots.errorCurves(out.resolve("errors.png"), "denoising: error against iteration", java.util.Map.of(name, res.curve()));
        Plots.objectiveCurves(out.resolve("objective.png"), "denoising: objective against iteration", java.util.Map.of(name, res.curve()));
        System.out.println("model, report.json, curve.csv, errors.png and objective.png written to " + out);
        return Main.EXIT_OK;
    }
}
