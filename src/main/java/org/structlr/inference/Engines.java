package org.structlr.inference;

import org.nd4j.linalg.api.buffer.DataType;
import org.structlr.graph.Coloring;
import org.structlr.graph.FactorGraph;
import org.structlr.graph.Grids;

/** Picks the inference engine for a graph: the one place that knows which engines exist. */
public final class Engines {
    private Engines() {}

    /** The batched ND4J engine for any graph, with a 2-colouring where the graph allows it. */
    public static MessagePassing create(FactorGraph graph, double eps, DataType dtype) {
        return new GraphMessagePassing(graph, Coloring.of(graph), eps, dtype);
    }

    /**
     * The grid fast path when {@code graph} is exactly {@code count} stacked height x width grids in
     * {@link Grids#grid} order with one label count (edge types do not matter to inference), else
     * {@link #create(FactorGraph, double, DataType)}.
     */
    public static MessagePassing create(FactorGraph graph, int height, int width, double eps, DataType dtype) {
        if (height > 0 && width > 0 && isGridBatch(graph, height, width)) {
            return new GridMessagePassing(graph.numVariables() / (height * width), height, width, graph.maxLabels(), eps, dtype);
        }
        return create(graph, eps, dtype);
    }

    /** True when the graph's variables and edges are those of stacked grids, in the builder's order. */
    public static boolean isGridBatch(FactorGraph g, int height, int width) {
        int per = height * width;
        if (per == 0 || g.numVariables() % per != 0) return false;
        int count = g.numVariables() / per;
        int L = g.maxLabels();
        for (int v = 0; v < g.numVariables(); v++) if (g.numLabels(v) != L) return false;
        FactorGraph one = Grids.grid(height, width, L, false);
        if (g.numEdges() != count * one.numEdges()) return false;
        for (int k = 0, e = 0; k < count; k++) {
            for (int f = 0; f < one.numEdges(); f++, e++) {
                if (g.edgeFrom(e) != one.edgeFrom(f) + k * per || g.edgeTo(e) != one.edgeTo(f) + k * per) return false;
            }
        }
        return true;
    }

    /**
     * The engine for a batch of examples forming {@code graph} (their disjoint union, in order):
     * the grid fast path when every example is an image of one common shape (checked by
     * {@link #create(FactorGraph, int, int, double, DataType)}), else the general engine.
     * {@code shapes} holds each example's [H, W], or null for an example that is no image.
     */
    public static MessagePassing forBatch(FactorGraph graph, java.util.List<int[]> shapes, double eps) {
        int[] s = commonShape(shapes);
        return s == null ? create(graph, eps, DataType.FLOAT) : create(graph, s[0], s[1], eps, DataType.FLOAT);
    }

    /** [H, W] when every example is an image of that one size, else null. */
    static int[] commonShape(java.util.List<int[]> shapes) {
        if (shapes.isEmpty() || shapes.get(0) == null) return null;
        int[] first = shapes.get(0);
        for (int[] s : shapes) if (s == null || s[0] != first[0] || s[1] != first[1]) return null;
        return first;
    }
}
