package org.structlr.cli;

import org.nd4j.linalg.factory.Nd4j;
import picocli.CommandLine.Option;

/** Options every long-running command takes. */
final class CommonOptions {
    @Option(names = "--quiet", description = "Print no progress, only results and errors.")
    boolean quiet;

    @Option(names = "--threads", paramLabel = "N", defaultValue = "0",
            description = "Threads for message passing, ND4J (OpenMP) and XGBoost; 0 = the cores of this machine (default: ${DEFAULT-VALUE}).")
    int threads;

    /** Applies --threads and returns the count used. */
    int apply() {
        int n = threads > 0 ? threads : Runtime.getRuntime().availableProcessors();
        // ND4J's OpenMP pool: setMaxMasterThreads bounds the threads an op may use.
        Nd4j.getEnvironment().setMaxMasterThreads(n);
        org.structlr.inference.engines.Engines.setCpuThreads(n);
        return n;
    }
}
