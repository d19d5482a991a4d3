package org.structlr.cli;

import org.structlr.learn.LearnSettings;
import picocli.CommandLine.Option;

/** The learner's settings other than the iteration count, shared by train and experiment. */
final class LearningOptions {
    @Option(names = "--eps", defaultValue = "0.1", description = "Entropy smoothing eps (default: ${DEFAULT-VALUE}).")
    double eps;

    @Option(names = "--sweeps", defaultValue = "25", description = "Message-passing sweeps after each oracle fit (default: ${DEFAULT-VALUE}).")
    int sweeps;

    @Option(names = "--eval-sweeps", defaultValue = "50",
            description = "Warm-started prediction sweeps per iteration to report train/test error; 0 = no errors (default: ${DEFAULT-VALUE}).")
    int evalSweeps;

    @Option(names = "--eval-every", paramLabel = "K",
            description = "Evaluate (objective, train/test error: one curve row) after iteration 1, every K-th iteration and the last;"
                    + " the iterations between are not evaluated (default: iterations / 20, at least 1: every 5th of 100).")
    Integer evalEvery;

    @Option(names = "--seed", defaultValue = "1", description = "Seed of every random choice (and of generated data) (default: ${DEFAULT-VALUE}).")
    long seed;

    /** Checked settings; a bad value is a usage error naming the option. */
    LearnSettings settings(int iterations) {
        return CliChecks.settings(iterations, eps, sweeps, evalSweeps, evalEvery, seed);
    }
}
