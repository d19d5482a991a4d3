package org.structlr.inference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.structlr.graph.FactorGraph;

/** Variable elimination against enumeration: the MAP of whole models and of blocks with the rest fixed. */
class EliminationTest {

    /**
     * A random model over n variables with 2-3 labels: a few edges, regions of 3 and 4 variables,
     * a share of zero entries (minus infinity) and evidence (one finite unary label) on some variables.
     */
    static LabelingEnergy randomModel(long seed, int n) {
        Random rnd = new Random(seed);
        int[] labels = new int[n];
        for (int i = 0; i < n; i++) labels[i] = 2 + rnd.nextInt(2);
        int ne = n / 2, nr = n / 2 + 1;
        int[] from = new int[ne], to = new int[ne];
        java.util.Set<String> seen = new java.util.HashSet<>();   // no factor over the same variables twice (the graph refuses it)
        for (int e = 0; e < ne; e++) {
            do {
                from[e] = rnd.nextInt(n);
                to[e] = rnd.nextInt(n);
            } while (to[e] == from[e] || !seen.add(Math.min(from[e], to[e]) + "," + Math.max(from[e], to[e])));
        }
        int[][] scopes = new int[nr][];
        for (int r = 0; r < nr; r++) {
            int k = 3 + rnd.nextInt(2);
            do scopes[r] = rnd.ints(0, n).distinct().limit(k).toArray();
            while (!seen.add(Arrays.toString(Arrays.stream(scopes[r]).sorted().toArray())));
        }
        FactorGraph g = FactorGraph.builder(labels).edges(from, to, null).regions(scopes, null).build();
        int L = g.maxLabels();
        double[] u = new double[n * L], p = new double[ne * L * L], t = new double[g.totalRegionEntries()];
        for (int i = 0; i < n; i++) {
            int observed = rnd.nextDouble() < 0.15 ? rnd.nextInt(labels[i]) : -1;
            for (int y = 0; y < L; y++) u[i * L + y] = y >= labels[i] ? 1e6 : observed >= 0 && y != observed ? Double.NEGATIVE_INFINITY : rnd.nextGaussian();
        }
        for (int k = 0; k < p.length; k++) p[k] = rnd.nextGaussian();
        // zeros only inside regions, and never the all-zero labelling's entry: the model stays feasible
        for (int r = 0; r < nr; r++) {
            int o = g.regionTableOffset(r);
            for (int k = 0; k < g.regionEntries(r); k++) t[o + k] = k > 0 && rnd.nextDouble() < 0.2 ? Double.NEGATIVE_INFINITY : rnd.nextGaussian();
        }
        return new LabelingEnergy(g, u, p, t);
    }

    @Test
    void eliminationOfTheWholeModelFindsTheMap() {
        int finite = 0;
        for (long seed = 1; seed <= 40; seed++) {
            LabelingEnergy en = randomModel(seed, 9);
            int n = en.graph().numVariables();
            Elimination el = new Elimination(en);
            Elimination.Plan plan = el.plan(all(n), 1 << 20);
            assertNotNull(plan);
            int[] y = new int[n];
            for (int i = 0; i < n; i++) for (int l = 0; l < en.graph().numLabels(i); l++) if (en.unary(i, l) > Double.NEGATIVE_INFINITY) y[i] = l;
            double e = el.solve(plan, y);
            double map = MapSearchTest.exactMap(en);
            assertEquals(map, e, 1e-9, "seed " + seed);
            assertEquals(en.energy(y), e, 0);
            if (map > Double.NEGATIVE_INFINITY) finite++;
        }
        assertTrue(finite >= 30, "most models must be feasible for the test to mean something: " + finite);
    }

    @Test
    void aBlockTakesItsBestLabelsAndTheRestStays() {
        for (long seed = 50; seed < 80; seed++) {
            LabelingEnergy en = randomModel(seed, 11);
            FactorGraph g = en.graph();
            int n = g.numVariables();
            Random rnd = new Random(seed);
            int[] y = new int[n];
            for (int i = 0; i < n; i++) y[i] = rnd.nextInt(g.numLabels(i));
            int[] block = rnd.ints(0, n).distinct().limit(5).toArray();
            // enumeration over the block's labels, the rest as in y
            int[] z = y.clone();
            double best = Double.NEGATIVE_INFINITY;
            int[] at = new int[block.length];
            while (true) {
                for (int k = 0; k < block.length; k++) z[block[k]] = at[k];
                best = Math.max(best, en.energy(z));
                int k = block.length - 1;
                while (k >= 0 && ++at[k] == g.numLabels(block[k])) at[k--] = 0;
                if (k < 0) break;
            }
            int[] w = y.clone();
            Elimination el = new Elimination(en);
            double e = el.solve(el.plan(block, 1 << 20), w);
            if (best == Double.NEGATIVE_INFINITY) assertEquals(best, e, "seed " + seed);
            else assertEquals(best, e, 1e-9, "seed " + seed);
            boolean[] inBlock = new boolean[n];
            for (int v : block) inBlock[v] = true;
            for (int i = 0; i < n; i++) if (!inBlock[i]) assertEquals(y[i], w[i], "variable " + i + " is not in the block");
        }
    }

    @Test
    void aPlanBeyondTheLimitIsRefusedAndAPlanWithinItStaysWithin() {
        // one region over 4 variables with 2*3*2*4 = 48 entries, no evidence: its elimination needs a table of 48
        FactorGraph g = FactorGraph.builder(new int[] {2, 3, 2, 4}).regions(new int[][] {{0, 1, 2, 3}}, null).build();
        LabelingEnergy en = new LabelingEnergy(g, new double[4 * 4], new double[0], new double[48]);
        Elimination el = new Elimination(en);
        assertNull(el.plan(all(4), 47));
        Elimination.Plan plan = el.plan(all(4), 48);
        assertNotNull(plan);
        assertEquals(48, plan.largest());
        for (long seed = 1; seed <= 20; seed++) {
            LabelingEnergy m = randomModel(seed, 12);
            for (long limit : new long[] {8, 30, 100, 1000}) {
                Elimination.Plan p = new Elimination(m).plan(all(12), limit);
                if (p != null) assertTrue(p.largest() <= limit && p.total() <= 16 * limit, p.largest() + " > " + limit);
            }
        }
    }

    private static int[] all(int n) {
        int[] a = new int[n];
        Arrays.setAll(a, i -> i);
        return a;
    }

    /** The search with elimination on: every small model solved exactly first, with a certificate. */
    @Test
    void theSearchWithEliminationProvesTheMapOfSmallModels() {
        MapSearch.Settings settings = new MapSearch.Settings(0.1, 0.5, 5, 0, false, true, 1, 1).withElimination(1 << 16);
        for (long seed = 100; seed < 120; seed++) {
            LabelingEnergy en = randomModel(seed, 9);
            double map = MapSearchTest.exactMap(en);
            if (map == Double.NEGATIVE_INFINITY) continue;
            try (var mp = MapSearchTest.engine(en, 0.1)) {
                MapDecoder.Result r = new MapDecoder(MapDecoder.Kind.best, en).run(mp, new StopRule(20, 0, 10));
                MapSearch.Result s = new MapSearch(en, (g, eps) -> new org.structlr.inference.loop.LoopMessagePassing(g, eps), settings,
                        Deadline.NONE, null).run(mp, r.labels());
                assertEquals(map, s.energy(), 1e-9, "seed " + seed);
                assertTrue(s.certified(), "seed " + seed + ": exact elimination is a proof");
                assertTrue(s.stages().get(s.stages().size() - 1).name().startsWith("elimination (exact"), s.stages().toString());
            }
        }
    }

    /**
     * Elimination moves never lower the energy; with tables as large as the whole model needs, a
     * block of 32 covers these models of 11 variables (when connected) and the moves reach the MAP.
     */
    @Test
    void eliminationMovesNeverLowerTheEnergyAndSolveASmallModel() {
        int solved = 0;
        for (long seed = 200; seed < 230; seed++) {
            LabelingEnergy en = randomModel(seed, 11);
            FactorGraph g = en.graph();
            Random rnd = new Random(seed);
            int[] y = new int[g.numVariables()];
            for (int i = 0; i < y.length; i++) y[i] = rnd.nextInt(g.numLabels(i));
            double before = en.energy(y);
            int brokenBefore = en.brokenCount(y);
            LocalSearch ls = new LocalSearch(en);
            double small = ls.eliminationMoves(y, 20, 5, 4, rnd, Deadline.NONE);
            assertTrue(en.brokenCount(y) < brokenBefore || (en.brokenCount(y) == brokenBefore && small >= before), "seed " + seed);
            double after = new LocalSearch(en).eliminationMoves(y, 50, 50, 1 << 20, rnd, Deadline.NONE);
            assertEquals(en.energy(y), after, 0);
            if (after >= MapSearchTest.exactMap(en) - 1e-9) solved++;
        }
        assertTrue(solved >= 25, "elimination moves with large tables solve most models: " + solved + " of 30");
    }

    /** Conditioning: where the elimination of the whole model is beyond the table limit, the labellings of a few variables each leave one that fits. */
    @Test
    void conditioningSolvesModelsBeyondTheTableLimitExactly() {
        int conditioned = 0;
        for (long seed = 300; seed < 340; seed++) {
            LabelingEnergy en = randomModel(seed, 10);
            Elimination el = new Elimination(en);
            long limit = 12;
            int[] y = new int[10];
            for (int i = 0; i < 10; i++) for (int l = 0; l < en.graph().numLabels(i); l++) if (en.unary(i, l) > Double.NEGATIVE_INFINITY) y[i] = l;
            int[] map = el.exactMap(y, limit, 1 << 12, Deadline.NONE);
            if (map == null) continue;
            assertEquals(MapSearchTest.exactMap(en), en.energy(map), 1e-9, "seed " + seed);
            if (el.plan(all(10), limit) == null) conditioned++;
        }
        assertTrue(conditioned >= 10, "conditioning was needed and done on " + conditioned + " of 40 models");
        // no room for conditioning: refused
        LabelingEnergy en = randomModel(301, 10);
        assertNull(new Elimination(en).exactMap(new int[10], 2, 2, Deadline.NONE));
    }

    /** Once the deadline has passed, the exact attempt gives up at once (infer --time-limit holds) where without one it solves the model. */
    @Test
    void aPassedDeadlineStopsTheExactAttempt() {
        LabelingEnergy en = randomModel(7, 9);
        int[] y = new int[9];
        assertNotNull(new Elimination(en).exactMap(y, 1 << 20, 1 << 24, Deadline.NONE));
        assertNull(new Elimination(en, () -> true).exactMap(y, 1 << 20, 1 << 24, Deadline.NONE));
        Elimination.Plan plan = new Elimination(en).plan(all(9), 1 << 20);
        assertTrue(Double.isNaN(new Elimination(en, () -> true).solve(plan, y.clone())));
    }
}
