package org.structlr.inference.engines;

import org.structlr.inference.MessagePassing;
import org.structlr.inference.fused.FusedGridMessagePassing;
import org.structlr.inference.loop.LoopMessagePassing;
import org.structlr.inference.nd4j.GraphMessagePassing;
import org.structlr.inference.nd4j.GridMessagePassing;

import java.util.Collections;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ops.executioner.OpExecutioner;
import org.nd4j.linalg.factory.Nd4j;
import org.structlr.graph.Coloring;
import org.structlr.graph.FactorGraph;
import org.structlr.graph.GridBatch;
import org.structlr.graph.Grids;

/**
 * Picks the inference engine for a graph: the one place that knows which engines exist.
 * <ul>
 *   <li>Grids (a batch of images of any sizes, {@link GridBatch}) on the CPU backend:
 *       {@link FusedGridMessagePassing} (Vector API), when the {@code jdk.incubator.vector} module is
 *       loaded ({@code java --add-modules jdk.incubator.vector}); without it the ND4J grid engine,
 *       and one line on stderr says so.</li>
 *   <li>Small general graphs: {@link LoopMessagePassing}, whose sweep costs time in proportion to
 *       the graph (the ND4J engines pay a fixed few milliseconds of op dispatch per sweep).</li>
 *   <li>Everything else, and every graph on the CUDA backend: the batched ND4J engines.</li>
 * </ul>
 */
public final class Engines {
    /** Below this many label entries (2 E L^2 + V L, plus the regions' {@link FactorGraph#regionSweepEntries}) a plain loop sweep takes about a millisecond or less. */
    static final long SMALL_GRAPH = 200_000;

    private static volatile int cpuThreads = Runtime.getRuntime().availableProcessors();
    private static final AtomicBoolean WARNED = new AtomicBoolean();

    private Engines() {}

    /** Threads of the CPU engines built from now on (the commands' --threads). */
    public static void setCpuThreads(int threads) {
        if (threads < 1) throw new IllegalArgumentException("threads must be at least 1, got " + threads);
        cpuThreads = threads;
    }

    public static int cpuThreads() { return cpuThreads; }

    /** True when the Vector API module is loaded into this JVM. */
    public static boolean vectorApiPresent() {
        return ModuleLayer.boot().findModule("jdk.incubator.vector").isPresent();
    }

    /** True when ND4J runs on a GPU (then the ND4J engines are the fast ones). */
    public static boolean cudaBackend() {
        return Nd4j.getExecutioner().type() == OpExecutioner.ExecutionerType.CUDA;
    }

    /** True when the fused CPU engine is the one to use: the Vector API is there and ND4J is on the CPU. */
    public static boolean fusedAvailable() {
        if (cudaBackend()) return false;
        if (vectorApiPresent()) return true;
        if (WARNED.compareAndSet(false, true)) {
            System.err.println("note: the Vector API is not loaded (start java with --add-modules jdk.incubator.vector);"
                    + " using the slower ND4J inference engines");
        }
        return false;
    }

    /** An engine for any graph: the loop engine for small graphs on the CPU, else the batched ND4J engine. */
    public static MessagePassing create(FactorGraph graph, double eps, DataType dtype) {
        long L = graph.maxLabels();
        long size = 2L * graph.numEdges() * L * L + (long) graph.numVariables() * L + graph.regionSweepEntries();
        if (size <= SMALL_GRAPH && !cudaBackend()) return new LoopMessagePassing(graph, eps);
        return new GraphMessagePassing(graph, Coloring.of(graph), eps, dtype);
    }

    /**
     * The grid engine when {@code graph} is exactly the grids of {@code shapes} (each {@code [H, W]},
     * in {@link Grids#grid} order, one label count; {@link GridBatch#detect}), else
     * {@link #create(FactorGraph, double, DataType)}. {@code dtype} is the ND4J engines' precision; the
     * fused engine computes in float.
     */
    public static MessagePassing create(FactorGraph graph, List<int[]> shapes, double eps, DataType dtype) {
        GridBatch batch = GridBatch.detect(graph, shapes);
        if (batch == null || graph.maxLabels() < 2) return create(graph, eps, dtype);
        if (fusedAvailable()) return new FusedGridMessagePassing(graph, batch, eps, cpuThreads);
        // ND4J (the CUDA path): ragged batches share one padded layout (GridMessagePassing.paddingFactor)
        return new GridMessagePassing(batch, graph.maxLabels(), eps, dtype);
    }

    /** {@link #create(FactorGraph, List, double, DataType)} for stacked grids of one size. */
    public static MessagePassing create(FactorGraph graph, int height, int width, double eps, DataType dtype) {
        if (height < 1 || width < 1 || graph.numVariables() % (height * width) != 0) return create(graph, eps, dtype);
        return create(graph, Collections.nCopies(graph.numVariables() / (height * width), new int[] {height, width}), eps, dtype);
    }

    /** True when the graph's variables and edges are those of stacked height x width grids, in the builder's order. */
    public static boolean isGridBatch(FactorGraph g, int height, int width) {
        int per = height * width;
        if (per == 0 || g.numVariables() % per != 0) return false;
        return GridBatch.detect(g, Collections.nCopies(g.numVariables() / per, new int[] {height, width})) != null;
    }

    /**
     * The engine for a batch of examples forming {@code graph} (their disjoint union, in order):
     * the grid engines when every example is an image (of any sizes: a ragged batch, checked by
     * {@link GridBatch#detect}), else the general engine.
     * {@code shapes} holds each example's [H, W], or null for an example that is no image.
     */
    public static MessagePassing forBatch(FactorGraph graph, java.util.List<int[]> shapes, double eps) {
        for (int[] s : shapes) if (s == null) return create(graph, eps, DataType.FLOAT);
        return create(graph, shapes, eps, DataType.FLOAT);
    }

    /**
     * True when {@code mp}, built over a disjoint union of graphs, gives every part exactly the
     * messages (and so beliefs and labels) that an engine of its own would, bit for bit: the fused
     * grid engine (each pixel's update reads only its neighbours, lane by lane, whatever the batch
     * and thread count) and the loop engine (its greedy colouring and update order restricted to a
     * part are the part's own). Not the ND4J engines, whose reductions and vector kernels may round
     * differently with the array's length. {@code model.Predictor#predictEach} batches only these.
     */
    public static boolean separable(MessagePassing mp) {
        return mp instanceof FusedGridMessagePassing || mp instanceof LoopMessagePassing;
    }
}
