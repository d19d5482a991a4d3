package org.structlr.inference;

import org.structlr.inference.loop.LoopMessagePassing;
import org.structlr.inference.nd4j.GraphMessagePassing;
import org.structlr.inference.nd4j.GridMessagePassing;

import java.util.ArrayList;
import java.util.List;
import java.util.function.BiFunction;
import java.util.function.Predicate;
import java.util.stream.Stream;
import org.junit.jupiter.params.provider.Arguments;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.structlr.graph.Coloring;
import org.structlr.graph.FactorGraph;

/**
 * The message-passing engines under test, and the problems they are tested on. Adding an engine is
 * one line in {@link #ALL}: a name, the problems it applies to, and how to build it (always in
 * {@link DataType#DOUBLE} for the precision tests).
 */
public final class TestEngines {
    private TestEngines() {}

    /**
     * A test problem: a graph, the colouring every engine sweeps in, the potentials (padded to
     * {@code graph.maxLabels()} in the {@link MessagePassing} conventions) and, when the graph is
     * {@code count} stacked {@code Grids.grid(height, width, labels, false)} graphs with the
     * checkerboard colouring, its grid shape.
     */
    public record Problem(String name, FactorGraph graph, Coloring coloring, double[][] unary, double[][] pairwise, int[] gridShape) {
        public Problem {
            coloring.checkProper(graph);
        }

        boolean isGrid() { return gridShape != null; }
        int gridCount() { return gridShape[0]; }
        int gridHeight() { return gridShape[1]; }
        int gridWidth() { return gridShape[2]; }

        /** The same problem seen as a general graph (no grid fast path). */
        Problem asGeneral() {
            return new Problem(name + " (general)", graph, coloring, unary, pairwise, null);
        }

        Problem withPotentials(double[][] u, double[][] p) {
            return new Problem(name, graph, coloring, u, p, gridShape);
        }

        @Override public String toString() { return name; }
    }

    /** An engine: its name, which problems it can run, and how to build it for a problem and eps. */
    public record Engine(String name, Predicate<Problem> applies, BiFunction<Problem, Double, MessagePassing> factory) {
        /** A new engine with the problem's potentials set and zero messages. */
        MessagePassing open(Problem p, double eps) {
            MessagePassing mp = factory.apply(p, eps);
            mp.setPotentials(unaryArray(p), pairwiseArray(p));
            return mp;
        }

        @Override public String toString() { return name; }
    }

    /** {@code -Dstructlr.test.engines=loop,nd4j-graph} restricts the tests to the named engines. */
    public static final List<Engine> ALL;

    private static final List<Engine> KNOWN = List.of(
            new Engine("loop", p -> true, (p, eps) -> new LoopMessagePassing(p.graph(), p.coloring(), eps)),
            new Engine("nd4j-graph", p -> true, (p, eps) -> new GraphMessagePassing(p.graph(), p.coloring(), eps, DataType.DOUBLE)),
            new Engine("nd4j-grid", Problem::isGrid, (p, eps) -> new GridMessagePassing(p.gridCount(), p.gridHeight(), p.gridWidth(), p.graph().maxLabels(), eps, DataType.DOUBLE))
    );

    static {
        String only = System.getProperty("structlr.test.engines", "").trim();
        List<String> names = only.isEmpty() ? null : List.of(only.split("\\s*,\\s*"));
        ALL = KNOWN.stream().filter(e -> names == null || names.contains(e.name())).toList();
        if (ALL.isEmpty()) throw new IllegalStateException("no engine named in structlr.test.engines=" + only);
    }

    /** Every (engine, problem) pair where the engine applies. */
    public static Stream<Arguments> pairs(List<Problem> problems) {
        List<Arguments> out = new ArrayList<>();
        for (Engine e : ALL) {
            for (Problem p : problems) {
                if (e.applies().test(p)) out.add(Arguments.of(e, p));
            }
        }
        return out.stream();
    }

    public static INDArray unaryArray(Problem p) {
        return Nd4j.createFromArray(p.unary()).castTo(DataType.DOUBLE);
    }

    public static INDArray pairwiseArray(Problem p) {
        int l = p.graph().maxLabels();
        if (p.pairwise().length == 0) return Nd4j.create(DataType.DOUBLE, 0, (long) l * l);
        return Nd4j.createFromArray(p.pairwise()).castTo(DataType.DOUBLE);
    }

    /** The values of an array in row-major order, as doubles. */
    public static double[] flat(INDArray a) {
        if (a.length() == 0) return new double[0];
        return a.castTo(DataType.DOUBLE).dup('c').data().asDouble();
    }

    /** Messages {@code [E][2][L]} of an engine. */
    public static double[][][] messages(MessagePassing mp) {
        int e = mp.graph().numEdges(), l = mp.graph().maxLabels();
        double[] f = flat(mp.messages());
        double[][][] m = new double[e][2][l];
        for (int a = 0; a < e; a++) {
            for (int s = 0; s < 2; s++) System.arraycopy(f, (a * 2 + s) * l, m[a][s], 0, l);
        }
        return m;
    }

    public static INDArray messageArray(double[][][] m, int numLabels) {
        if (m.length == 0) return Nd4j.create(DataType.DOUBLE, 0, 2, numLabels);
        return Nd4j.createFromArray(m).castTo(DataType.DOUBLE);
    }

    public static double[][] matrix(INDArray a, int rows, int cols) {
        double[] f = flat(a);
        double[][] m = new double[rows][cols];
        for (int r = 0; r < rows; r++) System.arraycopy(f, r * cols, m[r], 0, cols);
        return m;
    }
}
