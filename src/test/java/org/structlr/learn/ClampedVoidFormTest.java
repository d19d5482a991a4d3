package org.structlr.learn;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.structlr.data.Dataset;
import org.structlr.data.DenoisingGenerator;
import org.structlr.data.Example;
import org.structlr.inference.MessagePassing;
import org.structlr.model.ExampleBatch;
import org.structlr.model.Potentials;
import org.structlr.oracle.BiasedLogisticProblem;
import org.structlr.oracle.FunctionSpec;
import org.structlr.oracle.Oracle;
import org.structlr.oracle.ParametricScore;
import org.structlr.oracle.RowTargets;
import org.structlr.oracle.ScoreFunction;

/**
 * The clamped void form (ClampedRows): without void it is the full-label loss; its oracle gradient
 * is the gradient of A(theta + Delta) - A(theta | observed labels) (finite differences of the
 * converged duals); unlike the simple form the void variables' features do train; a weighted soft
 * row is the weighted hard rows it stands for.
 */
class ClampedVoidFormTest {
    private static final double EPS = 0.1;

    private static AlternatingLearner.Result learn(Dataset d, ExampleBatch train, ExampleBatch test, Targets truth, LearnSettings s) {
        try (Oracles o = Oracles.create(d.summary(), FunctionSpec.unary("linear"), FunctionSpec.pairwise("linear"), s, 1);
             BatchStates states = new BatchStates(train, truth, test, s.eps(), true)) {
            return new AlternatingLearner(s, o.unary(), o.pair()).train(states, null, LearnListener.NONE, StateSink.NONE);
        }
    }

    @Test
    void withoutVoidTheClampedFormLearnsWhatFullLabelsLearn() {
        Dataset d = new DenoisingGenerator().generate(2, 1, 12, 12, 5);
        List<String> types = Training.pairTypeNames(d.numPairTypes());
        ExampleBatch train = new ExampleBatch(d.train(), 2, types), test = new ExampleBatch(d.test(), 2, types);
        LearnSettings s = new LearnSettings(4, EPS, 5, 5, 1, 3, "paper");
        Targets clamped = Targets.clampedEvenWithoutVoid(train, RowWeights.NONE);
        assertTrue(clamped.clamps(), "the clamped engine runs (else this compares a form with itself)");
        AlternatingLearner.Result full = learn(d, train, test, Targets.of(train), s), c = learn(d, train, test, clamped, s);
        assertEquals(full.curve().size(), c.curve().size());
        for (int k = 0; k < full.curve().size(); k++) {
            double a = full.curve().get(k).objective(), b = c.curve().get(k).objective();
            assertEquals(a, b, 1e-5 * Math.abs(a), "objective, row " + k + ": A(theta | y) = F(x, y) with every label observed");
            assertEquals(full.curve().get(k).testError(), c.curve().get(k).testError(), 0.0, "test error, row " + k);
        }
        INDArray probeU = Nd4j.rand(DataType.FLOAT, 20, 2), probeP = Nd4j.rand(DataType.FLOAT, 20, 2);
        for (int t = 0; t < types.size(); t++) {
            double[] a = scores(full.unary(), full.pair().get(t), probeU, probeP), b = scores(c.unary(), c.pair().get(t), probeU, probeP);
            for (int i = 0; i < a.length; i++) assertEquals(a[i], b[i], 1e-4 * (1 + Math.abs(a[i])), "type " + t + ", score " + i);
        }
    }

    private static double[] scores(ScoreFunction u, ScoreFunction p, INDArray probeU, INDArray probeP) {
        double[] su = u.scores(probeU).castTo(DataType.DOUBLE).data().asDouble(), sp = p.scores(probeP).castTo(DataType.DOUBLE).data().asDouble();
        double[] out = new double[su.length + sp.length];
        System.arraycopy(su, 0, out, 0, su.length);
        System.arraycopy(sp, 0, out, su.length, sp.length);
        return out;
    }

    /** A chain of 5 variables, 3 labels, labels 2 ? ? 0 1: edges observed-void, void-void, void-observed, observed-observed. */
    private static ExampleBatch chain(long seed) {
        Random rnd = new Random(seed);
        int v = 5, e = 4;
        float[] u = new float[v * 2], p = new float[e * 2];
        for (int i = 0; i < v; i++) {
            u[2 * i] = 1;
            u[2 * i + 1] = rnd.nextFloat() * 2 - 1;
        }
        for (int a = 0; a < e; a++) {
            p[2 * a] = 1;
            p[2 * a + 1] = rnd.nextFloat();
        }
        Example x = Example.builder(u, 2, new int[] {0, 1, 1, 2, 2, 3, 3, 4}, p, 2).labels(new int[] {2, Example.VOID, Example.VOID, 0, 1})
                .numLabels(3).build();
        return new ExampleBatch(List.of(x), 3, Training.pairTypeNames(1));
    }

    /** A linear function of {@code width} features and {@code classes} classes with parameters {@code w} (D x C, row-major). */
    private static ScoreFunction linear(int width, int classes, double[] w, boolean unary) {
        Oracle o = (unary ? FunctionSpec.unary("linear") : FunctionSpec.pairwise("linear")).create(width, 1, 1);
        INDArray x = Nd4j.rand(DataType.FLOAT, classes, width);
        int[] y = new int[classes];
        for (int c = 0; c < classes; c++) y[c] = c;
        ScoreFunction f = o.fit(new BiasedLogisticProblem(x, y, Nd4j.zeros(DataType.FLOAT, classes, classes), classes), null);
        return ((ParametricScore) f).withParameters(w);
    }

    /** The converged smoothed dual of {@code b}'s graph at potentials (unary, pairwise). */
    private static double converged(ExampleBatch b, INDArray unary, INDArray pair) {
        try (MessagePassing mp = b.newEngine(EPS)) {
            mp.setPotentials(unary, pair);
            mp.iterate(3000);
            return mp.dual();
        }
    }

    /** l(W) = A(theta_W + Delta) - A(theta_W | observed labels), both duals converged on fresh engines. */
    private static double loss(ExampleBatch b, double[] wu, double[] wp) {
        INDArray tu = Potentials.unary(b, linear(2, 3, wu, true), EPS), tp = Potentials.pairwise(b, List.of(linear(2, 9, wp, false)), EPS);
        int[] y = b.labels();
        float[] clamp = new float[y.length * 3];
        for (int i = 0; i < y.length; i++) for (int c = 0; c < 3; c++) if (y[i] != Example.VOID && c != y[i]) clamp[i * 3 + c] = Float.NEGATIVE_INFINITY;
        return converged(b, tu.add(Potentials.hammingLoss(b)), tp) - converged(b, tu.add(Nd4j.create(clamp, new long[] {y.length, 3}, 'c')), tp);
    }

    /** d loss / d W of a problem at the function f: X^T (softmax(g + b) - T), row-major [D, C]. */
    private static double[] oracleGradient(BiasedLogisticProblem p, ScoreFunction f) {
        double[] x = BiasedLogisticProblem.flatDouble(p.features()), g = BiasedLogisticProblem.flatDouble(f.scores(p.features()));
        double[] bias = BiasedLogisticProblem.flatDouble(p.bias());
        int n = p.numRows(), dims = p.numFeatures(), c = p.numClasses();
        double[] grad = new double[dims * c];
        for (int i = 0; i < n; i++) {
            double max = Double.NEGATIVE_INFINITY, sum = 0;
            for (int k = 0; k < c; k++) max = Math.max(max, g[i * c + k] + bias[i * c + k]);
            double[] s = new double[c];
            for (int k = 0; k < c; k++) sum += s[k] = Math.exp(g[i * c + k] + bias[i * c + k] - max);
            for (int k = 0; k < c; k++) {
                double r = s[k] / sum - p.targets().target(i, k);
                for (int d = 0; d < dims; d++) grad[d * c + k] += x[i * dims + d] * r;
            }
        }
        return grad;
    }

    @Test
    void theOracleGradientIsTheGradientOfTheClampedLoss() {
        ExampleBatch b = chain(7);
        Random rnd = new Random(3);
        double[] wu = new double[2 * 3], wp = new double[2 * 9];
        for (int i = 0; i < wu.length; i++) wu[i] = rnd.nextGaussian() * 3;
        for (int i = 0; i < wp.length; i++) wp[i] = rnd.nextGaussian() * 3;
        ScoreFunction fu = linear(2, 3, wu, true), fp = linear(2, 9, wp, false);
        Targets truth = Targets.of(b, RowWeights.NONE, VoidForm.CLAMPED);
        assertTrue(truth.clamps());
        double[] gu, gp;
        try (BatchStates states = new BatchStates(b, truth, null, EPS, false)) {
            states.start(new Functions(fu, List.of(fp)), null);
            states.iterate(3000);
            // R at converged messages is the loss itself
            assertEquals(loss(b, wu, wp), states.objective(), 1e-4);
            BiasedLogisticProblem pu = states.problem(Functions.UNARY), pp = states.problem(0);
            assertEquals(5, pu.numRows(), "every variable is a row, void ones too");
            assertEquals(4, pp.numRows(), "every edge is a row");
            assertFalse(pu.targets().hard());
            gu = oracleGradient(pu, fu);
            gp = oracleGradient(pp, fp);
        }
        // d l / d W = eps * (the oracle's gradient in g = f / eps), by central differences of the converged duals
        double h = 1e-2, norm = 0;
        for (int k = 0; k < wu.length + wp.length; k++) {
            double[] up = wu.clone(), um = wu.clone(), pp = wp.clone(), pm = wp.clone();
            if (k < wu.length) {
                up[k] += h;
                um[k] -= h;
            } else {
                pp[k - wu.length] += h;
                pm[k - wu.length] -= h;
            }
            double fd = (loss(b, up, pp) - loss(b, um, pm)) / (2 * h);
            double analytic = EPS * (k < wu.length ? gu[k] : gp[k - wu.length]);
            assertEquals(fd, analytic, 2e-3 + 1e-2 * Math.abs(fd), "parameter " + k + (k < wu.length ? " (unary)" : " (pairwise)"));
            norm += Math.abs(analytic);
        }
        assertTrue(norm > 0.05, "a gradient that is not zero (else the test could not fail): " + norm);
    }

    @Test
    void voidVariablesFeaturesTrainInTheClampedFormOnly() {
        Dataset d = new DenoisingGenerator().generate(3, 2, 16, 16, 5);
        LearnSettings simple = new LearnSettings(3, EPS, 5, 5, 1, 3, "paper").withVoidForm(VoidForm.SIMPLE), clamped = simple.withVoidForm(VoidForm.CLAMPED);
        Dataset plain = VoidLabelsLearnerTest.partial(d, false), scrambled = VoidLabelsLearnerTest.partial(d, true);
        double s1 = Training.train(plain, "linear", "linear", simple, 1, LearnListener.NONE).curve().get(2).objective();
        double s2 = Training.train(scrambled, "linear", "linear", simple, 1, LearnListener.NONE).curve().get(2).objective();
        assertEquals(s1, s2, 0.0, "simple: the void variables' features change nothing");
        Training.Outcome c1 = Training.train(plain, "linear", "linear", clamped, 1, LearnListener.NONE);
        double c2 = Training.train(scrambled, "linear", "linear", clamped, 1, LearnListener.NONE).curve().get(2).objective();
        assertTrue(Math.abs(c1.curve().get(2).objective() - c2) > 1e-4, "clamped: the void variables' features are part of the loss");
        assertTrue(Math.abs(c1.curve().get(2).objective() - s1) > 1e-4, "the two forms are different losses");
        assertEquals("clamped", c1.model().settings().get("voidForm"), "the model records its void form");
    }

    @Test
    void aWeightedSoftRowIsItsWeightedHardRows() {
        ExampleBatch b = chain(11);
        RowWeights w = RowWeights.classes(1, 4, 0.5);
        Functions f = new Functions(linear(2, 3, new double[] {1, -1, 0.5, 0.2, 0.3, -0.7}, true), List.of(linear(2, 9, new double[18], false)));
        for (int type : new int[] {Functions.UNARY, 0}) {
            BiasedLogisticProblem weighted, soft;
            try (BatchStates a = new BatchStates(b, Targets.of(b, w, VoidForm.CLAMPED), null, EPS, false);
                 BatchStates c = new BatchStates(b, Targets.of(b, RowWeights.NONE, VoidForm.CLAMPED), null, EPS, false)) {
                for (BatchStates s : List.of(a, c)) {
                    s.start(f, null);
                    s.iterate(20);
                }
                weighted = a.problem(type);
                soft = c.problem(type);
            }
            int n = soft.numRows(), cc = soft.numClasses(), labels = 3;
            double[] cw = w.classWeights(b.labels(), labels);
            // one hard row per class k with weight c_k t(k) (edges: (c_i + c_j) / 2), scaled like the weighted problem (mean weight 1)
            double total = 0;
            for (int i = 0; i < n; i++) for (int k = 0; k < cc; k++) total += classWeight(cw, k, type, labels) * soft.targets().target(i, k);
            double scale = n / total;
            double[] rowWeights = new double[n * cc];
            int[] y = new int[n * cc];
            INDArray x = Nd4j.create(DataType.FLOAT, n * cc, soft.numFeatures()), bias = Nd4j.create(DataType.FLOAT, n * cc, cc);
            for (int i = 0; i < n; i++) {
                for (int k = 0; k < cc; k++) {
                    int r = i * cc + k;
                    y[r] = k;
                    rowWeights[r] = scale * classWeight(cw, k, type, labels) * soft.targets().target(i, k);
                    x.putRow(r, soft.features().getRow(i));
                    bias.putRow(r, soft.bias().getRow(i));
                }
            }
            BiasedLogisticProblem hard = new BiasedLogisticProblem(x, RowTargets.labels(y, cc).withWeights(rowWeights), bias);
            ScoreFunction g = f.get(type);
            assertEquals(hard.loss(g), weighted.loss(g), 1e-5 * hard.loss(g), (type == Functions.UNARY ? "unary" : "pairwise") + " loss");
            assertTrue(Math.abs(weighted.loss(g) - soft.loss(g)) > 1e-3, "the weights change the loss (else the test could not fail)");
        }
    }

    private static double classWeight(double[] c, int k, int type, int labels) {
        return type == Functions.UNARY ? c[k] : (c[k / labels] + c[k % labels]) / 2;
    }

    @Test
    void theClampedFormResumesFromACheckpointExactly(@org.junit.jupiter.api.io.TempDir java.nio.file.Path tmp) {
        Dataset d = VoidLabelsLearnerTest.partial(new DenoisingGenerator().generate(2, 1, 10, 10, 2), false);
        LearnSettings s = new LearnSettings(4, EPS, 3, 3, 1, 3, "paper").withVoidForm(VoidForm.CLAMPED);
        Training.Outcome plain = Training.train(d, "linear", "linear", s, 1, LearnListener.NONE);
        java.nio.file.Path ck = tmp.resolve("ck");
        Training.train(d, "linear", "linear", s, 1, LearnListener.NONE, null, new StateSink() {
            @Override public boolean wants(int iteration, int total) { return iteration == 2; }
            @Override public void accept(LearnerState st) throws java.io.IOException {
                new Checkpoint("linear", "linear", s, 1, DataHashes.dataHash(d), st).save(ck);
            }
        });
        Checkpoint cp = Checkpoint.load(ck);
        assertEquals(VoidForm.CLAMPED, cp.settings().voidForm(), "the checkpoint records the void form");
        assertTrue(cp.state().clamped() != null, "and the clamped engine's state");
        Training.Outcome resumed = Training.train(d, "linear", "linear", cp.settings(), 1, LearnListener.NONE, cp.state(), StateSink.NONE);
        assertEquals(plain.curve().size(), resumed.curve().size());
        for (int k = 0; k < plain.curve().size(); k++) {
            IterationRecord a = plain.curve().get(k), b = resumed.curve().get(k);
            assertEquals(a.objective(), b.objective(), 0.0, "clamped, resumed after iteration 2: objective, row " + k);
            assertEquals(a.trainError(), b.trainError(), 0.0, "train error, row " + k);
            assertEquals(a.testError(), b.testError(), 0.0, "test error, row " + k);
        }
        INDArray probeU = Nd4j.rand(DataType.FLOAT, 20, 2), probeP = Nd4j.rand(DataType.FLOAT, 20, 2);
        for (int t = 0; t < d.numPairTypes(); t++) {
            org.junit.jupiter.api.Assertions.assertArrayEquals(scores(plain.model().unary(), plain.model().pair().get(t), probeU, probeP),
                    scores(resumed.model().unary(), resumed.model().pair().get(t), probeU, probeP), 0.0, "the same functions");
        }
        LearnerState lacking = new LearnerState(2, cp.state().unary(), cp.state().pair(), cp.state().train(), cp.state().trainEval(),
                cp.state().testEval(), cp.state().curve(), 0, 0, 0, 0, cp.state().oracles());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> Training.train(d, "linear", "linear", s, 1, LearnListener.NONE, lacking, StateSink.NONE));
        assertTrue(e.getMessage().contains("clamped"), e.getMessage());
    }
}
