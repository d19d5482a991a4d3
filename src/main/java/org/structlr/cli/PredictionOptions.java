package org.structlr.cli;

import org.structlr.data.BadInputException;
import org.structlr.inference.StopRule;
import org.structlr.model.ExampleBatch;
import org.structlr.model.Predictor;
import picocli.CommandLine.Option;

/** How long prediction runs message passing, and on which engine (evaluate, predict). */
final class PredictionOptions {
    @picocli.CommandLine.Mixin
    EngineOptions engine = new EngineOptions();

    @Option(names = "--iterations", paramLabel = "N", defaultValue = "500", description = "Most message-passing sweeps (default: ${DEFAULT-VALUE}).")
    int iterations;

    @Option(names = "--tolerance", paramLabel = "GAP", defaultValue = "1e-5",
            description = "Stop when |duality gap| per variable, checked every " + org.structlr.model.Predictor.CHECK_EVERY
                    + " sweeps, is at most this (default: ${DEFAULT-VALUE}).")
    double tolerance;

    void check() {
        if (iterations < 0) throw new BadInputException("option '--iterations' must be at least 0, got " + iterations);
        if (!(tolerance >= 0)) throw new BadInputException("option '--tolerance' must be at least 0, got " + tolerance);
    }

    StopRule stop(ExampleBatch batch) {
        return Predictor.defaultStop(batch, iterations, tolerance);
    }
}
