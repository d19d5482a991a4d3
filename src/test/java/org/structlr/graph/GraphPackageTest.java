package org.structlr.graph;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** FactorGraph's pairwise half, Coloring, Grids and GridBatch (issue 20 item 6 asked for tests of the graph package). */
class GraphPackageTest {

    @Test
    void builderRefusesBadGraphsByName() {
        assertMessage("variable 1 has 1 labels; at least 2 are needed", () -> FactorGraph.builder(new int[] {2, 1}).build());
        assertMessage("edge 0 (0, 3) names a variable outside 0..2", () -> FactorGraph.of(3, 2, new int[][] {{0, 3}}));
        assertMessage("edge 0 joins variable 1 to itself", () -> FactorGraph.of(3, 2, new int[][] {{1, 1}}));
        assertMessage("edge 1 (1, 0) is repeated", () -> FactorGraph.of(3, 2, new int[][] {{0, 1}, {1, 0}}));
        assertMessage("edge 0 has type 2 but only 1 pairwise types exist",
                () -> FactorGraph.builder(new int[] {2, 2}).edges(new int[] {0}, new int[] {1}, new int[] {2}).build());
        assertMessage("variable 0 has unary type 1 but only 1 unary types exist",
                () -> FactorGraph.builder(new int[] {2, 2}).unaryTypes(new int[] {1, 0}, List.of("unary")).build());
    }

    @Test
    void incidenceDegreesAndTypes() {
        FactorGraph g = FactorGraph.builder(new int[] {2, 3, 2, 4})
                .edges(new int[] {0, 2, 1}, new int[] {1, 1, 3}, new int[] {0, 1, 1})
                .pairTypeNames(List.of("a", "b")).build();
        assertArrayEquals(new int[] {1, 3, 1, 1}, g.degrees());
        assertEquals(4, g.maxLabels());
        assertArrayEquals(new int[][] {{0}, {1, 2}}, g.edgesByType());
        int[][] inc = g.incidence();
        // variable 1: edge 0 as its second end, edge 1 as its second end, edge 2 as its first end
        assertArrayEquals(new int[] {0, 1, 2}, java.util.Arrays.copyOfRange(inc[1], inc[0][1], inc[0][2]));
        assertArrayEquals(new int[] {1, 1, 0}, java.util.Arrays.copyOfRange(inc[2], inc[0][1], inc[0][2]));
    }

    @Test
    void coloringsAreProperAndGridsTakeTwo() {
        Random rnd = new Random(1);
        for (int t = 0; t < 40; t++) {
            int n = 2 + rnd.nextInt(30);
            List<int[]> edges = new java.util.ArrayList<>();
            java.util.Set<Long> seen = new java.util.HashSet<>();
            for (int k = 0; k < 2 * n; k++) {
                int a = rnd.nextInt(n), b = rnd.nextInt(n);
                if (a == b || !seen.add((long) Math.min(a, b) * n + Math.max(a, b))) continue;
                edges.add(new int[] {a, b});
            }
            FactorGraph g = FactorGraph.of(n, 2, edges.toArray(new int[0][]));
            Coloring c = Coloring.of(g).checkProper(g);
            Coloring gr = Coloring.greedy(g).checkProper(g);
            int maxDeg = 0;
            for (int d : g.degrees()) maxDeg = Math.max(maxDeg, d);
            assertTrue(gr.numColors() <= maxDeg + 1, "greedy uses at most max degree + 1 colours");
            assertTrue(c.numColors() <= gr.numColors());
        }
        FactorGraph grid = Grids.grid(5, 7, 3, true);
        assertEquals(2, Coloring.of(grid).numColors(), "a grid is bipartite");
        Coloring board = Grids.checkerboard(5, 7).checkProper(grid);
        assertEquals(2, board.numColors());
        assertEquals(0, board.color(0));
        assertEquals(1, board.color(1));
        assertEquals(1, board.color(7));
        // an odd cycle is not bipartite: three colours
        FactorGraph tri = FactorGraph.of(3, 2, new int[][] {{0, 1}, {1, 2}, {2, 0}});
        assertEquals(3, Coloring.of(tri).numColors());
        assertMessage("edge 0 joins two variables of colour 0", () -> new Coloring(new int[] {0, 0, 1}).checkProper(tri));
        assertMessage("negative colour -1", () -> new Coloring(new int[] {0, -1}));
    }

    @Test
    void gridsAndGridBatches() {
        FactorGraph g = Grids.grid(3, 4, 2, true);
        assertEquals(12, g.numVariables());
        assertEquals(3 * 3 + 2 * 4, g.numEdges());
        // horizontal edges first (row-major), then vertical
        assertEquals(0, g.edgeFrom(0));
        assertEquals(1, g.edgeTo(0));
        assertEquals(0, g.edgeFrom(9));
        assertEquals(4, g.edgeTo(9));
        assertEquals(1, g.edgeType(9));
        assertEquals(List.of("horizontal", "vertical"), g.pairTypeNames());

        GridBatch b = new GridBatch(new int[] {3, 2}, new int[] {4, 5});
        assertEquals(12 + 10, b.numVariables());
        assertEquals(12, b.variableOffset(1));
        assertEquals(17, b.edgeOffset(1));
        assertFalse(b.isUniform());
        FactorGraph union = FactorGraph.disjointUnion(List.of(Grids.grid(3, 4, 2, false), Grids.grid(2, 5, 2, false)));
        assertTrue(b.matches(union));
        assertEquals(b, GridBatch.detect(union, List.of(new int[] {3, 4}, new int[] {2, 5})));
        assertNull(GridBatch.detect(union, List.of(new int[] {4, 3}, new int[] {2, 5})), "other shapes do not match");
        assertNull(GridBatch.detect(union, List.of(new int[] {3, 4})), "too few grids");
        assertNotNull(GridBatch.detect(Grids.grid(2, 2, 3, false), List.of(new int[] {2, 2})));
        // a grid with a region is no grid for the grid engines
        FactorGraph withRegion = FactorGraph.builder(new int[] {2, 2, 2, 2})
                .edges(new int[] {0, 2, 0, 1}, new int[] {1, 3, 2, 3}, null)
                .regions(new int[][] {{0, 1, 2, 3}}, null).build();
        assertFalse(GridBatch.uniform(1, 2, 2).matches(withRegion));
        assertTrue(GridBatch.uniform(1, 2, 2).matches(Grids.grid(2, 2, 2, false)));
        assertThrows(IllegalArgumentException.class, () -> new GridBatch(new int[] {0}, new int[] {3}));
        assertEquals("GridBatch[3x4, 2x5]", b.toString());
    }

    private static void assertMessage(String part, org.junit.jupiter.api.function.Executable run) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, run);
        assertTrue(e.getMessage().contains(part), e.getMessage());
    }
}
