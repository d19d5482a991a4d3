package org.structlr.inference;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.function.BiFunction;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.structlr.graph.Coloring;
import org.structlr.graph.FactorGraph;
import org.structlr.inference.loop.LoopMessagePassing;
import org.structlr.inference.nd4j.GraphMessagePassing;

/**
 * Regions (factors over 3 and 4 variables, beside unary and pairwise ones) in every engine that
 * takes them: the dual, beliefs, primal and incoming sums against their formulas evaluated by brute
 * force ({@link RegionBruteForce}), the dual never rising, convergence to zero gap with locally
 * consistent beliefs, the exact MAP and Theorem 1 on acyclic models, hard zeros, and a pairwise
 * model written as two-variable regions giving the edges' numbers.
 */
class RegionMessagePassingTest {
    static final double TIGHT = 1e-9;

    /** A model with regions: potentials padded to {@code graph.maxLabels()}, region tables flat. */
    record Problem(String name, FactorGraph graph, double[][] unary, double[][] pairwise, double[] regions) {
        @Override public String toString() { return name; }
    }

    record Engine(String name, BiFunction<FactorGraph, Double, MessagePassing> factory) {
        MessagePassing open(Problem p, double eps) {
            MessagePassing mp = factory.apply(p.graph(), eps);
            mp.setPotentials(unary(p), pairwise(p), regions(p));
            return mp;
        }

        @Override public String toString() { return name; }
    }

    static final Engine LOOP = new Engine("loop", (g, eps) -> new LoopMessagePassing(g, Coloring.of(g), eps));

    static final List<Engine> ENGINES = List.of(
            new Engine("loop", (g, eps) -> new LoopMessagePassing(g, Coloring.of(g), eps)),
            new Engine("nd4j-graph", (g, eps) -> new GraphMessagePassing(g, Coloring.of(g), eps, DataType.DOUBLE)));

    // ------------------------------------------------------------------ problems

    /** Random potentials; {@code zeros} of the region entries (not on labelling 0) are hard zeros. */
    static Problem random(String name, FactorGraph g, double scale, double zeros, long seed) {
        Random rnd = new Random(seed);
        int L = g.maxLabels();
        double[][] u = new double[g.numVariables()][L];
        for (int i = 0; i < u.length; i++) for (int y = 0; y < L; y++) u[i][y] = y < g.numLabels(i) ? scale * rnd.nextGaussian() : TestProblems.PADDING_GARBAGE;
        double[][] p = new double[g.numEdges()][L * L];
        for (double[] row : p) for (int k = 0; k < row.length; k++) row[k] = scale * rnd.nextGaussian();
        double[] r = new double[g.totalRegionEntries()];
        for (int k = 0; k < r.length; k++) r[k] = scale * rnd.nextGaussian();
        for (int q = 0; q < g.numRegions(); q++) {
            for (int t = 1; t < g.regionEntries(q); t++) if (rnd.nextDouble() < zeros) r[g.regionTableOffset(q) + t] = Double.NEGATIVE_INFINITY;
        }
        return new Problem(name, g, u, p, r);
    }

    /** Loopy: 7 variables of 2..4 labels, two edges, regions of 3 and 4 variables that overlap in cycles. */
    static FactorGraph loopy() {
        return FactorGraph.builder(new int[] {2, 3, 2, 4, 2, 3, 2})
                .edges(new int[] {0, 5}, new int[] {6, 6}, null)
                .regions(new int[][] {{0, 1, 2}, {2, 3, 4}, {4, 1, 5, 0}, {3, 6, 5}}, null)
                .build();
    }

    /** Acyclic (a junction-tree-like chain): regions (0 1 2), (2 3 4 5), (5 6 7) and an edge 7-8. */
    static FactorGraph acyclic() {
        return FactorGraph.builder(new int[] {2, 3, 2, 2, 3, 2, 2, 3, 2})
                .edges(new int[] {7}, new int[] {8}, null)
                .regions(new int[][] {{1, 0, 2}, {2, 3, 4, 5}, {7, 5, 6}}, null)
                .build();
    }

    static Stream<Arguments> loopyProblems() {
        List<Arguments> out = new ArrayList<>();
        for (Engine e : ENGINES) {
            out.add(Arguments.of(e, random("loopy", loopy(), 1.0, 0, 1)));
            out.add(Arguments.of(e, random("loopy with zeros", loopy(), 1.0, 0.3, 2)));
            out.add(Arguments.of(e, random("acyclic with zeros", acyclic(), 1.0, 0.2, 3)));
        }
        return out.stream();
    }

    /** Convergence at small eps takes thousands of sweeps: the loop engine; the others are held to it sweep by sweep. */
    static Stream<Arguments> acyclicProblems() {
        List<Arguments> out = new ArrayList<>();
        for (long seed = 4; seed < 7; seed++) out.add(Arguments.of(LOOP, random("acyclic seed " + seed, acyclic(), 1.0, seed == 6 ? 0.3 : 0, seed)));
        return out.stream();
    }

    static Stream<Arguments> convergenceProblems() {
        return loopyProblems().filter(a -> a.get()[0] == ENGINES.get(0));
    }

    static Stream<Arguments> engines() {
        return ENGINES.stream().map(Arguments::of);
    }

    // ------------------------------------------------------------------ formulas

    @ParameterizedTest(name = "{0} on {1}")
    @MethodSource("loopyProblems")
    void dualPrimalBeliefsMatchTheFormulasAtRandomMessages(Engine engine, Problem p) {
        double eps = 0.3;
        FactorGraph g = p.graph();
        try (MessagePassing mp = engine.open(p, eps)) {
            Random rnd = new Random(5);
            double[][][] lam = MessagePassingTest.randomMessages(g, 1.5, rnd);
            double[][] lamR = randomRegionMessages(g, 1.5, rnd);
            mp.setMessages(TestEngines.messageArray(lam, g.maxLabels()));
            mp.setRegionMessages(regionMessageArray(lamR));
            assertMatrixClose(lamR, regionMessages(mp), TIGHT, "region messages read back");
            assertMatchesFormulas(mp, p, lam, lamR, eps, "at random messages");
            mp.iterate(3);
            assertMatchesFormulas(mp, p, TestEngines.messages(mp), regionMessages(mp), eps, "after 3 sweeps");
            // new potentials keep the messages
            Problem q = random(p.name(), g, 0.7, 0.1, 9);
            double[][][] before = TestEngines.messages(mp);
            double[][] beforeR = regionMessages(mp);
            mp.setPotentials(unary(q), pairwise(q), regions(q));
            assertMatchesFormulas(mp, q, before, beforeR, eps, "after new potentials");
            mp.resetMessages();
            double[][] zero = new double[g.numRegionSlots()][g.maxLabels()];
            assertMatchesFormulas(mp, q, new double[g.numEdges()][2][g.maxLabels()], zero, eps, "after reset");
        }
    }

    static void assertMatchesFormulas(MessagePassing mp, Problem p, double[][][] lam, double[][] lamR, double eps, String when) {
        FactorGraph g = p.graph();
        int L = g.maxLabels();
        RegionBruteForce bf = new RegionBruteForce(p, lam, lamR, eps);
        MessagePassingTest.assertClose(bf.dual(), mp.dual(), TIGHT, "dual " + when);
        MessagePassingTest.assertClose(bf.primal(), mp.primal(), TIGHT, "primal " + when);
        assertMatrixClose(bf.unaryBeliefs(), TestEngines.matrix(mp.unaryBeliefs(), g.numVariables(), L), TIGHT, "unary beliefs " + when);
        assertMatrixClose(bf.pairBeliefs(), TestEngines.matrix(mp.pairBeliefs(), g.numEdges(), L * L), TIGHT, "pair beliefs " + when);
        double[] br = TestEngines.flat(mp.regionBeliefs()), want = bf.regionBeliefs();
        assertEquals(want.length, br.length);
        for (int k = 0; k < want.length; k++) MessagePassingTest.assertClose(want[k], br[k], TIGHT, "region belief " + k + " " + when);
        double[][] sums = TestEngines.matrix(mp.incomingMessageSums(), g.numVariables(), L), ws = bf.incomingSums();
        for (int i = 0; i < g.numVariables(); i++) {
            for (int y = 0; y < g.numLabels(i); y++) MessagePassingTest.assertClose(ws[i][y], sums[i][y], TIGHT, "incoming sum [" + i + "," + y + "] " + when);
        }
    }

    // ------------------------------------------------------------------ descent and convergence

    @ParameterizedTest(name = "{0} on {1}")
    @MethodSource("loopyProblems")
    void dualNeverIncreases(Engine engine, Problem p) {
        for (double eps : new double[] {1.0, 0.1}) {
            try (MessagePassing mp = engine.open(p, eps)) {
                mp.setRegionMessages(regionMessageArray(randomRegionMessages(p.graph(), 2.0, new Random(8))));
                double prev = mp.dual();
                for (int t = 0; t < 15; t++) {
                    mp.iterate(1);
                    double d = mp.dual();
                    assertFalse(Double.isNaN(d), "NaN dual");
                    assertTrue(d <= prev + 1e-12 * Math.max(1, Math.abs(prev)), "eps " + eps + " sweep " + t + ": dual rose from " + prev + " to " + d);
                    prev = d;
                }
            }
        }
    }

    @ParameterizedTest(name = "{0} on {1}")
    @MethodSource("convergenceProblems")
    void convergesToZeroGapWithLocallyConsistentBeliefs(Engine engine, Problem p) {
        double eps = 0.2;
        FactorGraph g = p.graph();
        try (MessagePassing mp = engine.open(p, eps)) {
            assertTrue(converge(mp, 1e-9, 20000), "not converged, gap " + mp.gap());
            MessagePassingTest.assertLocallyConsistent(mp, 1e-6);
            double[][] bu = TestEngines.matrix(mp.unaryBeliefs(), g.numVariables(), g.maxLabels());
            double[] br = TestEngines.flat(mp.regionBeliefs());
            for (int r = 0; r < g.numRegions(); r++) {
                for (int q = 0; q < g.regionSize(r); q++) {
                    int v = g.regionVariable(r, q);
                    double[] marg = new double[g.numLabels(v)];
                    int[] y = new int[g.numVariables()];
                    for (int[] lab : RegionBruteForce.scopeLabellings(g, r)) {
                        for (int k = 0; k < lab.length; k++) y[g.regionVariable(r, k)] = lab[k];
                        marg[lab[q]] += br[g.regionTableOffset(r) + RegionBruteForce.entry(g, r, y)];
                    }
                    for (int l = 0; l < marg.length; l++) assertEquals(bu[v][l], marg[l], 1e-6, "region " + r + " marginal to variable " + v + " label " + l);
                }
            }
            // and nothing impossible has belief: hard zeros keep belief 0
            for (int k = 0; k < br.length; k++) if (p.regions()[k] == Double.NEGATIVE_INFINITY) assertEquals(0.0, br[k], "region entry " + k);
        }
    }

    // ------------------------------------------------------------------ acyclic models: exact MAP and Theorem 1

    @ParameterizedTest(name = "{0} on {1}")
    @MethodSource("acyclicProblems")
    void decodeIsTheExactMapAndTheorem1Holds(Engine engine, Problem p) {
        FactorGraph g = p.graph();
        ExactInference.Result exact = ExactInference.solve(g, p.unary(), p.pairwise(), p.regions(), 1.0);
        for (double eps : new double[] {0.05, 0.005}) {
            try (MessagePassing mp = engine.open(p, eps)) {
                assertTrue(converge(mp, 1e-9, 50000), "eps " + eps + " not converged, gap " + mp.gap());
                double excess = mp.dual() - exact.mapScore();
                double bound = RegionBruteForce.theorem1Bound(g, eps);
                assertTrue(excess >= -1e-9 && excess <= bound + 1e-9, "eps " + eps + ": dual - MAP = " + excess + ", bound " + bound);
                if (eps == 0.005) {
                    int[] y = mp.decode();
                    assertEquals(exact.mapScore(), ExactInference.score(g, p.unary(), p.pairwise(), p.regions(), y), 1e-9,
                            "decoded " + Arrays.toString(y) + " against the exact MAP " + Arrays.toString(exact.map()));
                }
            }
        }
    }

    // ------------------------------------------------------------------ pairs as regions

    @ParameterizedTest(name = "{0}")
    @MethodSource("engines")
    void edgesWrittenAsTwoVariableRegionsGiveTheSameNumbers(Engine engine) {
        // a loopy pairwise model, once with edges and once with each edge as a region (i, j)
        TestEngines.Problem pw = TestProblems.standard().stream().filter(x -> x.name().startsWith("mixed labels")).findFirst().orElseThrow();
        FactorGraph ge = pw.graph();
        int L = ge.maxLabels();
        int[][] scopes = new int[ge.numEdges()][];
        for (int e = 0; e < scopes.length; e++) scopes[e] = new int[] {ge.edgeFrom(e), ge.edgeTo(e)};
        FactorGraph gr = FactorGraph.builder(ge.numLabels()).regions(scopes, null).build();
        double[] tables = new double[gr.totalRegionEntries()];
        for (int e = 0; e < scopes.length; e++) {
            int li = ge.numLabels(scopes[e][0]), lj = ge.numLabels(scopes[e][1]);
            for (int a = 0; a < li; a++) for (int b = 0; b < lj; b++) tables[gr.regionTableOffset(e) + a * lj + b] = pw.pairwise()[e][a * L + b];
        }
        Problem asEdges = new Problem("edges", ge, pw.unary(), pw.pairwise(), new double[0]);
        Problem asRegions = new Problem("regions", gr, pw.unary(), new double[0][], tables);
        // the engines colour both graphs alike (a two-variable region makes the same neighbours as its
        // edge), so both sweep in the same order
        double eps = 0.2;
        try (MessagePassing a = engine.factory().apply(ge, eps); MessagePassing b = engine.factory().apply(gr, eps)) {
            a.setPotentials(unary(asEdges), pairwise(asEdges), regions(asEdges));
            b.setPotentials(unary(asRegions), pairwise(asRegions), regions(asRegions));
            for (int t = 0; t < 20; t++) {
                MessagePassingTest.assertClose(a.dual(), b.dual(), 1e-10, "dual after " + t + " sweeps");
                assertMatrixClose(TestEngines.matrix(a.unaryBeliefs(), ge.numVariables(), L), TestEngines.matrix(b.unaryBeliefs(), ge.numVariables(), L), 1e-10, "beliefs after " + t);
                a.iterate(1);
                b.iterate(1);
            }
            assertArrayEquals(a.decode(), b.decode());
        }
    }

    @ParameterizedTest(name = "{0} on {1}")
    @MethodSource("loopyProblems")
    void everyEngineSweepsAsTheLoopEngineDoes(Engine engine, Problem p) {
        double eps = 0.1;
        try (MessagePassing ref = LOOP.open(p, eps); MessagePassing mp = engine.open(p, eps)) {
            for (int t = 0; t < 30; t++) {
                MessagePassingTest.assertClose(ref.dual(), mp.dual(), 1e-9, "dual after " + t + " sweeps");
                assertMatrixClose(regionMessages(ref), regionMessages(mp), 1e-8, "region messages after " + t + " sweeps");
                double[] a = TestEngines.flat(ref.regionBeliefs()), b = TestEngines.flat(mp.regionBeliefs());
                for (int k = 0; k < a.length; k++) MessagePassingTest.assertClose(a[k], b[k], 1e-8, "region belief " + k + " after " + t);
                assertArrayEquals(ref.decode(), mp.decode(), "decoded after " + t);
                ref.iterate(1);
                mp.iterate(1);
            }
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("engines")
    void stateRestoresRegionMessages(Engine engine) {
        Problem p = random("loopy", loopy(), 1.0, 0.2, 12);
        try (MessagePassing a = engine.open(p, 0.1); MessagePassing b = engine.open(p, 0.1)) {
            a.iterate(7);
            b.setState(a.state());
            assertEquals(a.dual(), b.dual(), 1e-5 * Math.abs(a.dual()));
            assertMatrixClose(regionMessages(a), regionMessages(b), 1e-5, "region messages");
            a.iterate(1);
            b.iterate(1);
            assertEquals(a.dual(), b.dual(), 1e-5 * Math.abs(a.dual()));
        }
    }

    // ------------------------------------------------------------------ helpers

    static boolean converge(MessagePassing mp, double tol, int max) {
        for (int t = 0; t < max; t += 10) {
            mp.iterate(10);
            if (Math.abs(mp.gap()) < tol) return true;
        }
        return false;
    }

    static double[][] randomRegionMessages(FactorGraph g, double scale, Random rnd) {
        double[][] m = new double[g.numRegionSlots()][g.maxLabels()];
        for (int r = 0; r < g.numRegions(); r++) {
            for (int q = 0; q < g.regionSize(r); q++) {
                int v = g.regionVariable(r, q);
                for (int y = 0; y < g.maxLabels(); y++) m[g.regionSlot(r, q)][y] = y < g.numLabels(v) ? scale * rnd.nextGaussian() : 0;
            }
        }
        return m;
    }

    static INDArray unary(Problem p) {
        return Nd4j.createFromArray(p.unary()).castTo(DataType.DOUBLE);
    }

    static INDArray pairwise(Problem p) {
        int l = p.graph().maxLabels();
        if (p.pairwise().length == 0) return Nd4j.create(DataType.DOUBLE, 0, (long) l * l);
        return Nd4j.createFromArray(p.pairwise()).castTo(DataType.DOUBLE);
    }

    static INDArray regions(Problem p) {
        if (p.regions().length == 0) return Nd4j.create(DataType.DOUBLE, 0);
        return Nd4j.createFromArray(p.regions());
    }

    static INDArray regionMessageArray(double[][] m) {
        return Nd4j.createFromArray(m).castTo(DataType.DOUBLE);
    }

    /** Region messages with padded labels as 0 (engines hold minus infinity there). */
    static double[][] regionMessages(MessagePassing mp) {
        FactorGraph g = mp.graph();
        double[][] m = TestEngines.matrix(mp.regionMessages(), g.numRegionSlots(), g.maxLabels());
        for (int r = 0; r < g.numRegions(); r++) {
            for (int q = 0; q < g.regionSize(r); q++) {
                for (int y = g.numLabels(g.regionVariable(r, q)); y < g.maxLabels(); y++) m[g.regionSlot(r, q)][y] = 0;
            }
        }
        return m;
    }

    static void assertMatrixClose(double[][] want, double[][] got, double tol, String what) {
        assertEquals(want.length, got.length, what);
        for (int i = 0; i < want.length; i++) {
            for (int k = 0; k < want[i].length; k++) MessagePassingTest.assertClose(want[i][k], got[i][k], tol, what + " [" + i + "," + k + "]");
        }
    }
}
