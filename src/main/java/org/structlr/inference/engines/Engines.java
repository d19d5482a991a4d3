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
import org.nd4j.linalg.factory.Nd4j;
import org.structlr.graph.Coloring;
import org.structlr.graph.FactorGraph;
import org.structlr.graph.GridBatch;
import org.structlr.graph.Grids;
import org.structlr.memory.Device;

/**
 * Builds the inference engine for a graph: the one place that knows which engines exist and the
 * one rule that picks one ({@link EngineChoice#AUTO}), for training, prediction and {@code infer}:
 * <ul>
 *   <li>Grids (a batch of images of any sizes, {@link GridBatch}, at least 2 labels) on the CPU
 *       backend: {@link FusedGridMessagePassing} (Vector API), when the {@code jdk.incubator.vector}
 *       module is loaded ({@code java --add-modules jdk.incubator.vector}); without it the ND4J grid
 *       engine, and one line on stderr says so.</li>
 *   <li>Other graphs on the CPU backend of at most {@link #SMALL_GRAPH} label entries (see
 *       {@link #entries}), or of fewer than {@link #ENTRIES_PER_OP} entries per op of the ND4J graph
 *       engine's sweep ({@link #nd4jOpsPerSweep}: small dense graphs with many labels), or with regions:
 *       {@link LoopMessagePassing}, whose sweep costs time in proportion to the graph (the ND4J
 *       engines pay a fixed cost of op dispatch per op, and their ops per sweep grow with the colours,
 *       the labels squared and the degrees, not with the graph's size).</li>
 *   <li>Everything else, and every graph on the CUDA backend: the batched ND4J engines
 *       ({@link GridMessagePassing} for grids, {@link GraphMessagePassing} for any graph).</li>
 * </ul>
 * A named engine ({@link EngineChoice#FUSED}, {@link EngineChoice#ND4J}, {@link EngineChoice#LOOP})
 * is built whatever the sizes, or refused with one {@link EngineUnavailableException} when it cannot
 * run the graph (the fused engine: grids only, and the Vector API module).
 */
public final class Engines {
    /**
     * Largest graph, in {@link #entries}, that {@link EngineChoice#AUTO} gives the loop engine on the
     * CPU: about where the ND4J graph engine's fixed dispatch cost per sweep stops dominating.
     * Measured on one thread ({@code InferBench crossover}, README "Inference engines", CPU time per
     * sweep, random graphs of degree 4): 2 labels, 360,000 entries: loop 14.3 ms, ND4J 17.4 ms;
     * 900,000: loop 65.1, ND4J 37.8; 4 labels, 340,000: loop 7.0, ND4J 11.4; 1,360,000: loop 40.8,
     * ND4J 36.8. Grids keep the loop
     * engine ahead to larger sizes (neighbours are near in memory), so this is a bound for the worst case.
     */
    static final long SMALL_GRAPH = 500_000;

    /**
     * Fewest label entries per op of the ND4J graph engine's sweep ({@link #nd4jOpsPerSweep}) for
     * which {@link EngineChoice#AUTO} gives a graph above {@link #SMALL_GRAPH} to that engine on the
     * CPU. The random graphs of the crossover above have 280-750 ops per sweep (5 colours, degree 4):
     * 1,139 entries per op at 360,000 entries (loop ahead), 2,848 and 1,910 where ND4J is ahead. Dense UAI
     * models have far fewer: wcsp_14 (301 variables, 4,055 edges, 8 labels, 17 colours; 521,448 entries)
     * 31 per op, a sweep of 158 ms CPU on the ND4J engine against 4 ms on the loop engine; wcsp_13
     * 34 (517 ms against 7), Segmentation_11 70 (93 against 7), ImageAlignment_12 9 (2,920 against 10)
     * (100 or 30 sweeps each, one thread, load 8-12).
     */
    static final long ENTRIES_PER_OP = 1_000;

    private static volatile int cpuThreads = Runtime.getRuntime().availableProcessors();
    private static final AtomicBoolean WARNED = new AtomicBoolean();

    private Engines() {}

    /**
     * Threads of the CPU engines built from now on and of ND4J's native (OpenMP) ops: the one place
     * that sets them (the commands' --threads). libnd4j splits every op over
     * {@code Environment.setMaxMasterThreads(n)} threads of a pool sized once at start-up from
     * {@code OMP_NUM_THREADS} (else the cores), so this lowers the threads below the pool but not
     * above it ({@code setMaxThreads} is accepted and ignored by 1.0.0-M2.1). Matrix products have
     * their own pool ({@code Blas.setMaxThreads}), capped too where the backend has one. On CUDA these
     * only bound host-side work. Returns the threads an ND4J op may use from now on.
     */
    public static int setThreads(int threads) {
        if (threads < 1) throw new IllegalArgumentException("threads must be at least 1, got " + threads);
        cpuThreads = threads;
        Nd4j.getEnvironment().setMaxThreads(threads);
        Nd4j.getEnvironment().setMaxMasterThreads(threads);
        try {
            Nd4j.factory().blas().setMaxThreads(threads);
        } catch (RuntimeException ignored) {
            // a backend without a settable BLAS pool (CUDA): nothing to cap
        }
        return Nd4j.getEnvironment().maxMasterThreads();
    }

    public static int cpuThreads() { return cpuThreads; }

    /** True when the Vector API module is loaded into this JVM. */
    public static boolean vectorApiPresent() {
        return ModuleLayer.boot().findModule("jdk.incubator.vector").isPresent();
    }

    /** True when the fused CPU engine is the one to use: the Vector API is there and ND4J is on the CPU. */
    public static boolean fusedAvailable() {
        if (Device.cuda()) return false;
        if (vectorApiPresent()) return true;
        if (WARNED.compareAndSet(false, true)) {
            System.err.println("note: the Vector API is not loaded (start java with --add-modules jdk.incubator.vector);"
                    + " using the slower ND4J inference engines");
        }
        return false;
    }

    /**
     * The size {@link #SMALL_GRAPH} is measured in: the label entries one sweep reads, each edge's
     * table from both of its ends plus the unary tables, {@code 2 E L^2 + V L}, plus the regions'
     * ({@link FactorGraph#regionSweepEntries}).
     */
    public static long entries(FactorGraph graph) {
        long L = graph.maxLabels();
        return 2L * graph.numEdges() * L * L + (long) graph.numVariables() * L + graph.regionSweepEntries();
    }

    /**
     * About how many ops one sweep of {@link GraphMessagePassing} dispatches on {@code graph}: for
     * every colour class of {@link Coloring#of} (L labels, D the class's largest degree) the L message
     * rows of its edge slots, each a log-sum-exp over L rows ({@code 2 L^2 + 8 L} ops), and two ops per
     * label and degree plane ({@code 2 L D}).
     */
    public static long nd4jOpsPerSweep(FactorGraph graph) {
        Coloring coloring = Coloring.of(graph);
        int[] deg = graph.degrees();
        int[] maxDeg = new int[coloring.numColors()];
        boolean[] used = new boolean[coloring.numColors()];
        for (int v = 0; v < graph.numVariables(); v++) {
            int c = coloring.color(v);
            used[c] = true;
            maxDeg[c] = Math.max(maxDeg[c], deg[v]);
        }
        long L = graph.maxLabels(), ops = 0;
        for (int c = 0; c < maxDeg.length; c++) if (used[c]) ops += 2 * L * L + 8 * L + 2 * L * maxDeg[c];
        return ops;
    }

    /**
     * The engine {@code choice} resolves to for {@code graph}, without building it.
     * {@code shapes}: each example's image {@code [H, W]} (null for an example that is no image), or
     * null when nothing is known of images; {@code graph} is the examples' disjoint union in order.
     *
     * @throws EngineUnavailableException when a named engine cannot run this graph
     */
    public static EngineChoice resolve(EngineChoice choice, FactorGraph graph, List<int[]> shapes) {
        GridBatch grids = grids(graph, shapes);
        return switch (choice) {
            // graphs with regions: the loop engine on the CPU whatever the size (patch model of 4 + 4 denoising images of
            // 32 x 32, 317,000 entries, 3 learning iterations: loop 10.2 s, ND4J 117.2 s; bench/regions, load 8-12)
            case AUTO -> grids != null ? (fusedAvailable() ? EngineChoice.FUSED : EngineChoice.ND4J)
                    : !Device.cuda() && (graph.hasRegions() || entries(graph) <= SMALL_GRAPH
                            || entries(graph) < ENTRIES_PER_OP * nd4jOpsPerSweep(graph)) ? EngineChoice.LOOP : EngineChoice.ND4J;
            case FUSED -> {
                if (grids == null) {
                    throw new EngineUnavailableException("--engine fused runs only on images (4-connected grids with one label count"
                            + " of at least 2); this graph is not one: use --engine auto, nd4j or loop");
                }
                if (!vectorApiPresent()) {
                    throw new EngineUnavailableException("--engine fused needs the Vector API: start java with"
                            + " --add-modules jdk.incubator.vector (or use --engine auto, nd4j or loop)");
                }
                yield EngineChoice.FUSED;
            }
            case ND4J, LOOP -> choice;
        };
    }

    /**
     * The engine {@code choice} names (or picks, for AUTO) for {@code graph}; see
     * {@link #resolve}. {@code dtype} is the ND4J engines' precision (FLOAT or DOUBLE); the fused
     * engine computes in float, the loop engine in double.
     */
    public static MessagePassing create(EngineChoice choice, FactorGraph graph, List<int[]> shapes, double eps, DataType dtype) {
        EngineChoice engine = resolve(choice, graph, shapes);
        GridBatch grids = grids(graph, shapes);
        return switch (engine) {
            case FUSED -> new FusedGridMessagePassing(graph, grids, eps, cpuThreads);
            // ND4J (the CUDA path): ragged batches share one padded layout (GridMessagePassing.paddingFactor)
            case ND4J -> grids != null ? new GridMessagePassing(grids, graph.maxLabels(), eps, dtype)
                    : new GraphMessagePassing(graph, Coloring.of(graph), eps, dtype);
            case LOOP -> new LoopMessagePassing(graph, eps);
            case AUTO -> throw new AssertionError("resolve never returns AUTO");
        };
    }

    /** The grid layout when the graph is exactly the grids of {@code shapes} with at least 2 labels, else null. */
    private static GridBatch grids(FactorGraph graph, List<int[]> shapes) {
        if (shapes == null || shapes.isEmpty() || graph.maxLabels() < 2) return null;
        for (int[] s : shapes) if (s == null) return null;
        return GridBatch.detect(graph, shapes);
    }

    /** {@link EngineChoice#AUTO} for any graph, nothing known of images. */
    public static MessagePassing create(FactorGraph graph, double eps, DataType dtype) {
        return create(EngineChoice.AUTO, graph, null, eps, dtype);
    }

    /** {@link EngineChoice#AUTO} for a graph that may be the grids of {@code shapes} ({@link Grids#grid} order; {@link GridBatch#detect}). */
    public static MessagePassing create(FactorGraph graph, List<int[]> shapes, double eps, DataType dtype) {
        return create(EngineChoice.AUTO, graph, shapes, eps, dtype);
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
     * The engine for a batch of examples forming {@code graph} (their disjoint union, in order), in
     * float: {@code choice} resolved with each example's image shape ({@code shapes}, null for an
     * example that is no image).
     */
    public static MessagePassing forBatch(EngineChoice choice, FactorGraph graph, List<int[]> shapes, double eps) {
        return create(choice, graph, shapes, eps, DataType.FLOAT);
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
