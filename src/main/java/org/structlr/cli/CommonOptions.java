package org.structlr.cli;

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
        org.structlr.inference.engines.Engines.setThreads(n);
        return n;
    }
}
