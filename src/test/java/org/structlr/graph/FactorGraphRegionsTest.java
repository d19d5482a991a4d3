package org.structlr.graph;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Regions (factors over any number of variables) in {@link FactorGraph}, and colourings that respect them. */
class FactorGraphRegionsTest {

    /** 6 variables of 2, 3, 2, 4, 2, 3 labels; edges 0-1, 4-5; regions (2, 0, 3), (1, 2, 4, 5) of two types. */
    static FactorGraph sample() {
        return FactorGraph.builder(new int[] {2, 3, 2, 4, 2, 3})
                .edges(new int[] {0, 4}, new int[] {1, 5}, null)
                .regions(new int[][] {{2, 0, 3}, {1, 2, 4, 5}}, new int[] {1, 0})
                .regionTypeNames(List.of("quad", "triple"))
                .build();
    }

    @Test
    void tablesAreRowMajorLastVariableFastestWithOwnLabelCounts() {
        FactorGraph g = sample();
        assertEquals(2, g.numRegions());
        assertTrue(g.hasRegions());
        assertEquals(3, g.regionSize(0));
        assertArrayEquals(new int[] {2, 0, 3}, g.regionScope(0));
        assertEquals(2 * 2 * 4, g.regionEntries(0));
        assertEquals(3 * 2 * 2 * 3, g.regionEntries(1));
        assertEquals(0, g.regionTableOffset(0));
        assertEquals(16, g.regionTableOffset(1));
        assertEquals(16 + 36, g.totalRegionEntries());
        assertEquals(7, g.numRegionSlots());
        assertEquals(3, g.regionSlot(1, 0));
        assertEquals(1, g.regionType(0));
        assertEquals(List.of("quad", "triple"), g.regionTypeNames());
        assertArrayEquals(new int[][] {{1}, {0}}, g.regionsByType());
        // strides: region 0 over (2, 0, 3) with labels (2, 2, 4): 8, 4, 1
        assertEquals(8, g.regionStride(0, 0));
        assertEquals(4, g.regionStride(0, 1));
        assertEquals(1, g.regionStride(0, 2));
        // every entry index decodes to labels that encode back to it, and the labels of every
        // labelling of the scope appear exactly once (independent enumeration)
        for (int r = 0; r < g.numRegions(); r++) {
            Set<Integer> seen = new HashSet<>();
            int[] y = new int[g.numVariables()];
            int[] scope = g.regionScope(r);
            int count = 0;
            while (true) {
                int t = g.regionEntry(r, y);
                assertTrue(t >= 0 && t < g.regionEntries(r));
                assertTrue(seen.add(t), "entry " + t + " twice");
                for (int p = 0; p < scope.length; p++) assertEquals(y[scope[p]], g.regionLabel(r, p, t));
                count++;
                int p = scope.length - 1;
                while (p >= 0 && ++y[scope[p]] == g.numLabels(scope[p])) y[scope[p--]] = 0;
                if (p < 0) break;
            }
            assertEquals(g.regionEntries(r), count);
        }
        // last variable fastest: (y2, y0, y3) = (1, 0, 2) is 1*8 + 0*4 + 2
        int[] y = new int[6];
        y[2] = 1;
        y[3] = 2;
        assertEquals(10, g.regionEntry(0, y));
    }

    @Test
    void incidenceDegreesAndNeighbours() {
        FactorGraph g = sample();
        assertArrayEquals(new int[] {1, 1, 2, 1, 1, 1}, g.regionDegrees());
        int[][] inc = g.regionIncidence();
        // variable 2: region 0 at position 0, region 1 at position 1
        assertEquals(2, inc[0][3] - inc[0][2]);
        assertEquals(0, inc[1][inc[0][2]]);
        assertEquals(0, inc[2][inc[0][2]]);
        assertEquals(1, inc[1][inc[0][2] + 1]);
        assertEquals(1, inc[2][inc[0][2] + 1]);
        // the same rows by name, beside the edges' (variable 0 is edge 0's first end)
        FactorGraph.Incidence named = g.variableIncidence();
        int[][] edges = g.incidence();
        assertArrayEquals(edges[0], named.edgeOffsets());
        assertArrayEquals(edges[1], named.edge());
        assertArrayEquals(edges[2], named.side());
        assertArrayEquals(inc[0], named.regionOffsets());
        assertArrayEquals(inc[1], named.region());
        assertArrayEquals(inc[2], named.position());
        assertEquals(0, named.edge()[named.edgeOffsets()[0]]);
        assertEquals(0, named.side()[named.edgeOffsets()[0]]);
        assertEquals(1, named.region()[named.regionOffsets()[2] + 1]);
        assertEquals(1, named.position()[named.regionOffsets()[2] + 1]);
        int[][] nb = g.neighbours();
        // variable 0: edge to 1, then region 0's others 2 and 3
        assertArrayEquals(new int[] {1, 2, 3}, java.util.Arrays.copyOfRange(nb[1], nb[0][0], nb[0][1]));
        // variable 5: edge to 4, region 1's others 1, 2, 4 (4 repeats)
        assertArrayEquals(new int[] {4, 1, 2, 4}, java.util.Arrays.copyOfRange(nb[1], nb[0][5], nb[0][6]));
    }

    @Test
    void colouringsSeparateTheVariablesOfEveryRegion() {
        Random rnd = new Random(3);
        for (int trial = 0; trial < 30; trial++) {
            int n = 6 + rnd.nextInt(10);
            int[] labels = new int[n];
            java.util.Arrays.fill(labels, 2);
            int R = 1 + rnd.nextInt(5);
            Set<List<Integer>> sets = new HashSet<>();
            int[][] scopes = new int[R][];
            for (int r = 0; r < R; r++) {
                int k;
                List<Integer> key;
                do {
                    k = 2 + rnd.nextInt(3);
                    java.util.List<Integer> all = new java.util.ArrayList<>();
                    for (int v = 0; v < n; v++) all.add(v);
                    java.util.Collections.shuffle(all, rnd);
                    key = new java.util.ArrayList<>(all.subList(0, k));
                    scopes[r] = key.stream().mapToInt(Integer::intValue).toArray();
                    key.sort(null);
                } while (!sets.add(key));
            }
            FactorGraph g = FactorGraph.builder(labels).edges(new int[] {0}, new int[] {1}, null).regions(scopes, null).build();
            Coloring.of(g).checkProper(g);
            Coloring.greedy(g).checkProper(g);
        }
        // a triangle region is no bipartite graph: three colours
        FactorGraph tri = FactorGraph.builder(new int[] {2, 2, 2}).regions(new int[][] {{0, 1, 2}}, null).build();
        assertEquals(3, Coloring.of(tri).numColors());
        // and checkProper catches a colouring that ignores the region
        Coloring bad = new Coloring(new int[] {0, 1, 0});
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> bad.checkProper(tri));
        assertTrue(e.getMessage().contains("region 0 holds two variables of colour 0"), e.getMessage());
    }

    @Test
    void pairwiseGraphsColourAsBefore() {
        // the neighbour lists of a pairwise graph are its edges in incidence order, so the colourings
        // (and with them the engines' update order) do not change
        FactorGraph g = FactorGraph.of(5, 2, new int[][] {{0, 1}, {1, 2}, {2, 0}, {2, 3}, {3, 4}});
        int[][] inc = g.incidence(), nb = g.neighbours();
        assertArrayEquals(inc[0], nb[0]);
        for (int v = 0; v < 5; v++) {
            for (int k = inc[0][v]; k < inc[0][v + 1]; k++) {
                int e = inc[1][k];
                assertEquals(g.edgeFrom(e) == v ? g.edgeTo(e) : g.edgeFrom(e), nb[1][k]);
            }
        }
        assertFalse(g.hasRegions());
        assertEquals(0, g.totalRegionEntries());
    }

    @Test
    void disjointUnionShiftsRegions() {
        FactorGraph g = sample();
        FactorGraph u = FactorGraph.disjointUnion(List.of(g, g));
        assertEquals(4, u.numRegions());
        assertArrayEquals(new int[] {8, 6, 9}, u.regionScope(2));
        assertArrayEquals(new int[] {7, 8, 10, 11}, u.regionScope(3));
        assertEquals(1, u.regionType(2));
        assertEquals(2 * g.totalRegionEntries(), u.totalRegionEntries());
        assertEquals(g.totalRegionEntries() + 16, u.regionTableOffset(3));
        Coloring.of(u).checkProper(u);
        FactorGraph other = FactorGraph.builder(new int[] {2, 2, 2}).regions(new int[][] {{0, 1, 2}}, null).build();
        assertThrows(IllegalArgumentException.class, () -> FactorGraph.disjointUnion(List.of(g, other)));
    }

    @Test
    void badRegionsAreRefusedByName() {
        int[] l = {2, 2, 2, 2};
        assertMessage("region 0 has 1 variables; a region needs at least 2", () -> FactorGraph.builder(l).regions(new int[][] {{1}}, null).build());
        assertMessage("region 0 names variable 4, outside 0..3", () -> FactorGraph.builder(l).regions(new int[][] {{0, 1, 4}}, null).build());
        assertMessage("region 0 names variable 1 twice", () -> FactorGraph.builder(l).regions(new int[][] {{1, 2, 1}}, null).build());
        assertMessage("region 1 repeats the variables [0, 1, 2]", () -> FactorGraph.builder(l).regions(new int[][] {{0, 1, 2}, {2, 1, 0}}, null).build());
        assertMessage("region 0 has type 1 but only 1 region types exist", () -> FactorGraph.builder(l).regions(new int[][] {{0, 1, 2}}, new int[] {1}).build());
        // the size limit: 25 variables of 2 labels = 2^25 entries > 2^24
        int[] big = new int[25];
        java.util.Arrays.fill(big, 2);
        int[] all = new int[25];
        for (int v = 0; v < 25; v++) all[v] = v;
        assertMessage("region 0 over 25 variables has a table of more than 16777216 entries, the limit", () -> FactorGraph.builder(big).regions(new int[][] {all}, null).build());
        // 24 variables of 2 labels (2^24 entries) is at the limit and accepted
        int[] at = java.util.Arrays.copyOf(all, 24);
        assertEquals(1 << 24, FactorGraph.builder(big).regions(new int[][] {at}, null).build().regionEntries(0));
    }

    private static void assertMessage(String part, org.junit.jupiter.api.function.Executable run) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, run);
        assertTrue(e.getMessage().contains(part), e.getMessage());
    }
}
