package org.structlr.learn;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.structlr.data.Dataset;
import org.structlr.data.DenoisingGenerator;
import org.structlr.data.Example;
import org.structlr.metrics.ConfusionMatrix;
import org.structlr.metrics.Evaluation;
import org.structlr.model.CrfModel;
import org.structlr.model.ExampleBatch;
import org.structlr.oracle.BiasedLogisticProblem;
import org.structlr.oracle.FunctionSpec;
import org.structlr.oracle.Oracle;
import org.structlr.oracle.ScoreFunction;

/**
 * Class and example weights on the oracle rows ({@link RowWeights}): an example of weight k learns
 * what k copies of it learn (linear, const, a user's class); a class weight k on the unary rows is k copies of that class's rows;
 * the pairwise rows carry the mean of their ends' class weights; balanced weights on an imbalanced
 * set raise the rare class's IoU against the unweighted run; the weights are recorded in the model.
 */
class WeightedLearningTest {
    static final LearnSettings SETTINGS = new LearnSettings(4, 0.1, 10, 10, 1, 3, "paper");

    static double[] scores(CrfModel m, INDArray unaryRows, INDArray pairRows) {
        double[] u = m.unary().scores(unaryRows).castTo(DataType.DOUBLE).data().asDouble();
        double[] p = m.pair().get(0).scores(pairRows).castTo(DataType.DOUBLE).data().asDouble();
        double[] out = new double[u.length + p.length];
        System.arraycopy(u, 0, out, 0, u.length);
        System.arraycopy(p, 0, out, u.length, p.length);
        return out;
    }

    @Test
    void exampleWeightKLearnsWhatKCopiesLearn() {
        Dataset d = new DenoisingGenerator(3, false).generate(3, 2, 12, 12, 7);
        List<Example> copies = new ArrayList<>(d.train());
        copies.add(d.train().get(0));
        copies.add(d.train().get(0));
        Dataset copied = Dataset.of(copies, d.test(), List.of());
        INDArray probeU = Nd4j.rand(DataType.FLOAT, 20, 2), probeP = Nd4j.rand(DataType.FLOAT, 20, 2);
        // the built-in classes whose fit is exact, and a user's class (test sources, registered like any other) through the oracle interface
        for (String kind : List.of("linear", "const", org.structlr.extension.GdLinearClass.NAME)) {
            FunctionSpec u = FunctionSpec.unary(kind), p = FunctionSpec.pairwise("linear");
            Training.Outcome weighted = Training.train(d, u, p, SETTINGS, RowWeights.NONE.withExamples(new double[] {3, 1, 1}), 1,
                    LearnListener.NONE, null, StateSink.NONE);
            Training.Outcome copied3 = Training.train(copied, u, p, SETTINGS, 1, LearnListener.NONE);
            Training.Outcome plain = Training.train(d, u, p, SETTINGS, 1, LearnListener.NONE);
            double[] a = scores(weighted.model(), probeU, probeP), b = scores(copied3.model(), probeU, probeP), c = scores(plain.model(), probeU, probeP);
            for (int i = 0; i < a.length; i++) assertEquals(b[i], a[i], 1e-4 * (1 + Math.abs(b[i])), kind + ": score " + i + " as with 3 copies");
            double differs = 0;
            for (int i = 0; i < a.length; i++) differs = Math.max(differs, Math.abs(a[i] - c[i]));
            assertTrue(differs > 1e-3, kind + ": the weight changes what is learned (else the test could not fail): " + differs);
            for (int k = 0; k < weighted.curve().size(); k++) {
                assertEquals(copied3.curve().get(k).testError(), weighted.curve().get(k).testError(), 0.0, kind + ": test error, row " + k);
            }
        }
    }

    @Test
    void classWeightKIsKCopiesOfTheClassRows() {
        Dataset d = new DenoisingGenerator(3, false).generate(2, 0, 10, 10, 5);
        ExampleBatch train = new ExampleBatch(d.train(), 2, Training.pairTypeNames(1));
        RowWeights w = RowWeights.classes(1, 3);
        try (BatchStates states = new BatchStates(train, Targets.of(train, w), null, 0.1, false)) {
            states.start(Functions.none(1), null);
            states.iterate(5);   // messages that are not zero, so the biases differ row by row
            BiasedLogisticProblem weighted = states.problem(Functions.UNARY);
            int[] y = train.labels();
            // the same rows, those of class 1 three times, unweighted
            List<Integer> rows = new ArrayList<>();
            for (int v = 0; v < y.length; v++) for (int r = 0; r < (y[v] == 1 ? 3 : 1); r++) rows.add(v);
            int[] at = rows.stream().mapToInt(Integer::intValue).toArray();
            int[] yy = new int[at.length];
            for (int k = 0; k < at.length; k++) yy[k] = y[at[k]];
            BiasedLogisticProblem copies = new BiasedLogisticProblem(Nd4j.pullRows(weighted.features(), 1, at), yy,
                    Nd4j.pullRows(weighted.bias(), 1, at), 2);
            double mean = 0;
            for (int v = 0; v < y.length; v++) mean += (y[v] == 1 ? 3.0 : 1.0) / y.length;
            for (int v = 0; v < y.length; v++) assertEquals((y[v] == 1 ? 3.0 : 1.0) / mean, weighted.targets().weight(v), 1e-12, "row " + v + " (mean 1)");
            Oracle linear = FunctionSpec.unary("linear").create(2, 1, 1);
            ScoreFunction a = linear.fit(weighted, null), b = linear.fit(copies, null);
            INDArray probe = Nd4j.rand(DataType.FLOAT, 30, 2);
            assertArrayEquals(b.scores(probe).castTo(DataType.DOUBLE).data().asDouble(), a.scores(probe).castTo(DataType.DOUBLE).data().asDouble(), 1e-4,
                    "class weight 3 = the class's rows three times");
            assertEquals(copies.meanLoss(a), weighted.meanLoss(a), 1e-6 * copies.meanLoss(a), "the same mean loss");
            // pairwise rows: the mean of the two ends' class weights
            BiasedLogisticProblem pair = states.problem(0);
            int[] edges = train.edgesOfType(0);
            double pairMean = 0;
            for (int e : edges) pairMean += (w.classWeights(y, 2)[y[train.graph().edgeFrom(e)]] + w.classWeights(y, 2)[y[train.graph().edgeTo(e)]]) / 2 / edges.length;
            for (int k = 0; k < edges.length; k++) {
                int e = edges[k];
                double expected = (w.classWeights(y, 2)[y[train.graph().edgeFrom(e)]] + w.classWeights(y, 2)[y[train.graph().edgeTo(e)]]) / 2;
                assertEquals(expected / pairMean, pair.targets().weight(k), 1e-12, "edge " + e + " (mean 1)");
            }
        }
    }

    /** A set whose class 1 is a small square (about 6% of the pixels) seen through noisy unary features. */
    static Dataset imbalanced(int nTrain, int nTest, long seed) {
        SplittableRandom rng = new SplittableRandom(seed);
        List<Example> train = new ArrayList<>(), test = new ArrayList<>();
        for (int k = 0; k < nTrain + nTest; k++) {
            int h = 20, w = 20, s = 5, r0 = rng.nextInt(h - s), c0 = rng.nextInt(w - s);
            Example base = new DenoisingGenerator(2, false).image(h, w, rng.split());
            int[] y = new int[h * w];
            float[] u = base.unary();
            for (int r = 0; r < h; r++) {
                for (int c = 0; c < w; c++) {
                    int v = r * w + c;
                    y[v] = r >= r0 && r < r0 + s && c >= c0 && c < c0 + s ? 1 : 0;
                    u[2 * v + 1] = (float) (y[v] == 0 ? 0.9 * rng.nextDouble() : 0.2 + 0.8 * rng.nextDouble());
                }
            }
            float[] p = base.pairwise();
            int[] edges = base.edges();
            for (int e = 0; e < base.numEdges(); e++) {
                boolean same = y[edges[2 * e]] == y[edges[2 * e + 1]];
                p[2 * e + 1] = (float) (same ? 0.8 * rng.nextDouble() : 0.2 + 0.8 * rng.nextDouble());
            }
            Example ex = Example.builder(u, 2, edges, p, 2).labels(y).numLabels(2).shape(h, w).build();
            (k < nTrain ? train : test).add(ex);
        }
        return Dataset.of(train, test, List.of());
    }

    @Test
    void balancedWeightsRaiseTheRareClassIou() {
        Dataset d = imbalanced(6, 6, 3);
        LearnSettings s = new LearnSettings(6, 0.1, 10, 0, 1, 3, "paper");
        Training.Outcome plain = Training.train(d, FunctionSpec.unary("linear"), FunctionSpec.pairwise("linear"), s, RowWeights.NONE, 1,
                LearnListener.NONE, null, StateSink.NONE);
        Training.Outcome balanced = Training.train(d, FunctionSpec.unary("linear"), FunctionSpec.pairwise("linear"), s,
                RowWeights.classes(RowWeights.BALANCED), 1, LearnListener.NONE, null, StateSink.NONE);
        ConfusionMatrix a = Evaluation.confusion(plain.model(), d.test(), 200, 1e-5), b = Evaluation.confusion(balanced.model(), d.test(), 200, 1e-5);
        System.out.printf("rare class IoU: unweighted %.4f, balanced %.4f; mean IoU %.4f -> %.4f%n", a.iou(1), b.iou(1), a.meanIou(), b.meanIou());
        assertTrue(b.iou(1) > a.iou(1) + 0.05, "balanced: rare-class IoU " + b.iou(1) + " vs unweighted " + a.iou(1));
        @SuppressWarnings("unchecked")
        Map<String, Object> recorded = (Map<String, Object>) balanced.model().settings().get("weights");
        assertEquals(RowWeights.BALANCED, recorded.get("classWeightsGiven"));
        assertTrue(!plain.model().settings().containsKey("weights"), "no weights: nothing recorded");
    }

    @Test
    void theJavaBuilderTakesTheWeights(@org.junit.jupiter.api.io.TempDir java.nio.file.Path tmp) throws java.io.IOException {
        new DenoisingGenerator(3, false).generateTo(tmp, 2, 1, 8, 8, 2);
        org.structlr.api.Crf crf = org.structlr.api.CrfTrainer.builder().iterations(2).sweeps(3).evalSweeps(0).classWeights("2,1")
                .exampleWeights(1, 3).build().train(org.structlr.api.CrfData.read(tmp));
        @SuppressWarnings("unchecked")
        Map<String, Object> w = (Map<String, Object>) crf.settings().get("weights");
        assertEquals(List.of(2.0, 1.0), w.get("classWeights"));
        assertEquals(List.of(1.0, 3.0), w.get("exampleWeights"));
    }

    @Test
    void balancedIsNOverKTimesTheClassCount() {
        int[] y = {0, 0, 0, 1, Example.VOID, 0, 2, 2};
        double[] c = RowWeights.classes(RowWeights.BALANCED).classWeights(y, 4);
        // 7 labelled, 3 classes present: 7 / (3 * count)
        assertArrayEquals(new double[] {7.0 / 12, 7.0 / 3, 7.0 / 6, 1}, c, 1e-12);
        assertArrayEquals(new double[] {1, 1, 1, 1}, RowWeights.NONE.classWeights(y, 4), 0.0);
    }

    @Test
    void badWeightsAreRefusedWithTheReason() {
        assertTrue(assertThrows(IllegalArgumentException.class, () -> RowWeights.classes("1,x")).getMessage().contains("'x' is not a number"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> RowWeights.classes("1,-2")).getMessage().contains("class 1"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> RowWeights.classes("0,0")).getMessage().contains("is 0"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> RowWeights.classes("1,2,3").checkLabels(2)).getMessage()
                .contains("3 class weights for 2 labels"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> RowWeights.NONE.withExamples(new double[] {1, Double.NaN}))
                .getMessage().contains("example 1"));
        Dataset d = new DenoisingGenerator(3, false).generate(2, 0, 6, 6, 1);
        assertThrows(org.structlr.data.BadInputException.class, () -> Training.train(d, FunctionSpec.unary("linear"), FunctionSpec.pairwise("linear"),
                SETTINGS, RowWeights.NONE.withExamples(new double[] {1, 1, 1}), 1, LearnListener.NONE, null, StateSink.NONE));
    }
}
