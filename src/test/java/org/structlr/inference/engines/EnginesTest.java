package org.structlr.inference.engines;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.nd4j.linalg.api.buffer.DataType;
import org.structlr.graph.FactorGraph;
import org.structlr.graph.Grids;
import org.structlr.inference.MessagePassing;
import org.structlr.inference.fused.FusedGridMessagePassing;
import org.structlr.inference.loop.LoopMessagePassing;
import org.structlr.inference.nd4j.GraphMessagePassing;
import org.structlr.inference.nd4j.GridMessagePassing;

/** The one rule that picks an engine (auto), and named engines: built, or refused with one error. */
class EnginesTest {
    private static final List<int[]> TWO_4X5 = List.of(new int[] {4, 5}, new int[] {4, 5});

    private static FactorGraph grids() {
        return FactorGraph.disjointUnion(Collections.nCopies(2, Grids.grid(4, 5, 2, false)));
    }

    /** {@code n} isolated variables with {@code labels} labels: exactly n * labels entries. */
    private static FactorGraph isolated(int n, int labels) {
        return FactorGraph.of(n, labels, new int[0][]);
    }

    /** A chain (not a grid batch of the shapes given) with the given entries count. */
    private static FactorGraph chain(int n, int labels) {
        List<int[]> edges = new ArrayList<>();
        for (int i = 0; i + 1 < n; i++) edges.add(new int[] {i, i + 1});
        return FactorGraph.of(n, labels, edges.toArray(new int[0][]));
    }

    @Test
    void entriesCountWhatOneSweepReads() {
        FactorGraph g = chain(10, 3);   // 9 edges, 3 labels
        assertEquals(2L * 9 * 9 + 10 * 3, Engines.entries(g));
    }

    @Test
    void autoGivesTheLoopEngineUpToTheSmallGraphLimitThenNd4j() {
        int at = (int) (Engines.SMALL_GRAPH / 2);
        assertEquals(Engines.SMALL_GRAPH, Engines.entries(isolated(at, 2)));
        assertEquals(EngineChoice.LOOP, Engines.resolve(EngineChoice.AUTO, isolated(at, 2), null));
        assertEquals(EngineChoice.ND4J, Engines.resolve(EngineChoice.AUTO, isolated(at + 1, 2), null));
        // images are never the loop engine's, however small
        assertEquals(EngineChoice.FUSED, Engines.resolve(EngineChoice.AUTO, grids(), TWO_4X5));
        // the same graph with no image shapes is a small general graph
        assertEquals(EngineChoice.LOOP, Engines.resolve(EngineChoice.AUTO, grids(), null));
    }

    /**
     * A small dense graph with many labels is the loop engine's above the size limit too: the ND4J
     * graph engine's sweep is one op batch per colour, label and degree, so there it pays op dispatch
     * on a few entries each. A complete graph of 30 variables with 58 labels (the size of the UAI model
     * ImageAlignment_12): 2,928,420 entries, 30 colours, 9 entries per op.
     */
    @Test
    void autoGivesTheLoopEngineToDenseGraphsWithFewEntriesPerNd4jOp() {
        List<int[]> edges = new ArrayList<>();
        for (int i = 0; i < 30; i++) for (int j = i + 1; j < 30; j++) edges.add(new int[] {i, j});
        FactorGraph complete = FactorGraph.of(30, 58, edges.toArray(new int[0][]));
        assertEquals(2L * 435 * 58 * 58 + 30 * 58, Engines.entries(complete));
        assertEquals(30L * (2 * 58 * 58 + 8 * 58 + 2 * 58 * 29), Engines.nd4jOpsPerSweep(complete));
        assertEquals(EngineChoice.LOOP, Engines.resolve(EngineChoice.AUTO, complete, null));
        // a sparse graph above the limit has thousands of entries per op: the ND4J engine's
        FactorGraph sparse = chain(100_000, 2);
        assertTrue(Engines.entries(sparse) > Engines.SMALL_GRAPH && Engines.entries(sparse) >= Engines.ENTRIES_PER_OP * Engines.nd4jOpsPerSweep(sparse));
        assertEquals(EngineChoice.ND4J, Engines.resolve(EngineChoice.AUTO, sparse, null));
    }

    @Test
    void autoBuildsTheEngineItResolvesTo() {
        try (MessagePassing mp = Engines.create(EngineChoice.AUTO, grids(), TWO_4X5, 0.1, DataType.FLOAT)) {
            assertInstanceOf(FusedGridMessagePassing.class, mp);
        }
        try (MessagePassing mp = Engines.create(EngineChoice.AUTO, chain(30, 3), null, 0.1, DataType.DOUBLE)) {
            assertInstanceOf(LoopMessagePassing.class, mp);
        }
        List<int[]> oneIsNoImage = new ArrayList<>(TWO_4X5);
        oneIsNoImage.set(1, null);
        try (MessagePassing mp = Engines.create(EngineChoice.AUTO, grids(), oneIsNoImage, 0.1, DataType.FLOAT)) {
            assertInstanceOf(LoopMessagePassing.class, mp);
        }
    }

    @Test
    void namedEnginesAreBuiltWhateverTheSize() {
        try (MessagePassing mp = Engines.create(EngineChoice.ND4J, grids(), TWO_4X5, 0.1, DataType.FLOAT)) {
            assertInstanceOf(GridMessagePassing.class, mp);
        }
        try (MessagePassing mp = Engines.create(EngineChoice.ND4J, chain(30, 3), null, 0.1, DataType.DOUBLE)) {
            assertInstanceOf(GraphMessagePassing.class, mp);
        }
        try (MessagePassing mp = Engines.create(EngineChoice.LOOP, grids(), TWO_4X5, 0.1, DataType.FLOAT)) {
            assertInstanceOf(LoopMessagePassing.class, mp);
        }
        try (MessagePassing mp = Engines.create(EngineChoice.FUSED, grids(), TWO_4X5, 0.1, DataType.FLOAT)) {
            assertInstanceOf(FusedGridMessagePassing.class, mp);
        }
    }

    @Test
    void theFusedEngineOnAGraphThatIsNoImageIsOneClearError() {
        EngineUnavailableException e = assertThrows(EngineUnavailableException.class,
                () -> Engines.create(EngineChoice.FUSED, chain(30, 3), null, 0.1, DataType.FLOAT));
        assertTrue(e.getMessage().startsWith("--engine fused runs only on images"), e.getMessage());
        assertTrue(e.getMessage().contains("use --engine auto, nd4j or loop"), e.getMessage());
        // image shapes that are not those of the graph
        assertThrows(EngineUnavailableException.class, () -> Engines.resolve(EngineChoice.FUSED, grids(), List.of(new int[] {5, 4}, new int[] {4, 5})));
    }

    @Test
    void choicesParseByTheirCommandLineNames() {
        for (EngineChoice c : EngineChoice.values()) assertEquals(c, EngineChoice.parse(c.label()));
        assertEquals(EngineChoice.ND4J, EngineChoice.parse("ND4J"));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> EngineChoice.parse("cuda"));
        assertEquals("unknown engine 'cuda': one of auto, fused, nd4j, loop", e.getMessage());
    }
}
