package org.structlr.inference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
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

    /** A clock in nanoseconds that advances one millisecond every time it is read: "time" is the number of readings, the same on any machine. */
    private static final class TickingClock implements java.util.function.LongSupplier {
        long now;

        @Override
        public long getAsLong() {
            return now += 1_000_000;
        }
    }

    /** An n x n grid with 2 labels and random potentials: induced width n, so the exact attempt's plan and solve take one step per variable each. */
    private static LabelingEnergy grid(int n, long seed) {
        Random rnd = new Random(seed);
        int V = n * n;
        java.util.List<int[]> edges = new java.util.ArrayList<>();
        for (int r = 0; r < n; r++) for (int c = 0; c < n; c++) {
            if (c + 1 < n) edges.add(new int[] {r * n + c, r * n + c + 1});
            if (r + 1 < n) edges.add(new int[] {r * n + c, (r + 1) * n + c});
        }
        int[] from = edges.stream().mapToInt(e -> e[0]).toArray(), to = edges.stream().mapToInt(e -> e[1]).toArray();
        int[] labels = new int[V];
        Arrays.fill(labels, 2);
        FactorGraph g = FactorGraph.builder(labels).edges(from, to, null).build();
        double[] u = new double[V * 2], p = new double[from.length * 4];
        for (int k = 0; k < u.length; k++) u[k] = rnd.nextGaussian();
        for (int k = 0; k < p.length; k++) p[k] = 2 * rnd.nextGaussian();   // frustrated couplings: the relaxation is not tight
        return new LabelingEnergy(g, u, p, new double[0]);
    }

    /** infer's search (exact elimination with its default tables, the search, restarts) on {@code en} within {@code ticks} readings of a ticking clock; each stage line records the clock. */
    private static MapSearch.Result searchWithin(LabelingEnergy en, int ticks, java.util.List<Long> stageTicks, java.util.List<String> lines) {
        TickingClock clock = new TickingClock();
        MapSearch.Settings settings = new MapSearch.Settings(0.001, Math.sqrt(0.1), 500, 20, true, true, 2000, 1)
                .withElimination(MapSearch.Settings.ELIMINATION_ENTRIES).withRestarts(MapSearch.Settings.UNTIL_DEADLINE);
        try (var mp = MapSearchTest.engine(en, 0.1)) {
            MapDecoder.Result r = new MapDecoder(MapDecoder.Kind.best, en).run(mp, new StopRule(20, 0, 10));
            java.io.Writer w = new java.io.Writer() {
                private final StringBuilder line = new StringBuilder();

                @Override
                public void write(char[] c, int off, int len) {
                    for (int k = off; k < off + len; k++) {
                        if (c[k] != '\n') {
                            line.append(c[k]);
                            continue;
                        }
                        stageTicks.add(clock.now / 1_000_000);
                        lines.add(line.toString());
                        line.setLength(0);
                    }
                }

                @Override
                public void flush() {}

                @Override
                public void close() {}
            };
            Deadline deadline = Deadline.after(clock, ticks / 1e3);
            return new MapSearch(en, (g, eps) -> new org.structlr.inference.loop.LoopMessagePassing(g, eps), settings, deadline,
                    new java.io.PrintWriter(w)).run(mp, r.labels());
        }
    }

    /**
     * The exact attempt takes at most its share of the time: on a 14 x 14 grid (196 variables,
     * induced width 14; tables of 2^15 entries, well within infer's limit) its plan and elimination
     * read the clock about 400 times, more than its quarter of 1,000 readings, so it gives up there and
     * the search runs with the rest and returns a labelling of the model; with 4,000 readings the
     * same attempt finishes inside its share and proves the MAP.
     */
    @Test
    void theExactAttemptGivesUpWithinItsShareAndTheSearchRunsWithTheRest() {
        LabelingEnergy en = grid(14, 5);
        FactorGraph g = en.graph();
        java.util.List<Long> at = new java.util.ArrayList<>();
        java.util.List<String> lines = new java.util.ArrayList<>();
        MapSearch.Result s = searchWithin(en, 1000, at, lines);
        assertTrue(lines.get(0).startsWith("map: first run"), lines.toString());
        assertTrue(lines.get(1).startsWith("map: elimination (not exact)"), lines.toString());
        // the share: a quarter of what was left when the attempt began (one reading after the first stage line), plus the reading that saw it pass
        long began = at.get(0) + 1, share = (long) Math.ceil(MapSearch.EXACT_SHARE * (1000 - began));
        assertTrue(at.get(1) - began <= share + 3, "the exact attempt took " + (at.get(1) - began) + " readings, its share is " + share);
        assertTrue(lines.size() > 2 && lines.stream().noneMatch(l -> l.contains("(exact)")), "the search ran after it: " + lines);
        // a labelling of the model: every label in range, its energy the one reported, and at least the first run's
        int[] y = s.labels();
        assertEquals(g.numVariables(), y.length);
        for (int v = 0; v < y.length; v++) assertTrue(y[v] >= 0 && y[v] < g.numLabels(v), "variable " + v + " label " + y[v]);
        assertEquals(en.energy(y), s.energy(), 0);
        assertTrue(Double.isFinite(s.energy()) && s.bound() >= s.energy() - 1e-9, s.energy() + " against bound " + s.bound());

        // time enough: the same attempt finishes within its share and certifies the MAP
        at.clear();
        lines.clear();
        MapSearch.Result exact = searchWithin(en, 4000, at, lines);
        assertTrue(lines.get(1).startsWith("map: elimination (exact)"), lines.toString());
        assertTrue(exact.certified());
        assertTrue(exact.energy() >= s.energy() - 1e-9);
        int[] map = new Elimination(en).exactMap(new int[g.numVariables()], MapSearch.Settings.ELIMINATION_ENTRIES, Long.MAX_VALUE, Deadline.NONE);
        assertEquals(en.energy(map), exact.energy(), 1e-9);
    }

    /** A share passes after its fraction of the time left, never after the deadline it was taken from; a deadline without a clock is its own share. */
    @Test
    void aShareOfADeadlinePassesAtItsFractionOfTheTimeLeft() {
        long[] now = {0};
        Deadline d = Deadline.after(() -> now[0], 10);   // 10 s on a clock that moves only when told
        now[0] = 2_000_000_000L;                           // 8 s left
        Deadline quarter = d.share(0.25);                  // passes 2 s from now
        now[0] = 4_000_000_000L;
        assertTrue(!quarter.passed() && !d.passed());
        now[0] = 4_000_000_001L;
        assertTrue(quarter.passed() && !d.passed());
        assertTrue(!d.share(1).passed());
        now[0] = 10_000_000_001L;
        assertTrue(d.passed() && d.share(1).passed());
        assertTrue(Deadline.NONE.share(0.25) == Deadline.NONE);
        assertThrows(IllegalArgumentException.class, () -> d.share(0));
        assertThrows(IllegalArgumentException.class, () -> d.share(1.5));
    }
}
