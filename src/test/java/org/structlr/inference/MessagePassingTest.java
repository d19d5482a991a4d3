package org.structlr.inference;

import org.structlr.inference.loop.LoopMessagePassing;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.structlr.graph.Coloring;
import org.structlr.graph.FactorGraph;
import org.structlr.inference.TestEngines.Engine;
import org.structlr.inference.TestEngines.Problem;

/** Every engine of {@link TestEngines#ALL} against the formulas, exact inference and each other, in double precision. */
public class MessagePassingTest {
    public static final double TIGHT = 1e-9;

    public static Stream<Arguments> standard() {
        return TestEngines.pairs(TestProblems.standard());
    }

    public static Stream<Arguments> engines() {
        return TestEngines.ALL.stream().map(Arguments::of);
    }

    public static Stream<Arguments> trees() {
        return TestEngines.pairs(List.of(
                TestProblems.planted(TestProblems.chainProblem(8, 3, 1.0, 21), 1.0, 23),
                TestProblems.planted(TestProblems.treeProblem(9, TestProblems.randomLabels(9, 2, 4, new Random(22)), 1.0, 22), 1.0, 24)));
    }

    // ------------------------------------------------------------------ formulas at arbitrary messages

    @ParameterizedTest(name = "{0} on {1}")
    @MethodSource("standard")
    void dualPrimalBeliefsMatchTheFormulasAtRandomMessages(Engine engine, Problem p) {
        double eps = 0.3;
        try (MessagePassing mp = engine.open(p, eps)) {
            double[][][] lam = randomMessages(p.graph(), 1.5, new Random(31));
            mp.setMessages(TestEngines.messageArray(lam, p.graph().maxLabels()));
            assertMessagesEqual(lam, TestEngines.messages(mp), p.graph(), TIGHT, "messages read back");
            assertMatchesFormulas(mp, p, lam, eps, "at random messages");

            // new potentials keep the messages (warm start)
            Problem q = TestProblems.random(p.name(), p.graph(), p.coloring(), p.gridShape(), 0.7, new Random(32));
            mp.setPotentials(TestEngines.unaryArray(q), TestEngines.pairwiseArray(q));
            assertMessagesEqual(lam, TestEngines.messages(mp), p.graph(), TIGHT, "messages after setPotentials");
            assertMatchesFormulas(mp, q, lam, eps, "after new potentials");

            // and at the engine's own messages after some sweeps
            mp.iterate(3);
            assertMatchesFormulas(mp, q, TestEngines.messages(mp), eps, "after 3 sweeps");

            mp.resetMessages();
            double[][][] zero = new double[p.graph().numEdges()][2][p.graph().maxLabels()];
            assertMessagesEqual(zero, TestEngines.messages(mp), p.graph(), 0, "messages after reset");
            assertMatchesFormulas(mp, q, zero, eps, "after reset");
        }
    }

    public static void assertMatchesFormulas(MessagePassing mp, Problem p, double[][][] lam, double eps, String when) {
        FactorGraph g = p.graph();
        int L = g.maxLabels();
        BruteForce bf = new BruteForce(g, p.unary(), p.pairwise(), lam, eps);
        assertClose(bf.dual(), mp.dual(), TIGHT, "dual " + when);
        assertClose(bf.primal(), mp.primal(), TIGHT, "primal " + when);
        assertMatrixClose(bf.unaryBeliefs(), TestEngines.matrix(mp.unaryBeliefs(), g.numVariables(), L), TIGHT, "unary beliefs " + when);
        assertMatrixClose(bf.pairBeliefs(), TestEngines.matrix(mp.pairBeliefs(), g.numEdges(), L * L), TIGHT, "pair beliefs " + when);
        double[][] sums = TestEngines.matrix(mp.incomingMessageSums(), g.numVariables(), L);
        double[][] want = bf.incomingSums();
        for (int i = 0; i < g.numVariables(); i++) {
            for (int y = 0; y < g.numLabels(i); y++) assertClose(want[i][y], sums[i][y], TIGHT, "incoming sum [" + i + "," + y + "] " + when);
        }
    }

    // ------------------------------------------------------------------ monotonicity and convergence

    @ParameterizedTest(name = "{0} on {1}")
    @MethodSource("standard")
    void dualNeverIncreases(Engine engine, Problem p) {
        for (double eps : new double[] {1.0, 0.1}) {
            try (MessagePassing mp = engine.open(p, eps)) {
                for (int start = eps == 1.0 ? 1 : 0; start < 2; start++) {
                    if (start == 1) mp.setMessages(TestEngines.messageArray(randomMessages(p.graph(), 2.0, new Random(41)), p.graph().maxLabels()));
                    double prev = mp.dual();
                    for (int t = 0; t < 12; t++) {
                        mp.iterate(1);
                        double d = mp.dual();
                        assertTrue(d <= prev + 1e-12 * Math.max(1, Math.abs(prev)),
                                "eps " + eps + " start " + start + " sweep " + t + ": dual rose from " + prev + " to " + d);
                        prev = d;
                    }
                }
            }
        }
    }

    @ParameterizedTest(name = "{0} on {1}")
    @MethodSource("standard")
    void convergesToZeroGapAndConsistentBeliefs(Engine engine, Problem p) {
        double eps = 0.2;
        try (MessagePassing mp = engine.open(p, eps)) {
            assertTrue(converge(mp, 1e-9, 20000), "not converged, gap " + mp.gap());
            assertTrue(Math.abs(mp.gap()) < 1e-6, "gap " + mp.gap());
            assertLocallyConsistent(mp, 1e-6);
            // the converged dual is the formula's value at the converged messages
            assertClose(new BruteForce(p.graph(), p.unary(), p.pairwise(), TestEngines.messages(mp), eps).dual(), mp.dual(), TIGHT, "converged dual");
            // a variable without edges has b_i = softmax(theta_i / eps)
            FactorGraph g = p.graph();
            int[] deg = g.degrees();
            double[][] b = TestEngines.matrix(mp.unaryBeliefs(), g.numVariables(), g.maxLabels());
            for (int i = 0; i < g.numVariables(); i++) {
                if (deg[i] > 0) continue;
                double[] want = new BruteForce(g, p.unary(), p.pairwise(), null, eps).softmax(java.util.Arrays.copyOf(p.unary()[i], g.numLabels(i)));
                for (int y = 0; y < want.length; y++) assertClose(want[y], b[i][y], TIGHT, "isolated variable " + i + " label " + y);
            }
        }
    }

    public static void assertLocallyConsistent(MessagePassing mp, double tol) {
        FactorGraph g = mp.graph();
        int L = g.maxLabels();
        double[][] bu = TestEngines.matrix(mp.unaryBeliefs(), g.numVariables(), L);
        double[][] bp = TestEngines.matrix(mp.pairBeliefs(), g.numEdges(), L * L);
        for (int a = 0; a < g.numEdges(); a++) {
            int i = g.edgeFrom(a), j = g.edgeTo(a);
            for (int yi = 0; yi < L; yi++) {
                double s = 0;
                for (int yj = 0; yj < L; yj++) s += bp[a][yi * L + yj];
                assertEquals(bu[i][yi], s, tol, "edge " + a + " marginal to its first end, label " + yi);
            }
            for (int yj = 0; yj < L; yj++) {
                double s = 0;
                for (int yi = 0; yi < L; yi++) s += bp[a][yi * L + yj];
                assertEquals(bu[j][yj], s, tol, "edge " + a + " marginal to its second end, label " + yj);
            }
        }
    }

    // ------------------------------------------------------------------ trees: MAP and Theorem 1

    @ParameterizedTest(name = "{0} on {1}")
    @MethodSource("trees")
    void decodeIsTheExactMapOnTreesAsEpsShrinks(Engine engine, Problem p) {
        ExactInference.Result exact = ExactInference.solve(p.graph(), p.unary(), p.pairwise(), 1.0);
        double margin = exact.mapScore() - secondBestScore(p, exact.map());
        assertTrue(margin > 0.05, "test problem needs a clear MAP margin, has " + margin);
        for (double eps : new double[] {1e-2, 1e-3}) {
            try (MessagePassing mp = engine.open(p, eps)) {
                converge(mp, 1e-9, 5000);
                assertArrayEquals(exact.map(), mp.decode(), "eps " + eps);
            }
        }
    }

    @ParameterizedTest(name = "{0} on {1}")
    @MethodSource("trees")
    void theorem1OnTrees(Engine engine, Problem p) {
        double map = ExactInference.solve(p.graph(), p.unary(), p.pairwise(), 1.0).mapScore();
        for (double eps : new double[] {0.1, 0.01}) {
            try (MessagePassing mp = engine.open(p, eps)) {
                assertTrue(converge(mp, 1e-10, 20000), "eps " + eps + " not converged, gap " + mp.gap());
                double excess = mp.dual() - map;
                double bound = BruteForce.theorem1Bound(p.graph(), eps);
                assertTrue(excess >= -1e-9 && excess <= bound, "eps " + eps + ": dual - MAP = " + excess + ", bound " + bound);
            }
        }
    }

    public static double secondBestScore(Problem p, int[] map) {
        FactorGraph g = p.graph();
        int[] y = new int[g.numVariables()];
        double second = Double.NEGATIVE_INFINITY;
        while (true) {
            if (!java.util.Arrays.equals(y, map)) second = Math.max(second, ExactInference.score(g, p.unary(), p.pairwise(), y));
            int i = y.length - 1;
            while (i >= 0 && ++y[i] == g.numLabels(i)) y[i--] = 0;
            if (i < 0) return second;
        }
    }

    // ------------------------------------------------------------------ grid vs general, batched vs one at a time

    @ParameterizedTest(name = "{0}")
    @MethodSource("engines")
    void gridAndTheSameGraphAsAGeneralGraphAgree(Engine engine) {
        Problem grid = TestProblems.grid(3, 5, 3, 1.0, 51);
        int[][] edges = new int[grid.graph().numEdges()][];
        for (int a = 0; a < edges.length; a++) edges[a] = new int[] {grid.graph().edgeFrom(a), grid.graph().edgeTo(a)};
        FactorGraph general = FactorGraph.of(15, 3, edges);
        Problem asGeneral = new Problem("grid 3x5 as FactorGraph.of", general, Coloring.checkerboard(3, 5, 1), grid.unary(), grid.pairwise(), null);
        double eps = 0.25;
        try (MessagePassing ref = new LoopMessagePassing(general, asGeneral.coloring(), eps)) {
            ref.setPotentials(TestEngines.unaryArray(asGeneral), TestEngines.pairwiseArray(asGeneral));
            ref.iterate(7);
            int checked = 0;
            for (Problem p : List.of(grid, asGeneral)) {
                if (!engine.applies().test(p)) continue;
                checked++;
                try (MessagePassing mp = engine.open(p, eps)) {
                    mp.iterate(7);
                    assertSameState(ref, mp, TIGHT, p.name() + " after 7 sweeps");
                }
            }
            assertTrue(checked > 0, "engine applies to neither form");
        }
    }

    public static Stream<Arguments> unions() {
        List<Arguments> out = new ArrayList<>();
        List<Problem> general = List.of(
                TestProblems.chainProblem(6, 3, 1.0, 61),
                TestProblems.treeProblem(7, TestProblems.randomLabels(7, 2, 4, new Random(62)), 1.0, 62),
                TestProblems.generalProblem(8, 1.0, 63));
        List<Problem> grids = List.of(TestProblems.grid(3, 4, 3, 1.0, 64), TestProblems.grid(3, 4, 3, 2.0, 65), TestProblems.grid(3, 4, 3, 0.5, 66));
        for (Engine e : TestEngines.ALL) {
            for (List<Problem> parts : List.of(general, grids)) {
                Problem u = union(parts);
                if (e.applies().test(u) && parts.stream().allMatch(e.applies())) out.add(Arguments.of(e, parts));
            }
        }
        return out.stream();
    }

    @ParameterizedTest(name = "{0} on {1}")
    @MethodSource("unions")
    void batchedAndOneAtATimeAgree(Engine engine, List<Problem> parts) {
        double eps = 0.3;
        Problem u = union(parts);
        try (MessagePassing all = engine.open(u, eps)) {
            all.iterate(9);
            double[][][] msgs = TestEngines.messages(all);
            FactorGraph ug = u.graph();
            int UL = ug.maxLabels();
            double[][] bu = TestEngines.matrix(all.unaryBeliefs(), ug.numVariables(), UL);
            double[][] bp = TestEngines.matrix(all.pairBeliefs(), ug.numEdges(), UL * UL);
            int[] decoded = all.decode();
            double dualSum = 0;
            int vo = 0, eo = 0;
            for (Problem p : parts) {
                FactorGraph g = p.graph();
                int L = g.maxLabels();
                try (MessagePassing one = engine.open(p, eps)) {
                    one.iterate(9);
                    dualSum += one.dual();
                    double[][][] m1 = TestEngines.messages(one);
                    double[][] bu1 = TestEngines.matrix(one.unaryBeliefs(), g.numVariables(), L);
                    double[][] bp1 = TestEngines.matrix(one.pairBeliefs(), g.numEdges(), L * L);
                    int[] d1 = one.decode();
                    for (int i = 0; i < g.numVariables(); i++) {
                        assertEquals(d1[i], decoded[vo + i], p.name() + " decode of variable " + i);
                        for (int y = 0; y < g.numLabels(i); y++) assertClose(bu1[i][y], bu[vo + i][y], TIGHT, p.name() + " b_" + i + "(" + y + ")");
                    }
                    for (int a = 0; a < g.numEdges(); a++) {
                        for (int s = 0; s < 2; s++) {
                            int v = s == 0 ? g.edgeFrom(a) : g.edgeTo(a);
                            for (int y = 0; y < g.numLabels(v); y++) assertClose(m1[a][s][y], msgs[eo + a][s][y], TIGHT, p.name() + " message [" + a + "," + s + "," + y + "]");
                        }
                        for (int yi = 0; yi < g.numLabels(g.edgeFrom(a)); yi++) {
                            for (int yj = 0; yj < g.numLabels(g.edgeTo(a)); yj++) {
                                assertClose(bp1[a][yi * L + yj], bp[eo + a][yi * UL + yj], TIGHT, p.name() + " b_a" + a);
                            }
                        }
                    }
                }
                vo += g.numVariables();
                eo += g.numEdges();
            }
            assertClose(dualSum, all.dual(), TIGHT, "dual of the union = sum of the parts' duals");
        }
    }

    /** The disjoint union of the parts, potentials re-padded to the union's label count, colourings concatenated. */
    public static Problem union(List<Problem> parts) {
        List<FactorGraph> graphs = parts.stream().map(Problem::graph).toList();
        FactorGraph g = FactorGraph.disjointUnion(graphs);
        int L = g.maxLabels();
        double[][] u = new double[g.numVariables()][L], pw = new double[g.numEdges()][L * L];
        int[] color = new int[g.numVariables()];
        int vo = 0, eo = 0;
        boolean allGrids = true;
        int[] shape0 = parts.get(0).gridShape();
        for (Problem p : parts) {
            int pl = p.graph().maxLabels();
            for (int i = 0; i < p.graph().numVariables(); i++) {
                java.util.Arrays.fill(u[vo + i], TestProblems.PADDING_GARBAGE);
                System.arraycopy(p.unary()[i], 0, u[vo + i], 0, pl);
                color[vo + i] = p.coloring().color(i);
            }
            for (int a = 0; a < p.graph().numEdges(); a++) {
                java.util.Arrays.fill(pw[eo + a], TestProblems.PADDING_GARBAGE);
                for (int yi = 0; yi < pl; yi++) {
                    for (int yj = 0; yj < pl; yj++) pw[eo + a][yi * L + yj] = p.pairwise()[a][yi * pl + yj];
                }
            }
            int[] s = p.gridShape();
            allGrids &= s != null && shape0 != null && s[0] == 1 && s[1] == shape0[1] && s[2] == shape0[2];
            vo += p.graph().numVariables();
            eo += p.graph().numEdges();
        }
        int[] shape = allGrids ? new int[] {parts.size(), shape0[1], shape0[2]} : null;
        return new Problem("union of " + parts.size(), g, new Coloring(color), u, pw, shape);
    }

    // ------------------------------------------------------------------ hard constraints

    /**
     * A chain of 6 variables with 3 labels where neighbours must differ (like zeros in a UAI table),
     * label 0 of variable 2 is forbidden by its unary, and label 0 of variable 0 is impossible
     * because edge (0, 1) forbids it with every label of variable 1.
     */
    public static Problem constrainedChain(double scale, long seed) {
        Problem p = TestProblems.chainProblem(6, 3, scale, seed);
        double ninf = Double.NEGATIVE_INFINITY;
        double[][] u = p.unary(), pw = p.pairwise();
        for (double[] row : pw) for (int y = 0; y < 3; y++) row[y * 3 + y] = ninf;
        for (int y = 0; y < 3; y++) pw[0][y] = ninf;     // y_0 = 0 forbidden with every y_1
        pw[3][1 * 3 + 2] = ninf;
        u[2][0] = ninf;
        return new Problem("constrained chain", p.graph(), p.coloring(), u, pw, null);
    }

    /** The standard loopy graph with a third of its pairwise entries and a few unary entries set to minus infinity. */
    public static Problem constrainedGeneral(long seed) {
        Problem p = TestProblems.generalProblem(9, 1.0, seed);
        Random rnd = new Random(seed + 1);
        for (double[] row : p.pairwise()) for (int k = 0; k < row.length; k++) if (rnd.nextDouble() < 0.33) row[k] = Double.NEGATIVE_INFINITY;
        p.unary()[1][0] = Double.NEGATIVE_INFINITY;
        p.unary()[8][2] = Double.NEGATIVE_INFINITY;   // the isolated variable
        return new Problem("constrained general", p.graph(), p.coloring(), p.unary(), p.pairwise(), null);
    }

    /** A 3x4 grid, 3 labels, neighbours must differ, two unary labels forbidden (feasible: the grid is bipartite). */
    public static Problem constrainedGrid(long seed) {
        Problem p = TestProblems.grid(3, 4, 3, 1.0, seed);
        for (double[] row : p.pairwise()) for (int y = 0; y < 3; y++) row[y * 3 + y] = Double.NEGATIVE_INFINITY;
        p.unary()[0][0] = Double.NEGATIVE_INFINITY;
        p.unary()[5][2] = Double.NEGATIVE_INFINITY;
        return new Problem("constrained grid", p.graph(), p.coloring(), p.unary(), p.pairwise(), p.gridShape());
    }

    public static Stream<Arguments> constrained() {
        return TestEngines.pairs(List.of(constrainedChain(1.0, 71), constrainedGeneral(72), constrainedGrid(74)));
    }

    public static Stream<Arguments> constrainedTree() {
        return TestEngines.pairs(List.of(constrainedChain(1.0, 73)));
    }

    public static Stream<Arguments> mixed() {
        return TestEngines.pairs(List.of(TestProblems.mixedLabels(1.0, 81)));
    }

    @ParameterizedTest(name = "{0} on {1}")
    @MethodSource("constrained")
    void hardConstraintsGiveNoNaN(Engine engine, Problem p) {
        FactorGraph g = p.graph();
        int L = g.maxLabels();
        for (double eps : new double[] {1.0, 0.05}) {
            try (MessagePassing mp = engine.open(p, eps)) {
                double prev = mp.dual();
                for (int t = 0; t < 5; t++) {
                    mp.iterate(t < 4 ? 1 : 20);
                    String when = "eps " + eps + " sweep " + t;
                    double d = mp.dual();
                    assertFalse(Double.isNaN(d) || Double.isNaN(mp.primal()), "NaN dual/primal " + when);
                    assertTrue(Double.isFinite(d) && Double.isFinite(mp.primal()), "dual/primal not finite " + when);
                    assertTrue(d <= prev + 1e-12 * Math.max(1, Math.abs(prev)), "dual rose " + when);
                    prev = d;
                    for (double x : TestEngines.flat(mp.messages())) assertFalse(Double.isNaN(x) || x == Double.POSITIVE_INFINITY, "message " + x + " " + when);
                    for (double x : TestEngines.flat(mp.incomingMessageSums())) assertFalse(Double.isNaN(x), "NaN incoming sum " + when);
                    double[][] bu = TestEngines.matrix(mp.unaryBeliefs(), g.numVariables(), L);
                    double[][] bp = TestEngines.matrix(mp.pairBeliefs(), g.numEdges(), L * L);
                    for (int i = 0; i < bu.length; i++) {
                        for (int y = 0; y < L; y++) {
                            assertFalse(Double.isNaN(bu[i][y]), "NaN unary belief " + when);
                            if (y >= g.numLabels(i) || p.unary()[i][y] == Double.NEGATIVE_INFINITY) assertEquals(0.0, bu[i][y], "b_" + i + "(" + y + ") " + when);
                        }
                    }
                    for (int a = 0; a < bp.length; a++) {
                        for (int k = 0; k < L * L; k++) {
                            assertFalse(Double.isNaN(bp[a][k]), "NaN pair belief " + when);
                            boolean real = k / L < g.numLabels(g.edgeFrom(a)) && k % L < g.numLabels(g.edgeTo(a));
                            if (!real || p.pairwise()[a][k] == Double.NEGATIVE_INFINITY) assertEquals(0.0, bp[a][k], "b_a" + a + "[" + k + "] " + when);
                        }
                    }
                    // the engine's numbers are still the formulas' at its own messages
                    assertMatchesFormulas(mp, p, TestEngines.messages(mp), eps, when);
                }
                // messages with minus infinity on impossible labels survive a round trip through
                // setMessages (a fresh engine) and setPotentials (a warm start), without NaN
                double[][][] msgs = TestEngines.messages(mp);
                boolean someMinusInf = false;
                for (int a = 0; a < msgs.length; a++) {
                    for (int y = 0; y < g.numLabels(g.edgeFrom(a)); y++) someMinusInf |= msgs[a][0][y] == Double.NEGATIVE_INFINITY;
                }
                assertTrue(someMinusInf, "the test needs messages that are minus infinity on an existing label");
                try (MessagePassing fresh = engine.open(p, eps)) {
                    fresh.setMessages(TestEngines.messageArray(msgs, L));
                    assertSameState(mp, fresh, TIGHT, "eps " + eps + " messages copied to a fresh engine");
                    mp.setPotentials(TestEngines.unaryArray(p), TestEngines.pairwiseArray(p));
                    assertSameState(fresh, mp, TIGHT, "eps " + eps + " after setting the same potentials again");
                    fresh.iterate(3);
                    mp.iterate(3);
                    assertSameState(fresh, mp, TIGHT, "eps " + eps + " 3 sweeps after the round trip");
                }
            }
        }
        if (p.name().equals("constrained chain")) {
            try (MessagePassing mp = engine.open(p, 1.0)) {
                mp.iterate(1);
                assertEquals(0.0, TestEngines.matrix(mp.unaryBeliefs(), g.numVariables(), L)[0][0], "label 0 of variable 0 is impossible");
            }
        }
    }

    @ParameterizedTest(name = "{0} on {1}")
    @MethodSource("constrainedTree")
    void hardConstraintsOnATreeConvergeToTheConstrainedMap(Engine engine, Problem p) {
        ExactInference.Result exact = ExactInference.solve(p.graph(), p.unary(), p.pairwise(), 1.0);
        double margin = exact.mapScore() - secondBestScore(p, exact.map());
        assertTrue(margin > 0.05, "test problem needs a clear MAP margin, has " + margin);
        int L = p.graph().maxLabels();
        try (MessagePassing mp = engine.open(p, 0.01)) {
            assertTrue(converge(mp, 1e-9, 5000), "not converged, gap " + mp.gap());
            assertLocallyConsistent(mp, 1e-6);
            assertArrayEquals(exact.map(), mp.decode());
            double[][] bu = TestEngines.matrix(mp.unaryBeliefs(), p.graph().numVariables(), L);
            for (int i = 0; i < bu.length; i++) assertTrue(bu[i][exact.map()[i]] > 0.99, "b_" + i + " = " + java.util.Arrays.toString(bu[i]));
            double excess = mp.dual() - exact.mapScore();
            assertTrue(excess >= -1e-9 && excess <= BruteForce.theorem1Bound(p.graph(), 0.01), "dual - MAP = " + excess);
        }
    }

    // ------------------------------------------------------------------ label counts per variable

    @ParameterizedTest(name = "{0} on {1}")
    @MethodSource("mixed")
    void differentLabelCountsPerVariable(Engine engine, Problem p) {
        FactorGraph g = p.graph();
        int L = g.maxLabels();
        try (MessagePassing mp = engine.open(p, 0.2)) {
            for (int round = 0; round < 2; round++) {
                if (round == 0) mp.iterate(5);
                else assertTrue(converge(mp, 1e-9, 2000), "not converged, gap " + mp.gap());
                double[][] bu = TestEngines.matrix(mp.unaryBeliefs(), g.numVariables(), L);
                double[][] bp = TestEngines.matrix(mp.pairBeliefs(), g.numEdges(), L * L);
                int[] y = mp.decode();
                for (int i = 0; i < bu.length; i++) {
                    double s = 0;
                    for (int k = 0; k < L; k++) {
                        if (k >= g.numLabels(i)) assertEquals(0.0, bu[i][k], "b_" + i + "(" + k + ") of a label it does not have");
                        s += bu[i][k];
                    }
                    assertEquals(1.0, s, 1e-12, "b_" + i + " sums to 1");
                    assertTrue(y[i] >= 0 && y[i] < g.numLabels(i), "decoded label " + y[i] + " of variable " + i);
                }
                for (int a = 0; a < bp.length; a++) {
                    double s = 0;
                    for (int k = 0; k < L * L; k++) {
                        if (k / L >= g.numLabels(g.edgeFrom(a)) || k % L >= g.numLabels(g.edgeTo(a))) assertEquals(0.0, bp[a][k], "b_a" + a + "[" + k + "]");
                        s += bp[a][k];
                    }
                    assertEquals(1.0, s, 1e-12, "b_a" + a + " sums to 1");
                }
            }
            assertLocallyConsistent(mp, 1e-6);
        }
    }

    // ------------------------------------------------------------------ helpers

    /**
     * Sweeps (10 at a time, then a quarter of the sweeps done so far) until |dual - primal| <= tol or maxSweeps; true when it got there. The
     * absolute value matters: before convergence the beliefs are not locally consistent and the
     * primal can exceed the dual.
     */
    public static boolean converge(MessagePassing mp, double tol, int maxSweeps) {
        int done = 0;
        while (done < maxSweeps) {
            int k = Math.min(Math.max(10, done / 4), maxSweeps - done);
            mp.iterate(k);
            done += k;
            if (Math.abs(mp.gap()) <= tol) return true;
        }
        return false;
    }

    /** MessagePassing.run must not stop at a negative gap of inconsistent beliefs. */
    @ParameterizedTest(name = "{0} on {1}")
    @MethodSource("standard")
    void runReportsConvergenceOnlyAtASmallGap(Engine engine, Problem p) {
        try (MessagePassing mp = engine.open(p, 0.2)) {
            InferenceResult r = mp.run(new StopRule(20000, 1e-9, 10));
            assertTrue(r.converged() && Math.abs(r.gap()) <= 1e-9 && Math.abs(mp.gap()) <= 1e-9, "run stopped at " + r);
            assertLocallyConsistent(mp, 1e-6);
        }
    }

    public static double[][][] randomMessages(FactorGraph g, double scale, Random rnd) {
        int L = g.maxLabels();
        double[][][] m = new double[g.numEdges()][2][L];
        for (int a = 0; a < m.length; a++) {
            for (int s = 0; s < 2; s++) {
                int v = s == 0 ? g.edgeFrom(a) : g.edgeTo(a);
                for (int y = 0; y < L; y++) m[a][s][y] = y < g.numLabels(v) ? scale * rnd.nextGaussian() : Double.NEGATIVE_INFINITY;
            }
        }
        return m;
    }

    public static void assertClose(double expected, double actual, double tol, String what) {
        if (expected == actual) return;   // equal infinities included
        if (Double.isNaN(actual) || Double.isInfinite(expected) || Double.isInfinite(actual)
                || Math.abs(expected - actual) > tol * Math.max(1, Math.abs(expected))) {
            fail(what + ": expected " + expected + " but was " + actual + " (difference " + (actual - expected) + ")");
        }
    }

    public static void assertMatrixClose(double[][] expected, double[][] actual, double tol, String what) {
        for (int r = 0; r < expected.length; r++) {
            for (int c = 0; c < expected[r].length; c++) assertClose(expected[r][c], actual[r][c], tol, what + " [" + r + "," + c + "]");
        }
    }

    /** Messages agree on the labels each end has (padding is not compared). */
    public static void assertMessagesEqual(double[][][] expected, double[][][] actual, FactorGraph g, double tol, String what) {
        for (int a = 0; a < g.numEdges(); a++) {
            for (int s = 0; s < 2; s++) {
                int v = s == 0 ? g.edgeFrom(a) : g.edgeTo(a);
                for (int y = 0; y < g.numLabels(v); y++) assertClose(expected[a][s][y], actual[a][s][y], tol, what + " [" + a + "," + s + "," + y + "]");
            }
        }
    }

    /** Same messages (real labels), beliefs, dual and primal. */
    public static void assertSameState(MessagePassing want, MessagePassing got, double tol, String what) {
        FactorGraph g = want.graph();
        int L = g.maxLabels();
        assertMessagesEqual(TestEngines.messages(want), TestEngines.messages(got), g, tol, what + " messages");
        assertMatrixClose(TestEngines.matrix(want.unaryBeliefs(), g.numVariables(), L), TestEngines.matrix(got.unaryBeliefs(), g.numVariables(), L), tol, what + " unary beliefs");
        assertMatrixClose(TestEngines.matrix(want.pairBeliefs(), g.numEdges(), L * L), TestEngines.matrix(got.pairBeliefs(), g.numEdges(), L * L), tol, what + " pair beliefs");
        assertClose(want.dual(), got.dual(), tol, what + " dual");
        assertClose(want.primal(), got.primal(), tol, what + " primal");
        assertArrayEquals(want.decode(), got.decode(), what + " decode");
    }
}
