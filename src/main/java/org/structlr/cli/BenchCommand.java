package org.structlr.cli;

import picocli.CommandLine.Command;

/** Not yet: star-update throughput of the engines. */
@Command(name = "bench", mixinStandardHelpOptions = true, description = "Benchmark the message-passing engines (not yet).")
final class BenchCommand implements java.util.concurrent.Callable<Integer> {
    @Override
    public Integer call() {
        throw new UnsupportedOperationException("bench is not implemented yet");
    }
}
