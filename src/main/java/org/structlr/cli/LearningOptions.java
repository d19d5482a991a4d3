package org.structlr.cli;

import org.structlr.learn.LearnSettings;
import org.structlr.learn.VoidForm;
import picocli.CommandLine.Option;

/** The learner's settings other than the iteration count, shared by train and experiment. */
final class LearningOptions {
    @Option(names = "--eps", paramLabel = "EPS", defaultValue = "0.1", description = "Entropy smoothing eps, > 0 (default: ${DEFAULT-VALUE}).")
    double eps;

    @Option(names = "--sweeps", paramLabel = "N", defaultValue = "25", description = "Message-passing sweeps after each oracle fit (default: ${DEFAULT-VALUE}).")
    int sweeps;

    @Option(names = "--eval-sweeps", defaultValue = "auto", paramLabel = "N|auto", converter = EvalSweeps.class,
            description = "Prediction sweeps per evaluation on the train and test sets, each from the previous evaluation's messages,"
                    + " to report train/test error; 0 = no errors; auto = a fifth of one iteration's message passing,"
                    + " shared by the two sets (default: ${DEFAULT-VALUE}).")
    int evalSweeps;

    /** "auto" or a count of at least 0. */
    static final class EvalSweeps implements picocli.CommandLine.ITypeConverter<Integer> {
        @Override
        public Integer convert(String value) {
            if (value.equals("auto")) return LearnSettings.AUTO_EVAL_SWEEPS;
            int n;
            try {
                n = Integer.parseInt(value);
            } catch (NumberFormatException e) {
                throw new picocli.CommandLine.TypeConversionException("'" + value + "' is neither a number nor auto");
            }
            if (n < 0) throw new picocli.CommandLine.TypeConversionException("must be at least 0 (or auto), got " + n);
            return n;
        }
    }

    @Option(names = "--eval-every", paramLabel = "K",
            description = "Evaluate (objective, train/test error: one curve row) after iteration 1, every K-th iteration and the last;"
                    + " the iterations between are not evaluated (default: iterations / 20, at least 1: every 5th of 100).")
    Integer evalEvery;

    @Option(names = "--seed", paramLabel = "SEED", defaultValue = "1",
            description = "Seed of every random choice (experiment: also of the generated data) (default: ${DEFAULT-VALUE}).")
    long seed;

    @Option(names = "--void-form", defaultValue = "clamped", paramLabel = "simple|clamped", converter = VoidForms.class,
            description = "How training treats void (unlabelled) variables: simple = no term of their own; clamped = the loss"
                    + " A(theta) - A(theta | observed labels), a second, clamped message passing per example and soft targets (about twice"
                    + " the message passing). No effect without void (default: ${DEFAULT-VALUE}).")
    VoidForm voidForm;

    /** simple or clamped. */
    static final class VoidForms implements picocli.CommandLine.ITypeConverter<VoidForm> {
        @Override
        public VoidForm convert(String value) {
            try {
                return VoidForm.parse(value);
            } catch (IllegalArgumentException e) {
                throw new picocli.CommandLine.TypeConversionException(e.getMessage());
            }
        }
    }

    /** Checked settings; a bad value is a usage error naming the option. */
    LearnSettings settings(int iterations) {
        return CliChecks.settings(iterations, eps, sweeps, evalSweeps, evalEvery, seed).withVoidForm(voidForm);
    }
}
