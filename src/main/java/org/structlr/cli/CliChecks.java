package org.structlr.cli;

import org.structlr.learn.LearnSettings;
import picocli.CommandLine;

/** Option checks that picocli's types cannot express; failures are usage errors (exit 2). */
final class CliChecks {
    private CliChecks() {}

    static LearnSettings settings(int iterations, double eps, int sweeps, int evalSweeps, long seed) {
        try {
            return new LearnSettings(iterations, eps, sweeps, evalSweeps, seed);
        } catch (IllegalArgumentException e) {
            throw new org.structlr.data.BadInputException(e.getMessage());
        }
    }
}
