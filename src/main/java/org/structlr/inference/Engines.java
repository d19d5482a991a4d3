package org.structlr.inference;

import org.nd4j.linalg.api.buffer.DataType;
import org.structlr.graph.Coloring;
import org.structlr.graph.FactorGraph;

/** Picks the inference engine for a graph: the one place that knows which engines exist. */
public final class Engines {
    private Engines() {}

    /** The batched ND4J engine for any graph, with a 2-colouring where the graph allows it. */
    public static MessagePassing create(FactorGraph graph, double eps, DataType dtype) {
        return new GraphMessagePassing(graph, Coloring.of(graph), eps, dtype);
    }
}
