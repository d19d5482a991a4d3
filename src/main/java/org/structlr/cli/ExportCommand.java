package org.structlr.cli;

import java.util.concurrent.Callable;
import picocli.CommandLine.Command;

/** Not yet: export a model's functions for plain DL4J / XGBoost. */
@Command(name = "export", mixinStandardHelpOptions = true, description = "Export a model's functions for use without structlr (not yet).")
final class ExportCommand implements Callable<Integer> {
    @Override
    public Integer call() {
        throw new UnsupportedOperationException("export is not implemented yet");
    }
}
