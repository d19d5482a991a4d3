package org.structlr.cli;

import java.nio.file.Path;
import java.util.concurrent.Callable;
import org.structlr.model.CrfModel;
import org.structlr.model.ModelExport;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** Exports a model's functions for plain DL4J / XGBoost ({@link ModelExport}). */
@Command(name = "export", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Export a model's functions for use without structlr: DL4J ModelSerializer zips (zero, constant, "
                + "linear, mlp), XGBoost JSON models (boost) and a manifest.json saying how they combine into the energy.",
                "An existing output folder is replaced only when it is an earlier export."})
final class ExportCommand implements Callable<Integer> {
    @Option(names = "--model", required = true, paramLabel = "MODEL", description = "A model folder written by train.")
    Path model;

    @Option(names = "--output", required = true, paramLabel = "DIR", description = "The export folder to write.")
    Path output;

    @Option(names = "--graph", paramLabel = "auto|grid|edges", defaultValue = "auto",
            description = "Graph structure written into the manifest: grid (4-connected, edge_type 0 horizontal, 1 vertical), "
                    + "edges (given per example), or auto (grid when the model records it was trained on images) (default: ${DEFAULT-VALUE}).")
    String graph;

    @Mixin
    CommonOptions common;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        ModelExport.Graph g;
        try {
            g = ModelExport.Graph.valueOf(graph.trim().toUpperCase(java.util.Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new org.structlr.data.BadInputException("option '--graph' must be auto, grid or edges, got '" + graph + "'");
        }
        common.apply();
        CrfModel m = CrfModel.load(model);
        CliChecks.output("--output", output, true);
        try {
            ModelExport.export(m, output, g);
        } catch (IllegalArgumentException e) {
            throw new org.structlr.data.BadInputException(e.getMessage());
        } catch (java.nio.file.FileSystemException e) {
            throw new org.structlr.data.BadInputException(output, "cannot write --output: " + e.getMessage(), e);
        }
        if (!common.quiet) spec.commandLine().getErr().printf("%s -> %s (%d factor types)%n", model, output, 1 + m.pairTypes().size());
        return Main.EXIT_OK;
    }
}
