package org.structlr.cli;

import org.structlr.data.BadInputException;
import org.structlr.graph.FactorGraph;
import org.structlr.inference.engines.EngineChoice;
import org.structlr.inference.engines.EngineUnavailableException;
import org.structlr.inference.engines.Engines;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Option;
import picocli.CommandLine.TypeConversionException;

/** {@code --engine}: which inference engine runs (train, experiment, predict, evaluate, infer); {@link Engines} builds it. */
final class EngineOptions {
    @Option(names = "--engine", paramLabel = "ENGINE", defaultValue = "auto", converter = Converter.class,
            description = "Inference engine: auto (the fastest here: fused for images on the CPU, loop for small graphs, else nd4j), "
                    + "fused (Vector API; images only), nd4j (the ND4J engines, the CUDA path; any graph) or loop (plain Java; any graph). "
                    + "A named engine that cannot run the graph is an error (default: ${DEFAULT-VALUE}).")
    EngineChoice engine = EngineChoice.AUTO;

    /** Refuses, before any work, a named engine that cannot run {@code graph} (shapes: see {@link Engines#resolve}). */
    void check(FactorGraph graph, java.util.List<int[]> shapes) {
        try {
            Engines.resolve(engine, graph, shapes);
        } catch (EngineUnavailableException e) {
            throw new BadInputException(e.getMessage());
        }
    }

    /** auto, fused, nd4j or loop (any case); "graph", infer's old name of the ND4J graph engine, is read as nd4j. */
    static final class Converter implements ITypeConverter<EngineChoice> {
        @Override
        public EngineChoice convert(String value) {
            if ("graph".equalsIgnoreCase(value)) return EngineChoice.ND4J;
            try {
                return EngineChoice.parse(value);
            } catch (IllegalArgumentException e) {
                throw new TypeConversionException(e.getMessage());
            }
        }
    }
}
