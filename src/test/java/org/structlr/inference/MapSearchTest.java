package org.structlr.inference;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;
import org.junit.jupiter.api.Test;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.factory.Nd4j;
import org.structlr.graph.FactorGraph;
import org.structlr.inference.loop.LoopMessagePassing;

/**
 * The parts of MAP search against enumeration: the dual bound, forest moves and fusion, cycle
 * tightening, and the whole search, on small pairwise models and models with regions.
 */
class MapSearchTest {

    /** A random model with regions as a {@link RegionMessagePassingTest.Problem} and its energy. */
    static RegionMessagePassingTest.Problem regionModel(long seed) {
        return RegionMessagePassingTest.random("loopy " + seed, RegionMessagePassingTest.loopy(), 1.0, 0.2, seed);
    }

    static LabelingEnergy energyOf(RegionMessagePassingTest.Problem p) {
        FactorGraph g = p.graph();
        return new LabelingEnergy(g, BruteForce.flatten(p.unary()), BruteForce.flatten(p.pairwise()), p.regions());
    }

    static LoopMessagePassing engine(LabelingEnergy en, double eps) {
        FactorGraph g = en.graph();
        LoopMessagePassing mp = new LoopMessagePassing(g, eps);
        int L = g.maxLabels();
        mp.setPotentials(Nd4j.create(en.unaryCopy(), new long[] {g.numVariables(), L}, DataType.DOUBLE),
                g.numEdges() == 0 ? Nd4j.create(DataType.DOUBLE, 0, (long) L * L) : Nd4j.create(en.pairwiseCopy(), new long[] {g.numEdges(), (long) L * L}, DataType.DOUBLE),
                g.totalRegionEntries() == 0 ? Nd4j.create(DataType.DOUBLE, 0) : Nd4j.create(en.regionCopy(), new long[] {g.totalRegionEntries()}, DataType.DOUBLE));
        return mp;
    }

    static double exactMap(LabelingEnergy en) {
        FactorGraph g = en.graph();
        int[] y = new int[g.numVariables()];
        double best = Double.NEGATIVE_INFINITY;
        while (true) {
            best = Math.max(best, en.energy(y));
            int i = y.length - 1;
            while (i >= 0 && ++y[i] == g.numLabels(i)) y[i--] = 0;
            if (i < 0) return best;
        }
    }

    @Test
    void theDualBoundIsAboveTheMapAtAnyMessagesAndMeetsItOnTrees() {
        for (long seed = 1; seed <= 6; seed++) {
            LabelingEnergy en = seed % 2 == 0 ? energyOf(regionModel(seed)) : RandomPairwiseModels.hardConstrained(seed, 9, 3, 0.35, 0.15).energy();
            double map = exactMap(en);
            try (LoopMessagePassing mp = engine(en, 0.3)) {
                for (int t = 0; t < 6; t++) {
                    double b = DualBound.of(en, mp);
                    assertTrue(b >= map - 1e-9, "seed " + seed + " sweep " + t + ": bound " + b + " below the MAP " + map);
                    assertTrue(b <= mp.dual() + 1e-9, "the max-dual is at most the smoothed dual");
                    mp.iterate(3);
                }
            }
        }
        // on an acyclic model the LP is tight: at small eps the bound comes within Theorem 1's excess of the MAP
        RegionMessagePassingTest.Problem tree = RegionMessagePassingTest.random("acyclic", RegionMessagePassingTest.acyclic(), 1.0, 0.2, 4);
        LabelingEnergy en = energyOf(tree);
        try (LoopMessagePassing mp = engine(en, 0.001)) {
            RegionMessagePassingTest.converge(mp, 1e-10, 50000);
            double b = DualBound.of(en, mp), map = exactMap(en);
            assertEquals(map, b, 1e-3, "bound on an acyclic model");
        }
    }

    @Test
    void forestMovesNeverLowerTheEnergyAndSolveATreeInOneMove() {
        // a tree: one forest move covers every variable, so it finds the exact MAP from anywhere
        Random rnd = new Random(3);
        for (long seed = 1; seed <= 5; seed++) {
            FactorGraph tree = TestProblems.randomTree(10, TestProblems.randomLabels(10, 2, 3, rnd), rnd);
            TestEngines.Problem p = TestProblems.random("tree", tree, org.structlr.graph.Coloring.greedy(tree), null, 1.0, rnd);
            LabelingEnergy en = new LabelingEnergy(tree, BruteForce.flatten(p.unary()), BruteForce.flatten(p.pairwise()));
            int[] y = new int[10];
            LocalSearch ls = new LocalSearch(en);
            ls.forestMove(y, rnd);
            assertEquals(exactMap(en), en.energy(y), 1e-12, "seed " + seed);
        }
        // loopy models with regions and hard zeros: never lower, also from infeasible starts
        for (long seed = 1; seed <= 6; seed++) {
            LabelingEnergy en = energyOf(regionModel(seed));
            LocalSearch ls = new LocalSearch(en);
            for (int t = 0; t < 10; t++) {
                int[] y = new int[en.graph().numVariables()];
                for (int i = 0; i < y.length; i++) y[i] = rnd.nextInt(en.graph().numLabels(i));
                int broken = en.brokenCount(y);
                double before = en.energy(y);
                double after = ls.forestMoves(y, 50, 50, rnd, Deadline.NONE);
                assertEquals(en.energy(y), after, 0);
                assertTrue(en.brokenCount(y) < broken || (en.brokenCount(y) == broken && after >= before), before + " -> " + after);
            }
        }
    }

    @Test
    void regionMovesNeverLowerTheEnergyAndSolveOneRegionExactly() {
        Random rnd = new Random(9);
        // one region over every variable, with unaries: one move is the exact MAP
        FactorGraph g = FactorGraph.builder(new int[] {2, 3, 2, 2}).regions(new int[][] {{3, 1, 0, 2}}, null).build();
        int L = g.maxLabels();
        for (int t = 0; t < 5; t++) {
            double[] u = new double[4 * L], r = new double[g.totalRegionEntries()];
            for (int k = 0; k < u.length; k++) u[k] = rnd.nextGaussian();
            for (int k = 0; k < r.length; k++) r[k] = rnd.nextDouble() < 0.3 ? Double.NEGATIVE_INFINITY : rnd.nextGaussian();
            r[5] = 0;
            LabelingEnergy en = new LabelingEnergy(g, u, new double[0], r);
            int[] y = new int[4];
            new LocalSearch(en).regionMoves(y, 1, rnd, Deadline.NONE);
            assertEquals(exactMap(en), en.energy(y), 1e-12);
        }
        for (long seed = 1; seed <= 6; seed++) {
            LabelingEnergy en = energyOf(regionModel(seed));
            LocalSearch ls = new LocalSearch(en);
            for (int t = 0; t < 10; t++) {
                int[] y = new int[en.graph().numVariables()];
                for (int i = 0; i < y.length; i++) y[i] = rnd.nextInt(en.graph().numLabels(i));
                int broken = en.brokenCount(y);
                double before = en.energy(y);
                double after = ls.regionMoves(y, 20, rnd, Deadline.NONE);
                assertEquals(en.energy(y), after, 0);
                assertTrue(en.brokenCount(y) < broken || (en.brokenCount(y) == broken && after >= before), before + " -> " + after);
            }
        }
    }

    @Test
    void fusionTakesTheBetterLabellingOfEachComponent() {
        Random rnd = new Random(5);
        for (long seed = 1; seed <= 6; seed++) {
            LabelingEnergy en = seed % 2 == 0 ? energyOf(regionModel(seed)) : RandomPairwiseModels.hardConstrained(seed, 12, 3, 0.2, 0.1).energy();
            LocalSearch ls = new LocalSearch(en);
            int n = en.graph().numVariables();
            for (int t = 0; t < 20; t++) {
                int[] a = new int[n], b = new int[n];
                for (int i = 0; i < n; i++) {
                    a[i] = rnd.nextInt(en.graph().numLabels(i));
                    b[i] = rnd.nextDouble() < 0.3 ? rnd.nextInt(en.graph().numLabels(i)) : a[i];
                }
                int[] fused = a.clone();
                double ef = ls.fuse(fused, b);
                // every variable keeps a's or takes b's label, and the energy is at least a's and b's (same broken count order)
                for (int i = 0; i < n; i++) assertTrue(fused[i] == a[i] || fused[i] == b[i]);
                for (int[] x : new int[][] {a, b}) {
                    int bx = en.brokenCount(x), bf = en.brokenCount(fused);
                    assertTrue(bf < bx || (bf == bx && ef >= en.energy(x) - 1e-9), "fusion " + ef + " below " + en.energy(x));
                }
            }
        }
    }

    @Test
    void tighteningKeepsEveryEnergyLowersTheBoundAndClosesAFrustratedTriangle() {
        // a frustrated triangle of binary variables: each edge wants its ends to differ, which no labelling can do
        FactorGraph g = FactorGraph.of(3, 2, new int[][] {{0, 1}, {1, 2}, {0, 2}});
        double[] u = new double[6], p = new double[12];
        for (int e = 0; e < 3; e++) {
            p[e * 4 + 1] = 1;
            p[e * 4 + 2] = 1;
        }
        u[1] = 0.1;
        LabelingEnergy en = new LabelingEnergy(g, u, p);
        double map = exactMap(en);
        try (LoopMessagePassing mp = engine(en, 0.01)) {
            RegionMessagePassingTest.converge(mp, 1e-9, 20000);
            double before = DualBound.of(en, mp);
            assertTrue(before > map + 0.4, "the pairwise LP is loose on a frustrated triangle: " + before + " vs " + map);
            CycleTightening.Tightened t = CycleTightening.tighten(en, mp);
            assertNotNull(t);
            assertEquals(1, t.added());
            assertEquals(1, t.graph().numRegions());
            assertEquals(0, t.graph().numEdges());
            try (LoopMessagePassing tm = new LoopMessagePassing(t.graph(), 0.001)) {
                tm.setPotentials(t.unary(), t.pairwise(), t.regions());
                assertTrue(DualBound.of(t.energy(), tm) <= before + 1e-9, "tightening never raises the bound");
                RegionMessagePassingTest.converge(tm, 1e-10, 20000);
                assertEquals(map, DualBound.of(t.energy(), tm), 1e-2, "with the triangle as one region the relaxation is exact");
            }
        }
        // on loopy models: the tightened energy is the original for every labelling, the bound drops
        Random rnd = new Random(8);
        for (long seed = 1; seed <= 4; seed++) {
            LabelingEnergy e2 = RandomPairwiseModels.hardConstrained(seed, 9, 3, 0.5, 0.1).energy();
            try (LoopMessagePassing mp = engine(e2, 0.05)) {
                mp.iterate(200);
                CycleTightening.Tightened t = CycleTightening.tighten(e2, mp);
                if (t == null) continue;
                for (int k = 0; k < 50; k++) {
                    int[] y = new int[9];
                    for (int i = 0; i < 9; i++) y[i] = rnd.nextInt(3);
                    double want = e2.energy(y), got = t.energy().energy(y);
                    if (want == Double.NEGATIVE_INFINITY) assertEquals(want, got);
                    else assertEquals(want, got, 1e-9 * Math.max(1, Math.abs(want)));
                }
                try (LoopMessagePassing tm = new LoopMessagePassing(t.graph(), 0.05)) {
                    tm.setPotentials(t.unary(), t.pairwise(), t.regions());
                    assertTrue(DualBound.of(t.energy(), tm) <= DualBound.of(e2, mp) + 1e-9);
                    assertTrue(DualBound.of(t.energy(), tm) >= exactMap(e2) - 1e-9);
                }
            }
        }
    }

    @Test
    void searchFindsTheExactMapMoreOftenThanRoundingAndCertifiesTrees() {
        int exactRound = 0, exactSearch = 0, models = 30;
        for (long seed = 100; seed < 100 + models; seed++) {
            RandomPairwiseModels.Model m = RandomPairwiseModels.hardConstrained(seed, 12, 3, 0.3, 0.15);
            LabelingEnergy en = m.energy();
            double map = exactMap(en);
            try (LoopMessagePassing mp = engine(en, 0.1)) {
                MapDecoder.Result r = new MapDecoder(MapDecoder.Kind.round, en).run(mp, new StopRule(200, 0, 10));
                if (r.energy() >= map - 1e-9) exactRound++;
            }
            try (LoopMessagePassing mp = engine(en, 0.1)) {
                MapDecoder.Result r = new MapDecoder(MapDecoder.Kind.best, en).run(mp, new StopRule(200, 0, 10));
                MapSearch.Result s = new MapSearch(en, (g, eps) -> new LoopMessagePassing(g, eps),
                        new MapSearch.Settings(0.001, 0.3, 300, 5, true, true, 50, 1), Deadline.NONE, null).run(mp, r.labels());
                assertTrue(s.bound() >= map - 1e-9, "bound below the MAP");
                assertEquals(s.energy(), en.energy(s.labels()), 0);
                if (s.energy() >= map - 1e-9) exactSearch++;
                if (s.certified()) assertEquals(map, s.energy(), 1e-9, "a certificate is only given for the MAP");
            }
        }
        assertTrue(exactSearch >= exactRound, "search " + exactSearch + " vs rounding " + exactRound);
        assertEquals(models, exactSearch, "search finds the exact MAP of every small model (rounding: " + exactRound + ")");
        // an acyclic model with regions: proven optimal
        LabelingEnergy en = energyOf(RegionMessagePassingTest.random("acyclic", RegionMessagePassingTest.acyclic(), 1.0, 0.2, 5));
        try (LoopMessagePassing mp = engine(en, 0.1)) {
            MapDecoder.Result r = new MapDecoder(MapDecoder.Kind.best, en).run(mp, new StopRule(200, 0, 10));
            MapSearch.Result s = new MapSearch(en, (g, eps) -> new LoopMessagePassing(g, eps),
                    new MapSearch.Settings(1e-4, 0.1, 3000, 0, true, true, 0, 1), Deadline.NONE, null).run(mp, r.labels());
            assertEquals(exactMap(en), s.energy(), 1e-9);
            assertTrue(s.bound() - s.energy() < 1e-2, "bound " + s.bound() + " energy " + s.energy());
        }
    }

    /**
     * Restarts of the iterated local search (a bounded number: no timing here) keep everything the
     * search found before them and reach the exact MAP of small hard models where one short search
     * (no annealing, no tightening, one polish round) stops below it on some.
     */
    @Test
    void restartsReachTheMapWhereOneShortSearchStopsBelowIt() {
        MapSearch.Settings shortSearch = new MapSearch.Settings(0.1, 0.5, 5, 0, false, true, 1, 1);
        int exactShort = 0, exactRestarted = 0, models = 30;
        for (long seed = 300; seed < 300 + models; seed++) {
            LabelingEnergy en = RandomPairwiseModels.hardConstrained(seed, 12, 3, 0.3, 0.15).energy();
            double map = exactMap(en);
            MapSearch.Result once = search(en, shortSearch), restarted = search(en, shortSearch.withRestarts(200));
            assertTrue(restarted.energy() >= once.energy() - 1e-9, "restarts lost energy: " + restarted.energy() + " < " + once.energy());
            assertEquals(restarted.energy(), en.energy(restarted.labels()), 0);
            if (once.energy() >= map - 1e-9) exactShort++;
            if (restarted.energy() >= map - 1e-9) exactRestarted++;
        }
        assertTrue(exactShort < models, "the short search already finds every MAP: the test shows nothing");
        assertEquals(models, exactRestarted, "restarts find the exact MAP of every small model (the short search: " + exactShort + ")");
        assertThrows(IllegalArgumentException.class, () -> new MapSearch(RandomPairwiseModels.hardConstrained(1, 5, 2, 0.3, 0.1).energy(),
                (g, eps) -> new LoopMessagePassing(g, eps), shortSearch.withRestarts(MapSearch.Settings.UNTIL_DEADLINE), Deadline.NONE, null));
    }

    private static MapSearch.Result search(LabelingEnergy en, MapSearch.Settings s) {
        try (LoopMessagePassing mp = engine(en, 0.1)) {
            MapDecoder.Result r = new MapDecoder(MapDecoder.Kind.best, en).run(mp, new StopRule(50, 0, 10));
            return new MapSearch(en, (g, eps) -> new LoopMessagePassing(g, eps), s, Deadline.NONE, null).run(mp, r.labels());
        }
    }
}
