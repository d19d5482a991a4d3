package org.structlr.cli;

import picocli.CommandLine.Command;

/** Not yet: MAP/marginal inference on a UAI MARKOV file. */
@Command(name = "infer", mixinStandardHelpOptions = true, description = "Smoothed-LP inference on a UAI MARKOV file (not yet).")
final class InferCommand implements java.util.concurrent.Callable<Integer> {
    @Override
    public Integer call() {
        throw new UnsupportedOperationException("infer is not implemented yet");
    }
}
