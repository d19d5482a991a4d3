package org.structlr.inference;

import org.structlr.inference.loop.LoopMessagePassing;
import org.structlr.inference.nd4j.GraphMessagePassing;
import org.structlr.inference.nd4j.GridMessagePassing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.function.BiFunction;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.structlr.data.Dataset;
import org.structlr.data.Example;
import org.structlr.graph.Coloring;
import org.structlr.graph.FactorGraph;
import org.structlr.graph.Grids;
import org.structlr.learn.IterationRecord;
import org.structlr.learn.LearnSettings;
import org.structlr.learn.Training;
import org.structlr.model.CrfModel;
import org.structlr.model.ExampleBatch;
import org.structlr.model.Predictor;

/**
 * Numerical robustness of the three engines (loop, nd4j-graph, nd4j-grid), in FLOAT and DOUBLE
 * where the engine has a choice: potentials up to 1e6 in magnitude, eps from 1e-3 to 10, a
 * variable with no edges, a label that never wins, and a model trained on data in which one of
 * its labels never occurs. After every run: dual, primal and gap finite; beliefs finite, in [0, 1],
 * summing to 1 per variable and per edge; messages finite (minus infinity only on labels a variable
 * does not have); decoded labels in range.
 */
class RobustnessTest {
    /** An engine in one precision. */
    record Engine(String name, DataType dtype, boolean gridOnly, BiFunction<TestEngines.Problem, Double, MessagePassing> factory) {
        boolean applies(TestEngines.Problem p) { return !gridOnly || p.isGrid(); }

        MessagePassing open(TestEngines.Problem p, double eps) {
            MessagePassing mp = factory.apply(p, eps);
            mp.setPotentials(TestEngines.unaryArray(p).castTo(dtype), TestEngines.pairwiseArray(p).castTo(dtype));
            return mp;
        }

        @Override public String toString() { return name + "/" + dtype; }
    }

    static final List<Engine> ENGINES = List.of(
            new Engine("loop", DataType.DOUBLE, false, (p, eps) -> new LoopMessagePassing(p.graph(), p.coloring(), eps)),
            new Engine("nd4j-graph", DataType.DOUBLE, false, (p, eps) -> new GraphMessagePassing(p.graph(), p.coloring(), eps, DataType.DOUBLE)),
            new Engine("nd4j-graph", DataType.FLOAT, false, (p, eps) -> new GraphMessagePassing(p.graph(), p.coloring(), eps, DataType.FLOAT)),
            new Engine("nd4j-grid", DataType.DOUBLE, true,
                    (p, eps) -> new GridMessagePassing(p.gridCount(), p.gridHeight(), p.gridWidth(), p.graph().maxLabels(), eps, DataType.DOUBLE)),
            new Engine("nd4j-grid", DataType.FLOAT, true,
                    (p, eps) -> new GridMessagePassing(p.gridCount(), p.gridHeight(), p.gridWidth(), p.graph().maxLabels(), eps, DataType.FLOAT)));

    static final double[] EPS = {1e-3, 0.1, 1, 10};
    static final double[] SCALES = {1, 1e6};

    /** Potentials uniform in [-scale, scale] (the largest magnitudes, not only a few sigmas of a Gaussian). */
    static TestEngines.Problem uniform(TestEngines.Problem p, double scale, long seed) {
        Random rnd = new Random(seed);
        double[][] u = new double[p.unary().length][], w = new double[p.pairwise().length][];
        for (int i = 0; i < u.length; i++) {
            u[i] = p.unary()[i].clone();
            for (int y = 0; y < u[i].length; y++) u[i][y] = scale * (2 * rnd.nextDouble() - 1);
        }
        for (int a = 0; a < w.length; a++) {
            w[a] = p.pairwise()[a].clone();
            for (int y = 0; y < w[a].length; y++) w[a][y] = scale * (2 * rnd.nextDouble() - 1);
        }
        return new TestEngines.Problem(p.name() + " |theta|<=" + scale, p.graph(), p.coloring(), u, w, p.gridShape());
    }

    /** A 4x5 grid with 3 labels, the same as a general graph, a loopy graph with an isolated variable, and a 1x1 grid. */
    static List<TestEngines.Problem> shapes() {
        TestEngines.Problem grid = TestProblems.grid(4, 5, 3, 1.0, 21);
        FactorGraph one = Grids.grid(1, 1, 3, false);
        TestEngines.Problem single = new TestEngines.Problem("grid 1x1 (no edges)", one, Grids.checkerboard(1, 1),
                new double[][] {{0.3, -0.2, 0.1}}, new double[0][], new int[] {1, 1, 1});
        return List.of(grid, grid.asGeneral(), TestProblems.generalProblem(8, 1.0, 22), single);
    }

    static Stream<Arguments> largePotentials() {
        List<Arguments> out = new ArrayList<>();
        for (Engine e : ENGINES) {
            for (TestEngines.Problem shape : shapes()) {
                if (!e.applies(shape) || knownBroken(e, shape)) continue;
                for (double s : SCALES) {
                    for (double eps : EPS) out.add(Arguments.of(e, uniform(shape, s, 31), eps));
                }
            }
        }
        return out.stream();
    }

    @ParameterizedTest(name = "{0} {1} eps={2}")
    @MethodSource("largePotentials")
    void largePotentialsAndAnyEps(Engine e, TestEngines.Problem p, double eps) {
        try (MessagePassing mp = e.open(p, eps)) {
            assertSane(mp, e, "before any sweep");
            mp.iterate(2);
            assertSane(mp, e, "after 2 sweeps");
            InferenceResult r = mp.run(new StopRule(20, 1e-9 * p.graph().numVariables(), 10));
            assertTrue(Double.isFinite(r.dual()) && Double.isFinite(r.primal()) && Double.isFinite(r.gap()), "result " + r);
            assertSane(mp, e, "after run");
        }
    }

    /** Label 2 of every variable scores {@code bad} (unary and every pairwise entry that involves it). */
    static TestEngines.Problem neverWins(TestEngines.Problem p, double bad) {
        int L = p.graph().maxLabels();
        double[][] u = new double[p.unary().length][], w = new double[p.pairwise().length][];
        for (int i = 0; i < u.length; i++) {
            u[i] = p.unary()[i].clone();
            if (p.graph().numLabels(i) > 2) u[i][2] = bad;
        }
        for (int a = 0; a < w.length; a++) {
            w[a] = p.pairwise()[a].clone();
            for (int yi = 0; yi < L; yi++) for (int yj = 0; yj < L; yj++) if (yi == 2 || yj == 2) w[a][yi * L + yj] = bad;
        }
        return new TestEngines.Problem(p.name() + " label 2 at " + bad, p.graph(), p.coloring(), u, w, p.gridShape());
    }

    static Stream<Arguments> losingLabel() {
        List<Arguments> out = new ArrayList<>();
        for (Engine e : ENGINES) {
            for (TestEngines.Problem shape : shapes()) {
                if (!e.applies(shape) || knownBroken(e, shape)) continue;
                for (double bad : new double[] {-1e6, -1e9, -1e30}) {
                    for (double eps : new double[] {1e-3, 1}) out.add(Arguments.of(e, neverWins(uniform(shape, 1, 41), bad), eps));
                }
            }
        }
        return out.stream();
    }

    @ParameterizedTest(name = "{0} {1} eps={2}")
    @MethodSource("losingLabel")
    void aLabelThatNeverWins(Engine e, TestEngines.Problem p, double eps) {
        try (MessagePassing mp = e.open(p, eps)) {
            mp.run(new StopRule(30, 1e-9, 10));
            // Scaled potentials theta/eps below -Nd4jKernels.BIG = -1e30 count as impossible in the
            // ND4J engines (the max floor of their log-sum-exp): their messages may be -inf there.
            boolean beyondFloor = p.name().endsWith("at -1.0E30") && eps < 1;
            assertSane(mp, e, "after run", beyondFloor);
            int[] y = mp.decode();
            double[] b = TestEngines.flat(mp.unaryBeliefs());
            int L = p.graph().maxLabels();
            for (int i = 0; i < y.length; i++) {
                assertTrue(y[i] != 2, "variable " + i + " decoded to the losing label");
                if (p.graph().numLabels(i) > 2) assertTrue(b[i * L + 2] < 1e-6, "belief of the losing label " + b[i * L + 2]);
            }
        }
    }

    // ------------------------------------------------------------------------------------------
    // a model trained where one of its labels never occurs

    /** 3x4 grids, num_labels 3, labels 0 and 1 only; unary features say the label (noisily). */
    static Example example(int k, Random rnd) {
        int h = 3, w = 4, v = h * w;
        int[] y = new int[v];
        float[] u = new float[v * 3];
        for (int i = 0; i < v; i++) {
            y[i] = (i % w) < w / 2 ? 0 : 1;
            u[3 * i] = 1;
            u[3 * i + 1] = y[i] + 0.3f * (float) rnd.nextGaussian();
            u[3 * i + 2] = (float) rnd.nextGaussian();
        }
        FactorGraph g = Grids.grid(h, w, 3, false);
        int[] edges = new int[2 * g.numEdges()];
        float[] p = new float[g.numEdges() * 2];
        for (int e = 0; e < g.numEdges(); e++) {
            edges[2 * e] = g.edgeFrom(e);
            edges[2 * e + 1] = g.edgeTo(e);
            p[2 * e] = 1;
            p[2 * e + 1] = y[g.edgeFrom(e)] == y[g.edgeTo(e)] ? 0.2f * rnd.nextFloat() : 0.8f + 0.2f * rnd.nextFloat();
        }
        return Example.builder(u, 3, edges, p, 2).labels(y).numLabels(3).shape(h, w).source(java.nio.file.Path.of("ex" + k + ".npz")).build();
    }

    static Stream<Arguments> kinds() {
        return Stream.of("const", "linear", "mlp", "boost").map(Arguments::of);
    }

    @ParameterizedTest(name = "{0}/{0}")
    @MethodSource("kinds")
    void labelsThatNeverOccurInTraining(String kind) {
        Random rnd = new Random(5);
        List<Example> train = new ArrayList<>(), test = new ArrayList<>();
        for (int k = 0; k < 4; k++) train.add(example(k, rnd));
        for (int k = 0; k < 2; k++) test.add(example(10 + k, rnd));
        Dataset data = Dataset.of(train, test, List.of());
        assertEquals(3, data.numLabels());
        List<IterationRecord> curve = new ArrayList<>();
        CrfModel m = Training.train(data, kind, kind, new LearnSettings(6, 0.1, 10, 10, 3), 1, (r, n) -> curve.add(r)).model();
        assertEquals(6, curve.size());
        for (IterationRecord r : curve) {
            assertTrue(Double.isFinite(r.objective()), "objective " + r);
            assertTrue(Double.isFinite(r.trainError()) && Double.isFinite(r.testError()), "errors " + r);
        }
        ExampleBatch b = new ExampleBatch(test, m.numLabels(), m.pairTypes());
        INDArray u = org.structlr.model.Potentials.unary(b, m.unary(), m.eps()), p = org.structlr.model.Potentials.pairwise(b, m.pair(), m.eps());
        assertFinite(TestEngines.flat(u), "unary potentials");
        assertFinite(TestEngines.flat(p), "pairwise potentials");
        Predictor.Prediction pred = Predictor.predict(m, b, Predictor.defaultStop(b, 200, 1e-6));
        assertTrue(Double.isFinite(pred.inference().dual()) && Double.isFinite(pred.inference().primal()), "inference " + pred.inference());
        double[] marg = TestEngines.flat(pred.marginals());
        assertFinite(marg, "marginals");
        for (int i = 0; i < pred.labels().length; i++) {
            assertTrue(pred.labels()[i] >= 0 && pred.labels()[i] < 3);
            assertEquals(1.0, marg[3 * i] + marg[3 * i + 1] + marg[3 * i + 2], 1e-4);
        }
        // every engine in every precision, with these potentials, from zero messages
        FactorGraph g = b.graph();
        int[] s = b.commonShape();
        TestEngines.Problem prob = new TestEngines.Problem("trained " + kind, g, Coloring.checkerboard(s[0], s[1], test.size()),
                TestEngines.matrix(u, g.numVariables(), 3), TestEngines.matrix(p, g.numEdges(), 9), new int[] {test.size(), s[0], s[1]});
        for (Engine e : ENGINES) {
            try (MessagePassing mp = e.open(prob, m.eps())) {
                mp.run(new StopRule(100, 1e-9, 10));
                assertSane(mp, e, "trained " + kind);
            }
        }
    }

    /**
     * Known bug (reported to the lead): GraphMessagePassing cannot be built on a graph with no edges
     * at all: setPotentials divides the empty [0, L*L] pairwise array by eps, which ND4J refuses
     * ("Cannot perform operation div on empty array"). Such cases are left out of the
     * parameterised tests and reproduced by {@link #graphEngineOnAGraphWithoutEdges()}.
     */
    static boolean knownBroken(Engine e, TestEngines.Problem p) {
        return e.name().equals("nd4j-graph") && p.graph().numEdges() == 0;
    }

    @Test
    void graphEngineOnAGraphWithoutEdges() {
        TestEngines.Problem single = shapes().get(3);
        for (Engine e : ENGINES) {
            try (MessagePassing mp = e.open(single, 0.1)) {
                mp.run(new StopRule(5, 0, 5));
                assertSane(mp, e, "no edges");
                double[] b = TestEngines.flat(mp.unaryBeliefs());
                double z = Math.exp(3) + Math.exp(-2) + Math.exp(1);
                assertEquals(Math.exp(3) / z, b[0], 1e-5, "softmax(theta / eps)");
            }
        }
    }

    /**
     * In the ND4J engines a scaled potential below -1e30 may give -inf messages (the log-sum-exp max
     * floor, Nd4jKernels.BIG); the label must not stay impossible once the potentials change back
     * to moderate values (warm start).
     */
    @Test
    void veryNegativePotentialsDoNotStickAcrossWarmStarts() {
        TestEngines.Problem moderate = uniform(TestProblems.grid(4, 5, 3, 1.0, 21), 1, 41);
        TestEngines.Problem extreme = neverWins(moderate, -1e30);
        TestEngines.Problem favoured = neverWins(moderate, 5);
        for (Engine e : ENGINES) {
            if (!e.applies(extreme)) continue;
            try (MessagePassing mp = e.open(extreme, 1e-3)) {
                mp.run(new StopRule(20, 0, 20));
                mp.setPotentials(TestEngines.unaryArray(favoured).castTo(e.dtype()), TestEngines.pairwiseArray(favoured).castTo(e.dtype()));
                mp.run(new StopRule(50, 0, 50));
                assertSane(mp, e, "after the potentials changed back");
                assertTrue(Arrays.stream(mp.decode()).allMatch(y -> y == 2), e + ": label 2 is now the best everywhere");
            }
        }
    }

    @Test
    void engineListCoversAllThree() {
        assertEquals(3, ENGINES.stream().map(Engine::name).distinct().count());
    }

    // ------------------------------------------------------------------------------------------

    static void assertFinite(double[] a, String what) {
        for (int k = 0; k < a.length; k++) assertTrue(Double.isFinite(a[k]), what + "[" + k + "] = " + a[k]);
    }

    /** Everything an engine reports is finite and consistent (see the class comment). */
    static void assertSane(MessagePassing mp, Engine e, String when) {
        assertSane(mp, e, when, false);
    }

    /**
     * As above; with {@code minusInfMessagesAllowed}, messages may be minus infinity (never NaN or
     * plus infinity) on labels the variable has.
     */
    static void assertSane(MessagePassing mp, Engine e, String when, boolean minusInfMessagesAllowed) {
        String at = e + " " + when + ": ";
        FactorGraph g = mp.graph();
        int L = g.maxLabels(), V = g.numVariables(), E = g.numEdges();
        double tol = e.dtype() == DataType.FLOAT ? 1e-4 : 1e-9;
        double d = mp.dual(), p = mp.primal();
        assertTrue(Double.isFinite(d), at + "dual " + d);
        assertTrue(Double.isFinite(p), at + "primal " + p);
        assertTrue(Double.isFinite(mp.gap()), at + "gap " + mp.gap());
        double[] b = TestEngines.flat(mp.unaryBeliefs());
        assertEquals((long) V * L, b.length, at + "unary beliefs shape");
        for (int i = 0; i < V; i++) {
            double sum = 0;
            for (int y = 0; y < L; y++) {
                double x = b[i * L + y];
                assertTrue(Double.isFinite(x) && x >= -tol && x <= 1 + tol, at + "belief b_" + i + "(" + y + ") = " + x);
                if (y >= g.numLabels(i)) assertEquals(0.0, x, tol, at + "belief of a label variable " + i + " does not have");
                sum += x;
            }
            assertEquals(1.0, sum, tol * L, at + "beliefs of variable " + i + " sum to " + sum);
        }
        double[] pb = TestEngines.flat(mp.pairBeliefs());
        assertEquals((long) E * L * L, pb.length, at + "pair beliefs shape");
        for (int a = 0; a < E; a++) {
            double sum = 0;
            for (int k = 0; k < L * L; k++) {
                double x = pb[a * L * L + k];
                assertTrue(Double.isFinite(x) && x >= -tol && x <= 1 + tol, at + "belief b_edge" + a + "(" + k + ") = " + x);
                sum += x;
            }
            assertEquals(1.0, sum, tol * L * L, at + "beliefs of edge " + a + " sum to " + sum);
        }
        double[][][] m = TestEngines.messages(mp);
        for (int a = 0; a < E; a++) {
            for (int s = 0; s < 2; s++) {
                int v = s == 0 ? g.edgeFrom(a) : g.edgeTo(a);
                for (int y = 0; y < g.numLabels(v); y++) {
                    double x = m[a][s][y];
                    boolean ok = Double.isFinite(x) || (minusInfMessagesAllowed && x == Double.NEGATIVE_INFINITY);
                    assertTrue(ok, at + "message of edge " + a + " side " + s + " label " + y + " = " + x);
                }
                for (int y = g.numLabels(v); y < L; y++) assertTrue(!Double.isNaN(m[a][s][y]) && m[a][s][y] != Double.POSITIVE_INFINITY, at + "padding message");
            }
        }
        double[] in = TestEngines.flat(mp.incomingMessageSums());
        for (int i = 0; i < V; i++) {
            for (int y = 0; y < g.numLabels(i); y++) {
                double x = in[i * L + y];
                boolean ok = Double.isFinite(x) || (minusInfMessagesAllowed && x == Double.NEGATIVE_INFINITY);
                assertTrue(ok, at + "incoming sum " + i + "," + y + " = " + x);
            }
        }
        int[] y = mp.decode();
        assertEquals(V, y.length);
        for (int i = 0; i < V; i++) assertTrue(y[i] >= 0 && y[i] < g.numLabels(i), at + "decoded label " + y[i] + " of variable " + i);
        assertTrue(Arrays.stream(y).allMatch(v -> v >= 0), at);
    }
}
