package org.structlr.learn;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.structlr.data.Dataset;
import org.structlr.data.Example;
import org.structlr.graph.FactorGraph;
import org.structlr.model.CrfModel;
import org.structlr.model.ExampleBatch;
import org.structlr.model.RegionLayout;
import org.structlr.oracle.BiasedLogisticProblem;
import org.structlr.oracle.FunctionSpec;
import org.structlr.oracle.Oracle;
import org.structlr.oracle.ScoreFunction;

/**
 * Region factors with row weights and void labels: a region row of m variables carries the mean of
 * their class weights (times the example's weight), so a class weight is copies of rows, as for pairs;
 * an example of weight k learns what k copies learn; with void labels in the simple form a region
 * touching a void variable adds nothing (a void pixel's features change nothing); in the clamped form
 * every region is a row fitted to the clamped region beliefs, and without void it learns what full
 * labels learn.
 */
class RegionWeightsAndVoidTest {
    static final LearnSettings SETTINGS = new LearnSettings(3, 0.1, 4, 4, 1, 3L);

    static List<Example> images(int n, long seed) {
        return RegionGrids.rowColumnXor(n, 4, 5, 0.6, new Random(seed));
    }

    static Training.Outcome train(Dataset d, RegionLayout regions, RowWeights w, LearnSettings s) {
        return Training.train(d, FunctionSpec.unary("linear"), FunctionSpec.pairwise("linear"), regions, s, w, 1, LearnListener.NONE, null, StateSink.NONE);
    }

    /** The scores of every function of a model (unary, each pairwise type, each region type) on fixed random rows. */
    static double[] scores(CrfModel m, RegionLayout regions) {
        Random rnd = new Random(9);
        List<Double> out = new ArrayList<>();
        List<ScoreFunction> fs = new ArrayList<>();
        fs.add(m.unary());
        fs.addAll(m.pair());
        fs.addAll(m.regions());
        int[] widths = new int[fs.size()];
        widths[0] = m.unaryFeatures();
        for (int t = 0; t < m.pair().size(); t++) widths[1 + t] = m.pairFeatures();
        for (int t = 0; t < m.regions().size(); t++) widths[1 + m.pair().size() + t] = regions.featureWidth(m.pairFeatures());
        for (int k = 0; k < fs.size(); k++) {
            float[] x = new float[10 * widths[k]];
            for (int i = 0; i < x.length; i++) x[i] = (float) rnd.nextGaussian();
            for (double v : fs.get(k).scores(Nd4j.create(x, new long[] {10, widths[k]}, 'c')).castTo(DataType.DOUBLE).data().asDouble()) out.add(v);
        }
        return out.stream().mapToDouble(Double::doubleValue).toArray();
    }

    /**
     * Class weights (1, 1 + m) on regions of m variables: a region with n1 variables of class 1 weighs
     * (m - n1 + (1 + m) n1) / m = 1 + n1, a whole number, so the weighted region problem is its rows
     * repeated 1 + n1 times: the linear fit of both is the same function and the mean loss the same.
     */
    @ParameterizedTest
    @ValueSource(strings = {"patches2x2", "triplets"})
    void aClassWeightOnRegionRowsIsCopiesOfThem(String layout) {
        RegionLayout regions = RegionLayout.of(layout);
        int m = regions.regionSize();
        ExampleBatch train = new ExampleBatch(images(2, 4), 2, Training.pairTypeNames(1), regions);
        RowWeights w = RowWeights.classes(1, 1 + m);
        int T = train.numPairTypes();
        try (BatchStates states = new BatchStates(train, Targets.of(train, w), null, 0.1, false)) {
            states.start(Functions.none(T, regions.numTypes()), null);
            states.iterate(5);   // messages that are not zero, so the biases differ row by row
            BiasedLogisticProblem weighted = states.problem(T);
            FactorGraph g = train.graph();
            int[] y = train.labels(), rs = g.regionsByType()[0];
            List<Integer> rows = new ArrayList<>();
            double mean = 0;
            int[] copies = new int[rs.length];
            for (int k = 0; k < rs.length; k++) {
                int n1 = 0;
                for (int p = 0; p < m; p++) n1 += y[g.regionVariable(rs[k], p)];
                copies[k] = 1 + n1;
                mean += copies[k] / (double) rs.length;
                for (int c = 0; c < copies[k]; c++) rows.add(k);
            }
            for (int k = 0; k < rs.length; k++) assertEquals(copies[k] / mean, weighted.targets().weight(k), 1e-12, "region row " + k + " (mean 1)");
            int[] at = rows.stream().mapToInt(Integer::intValue).toArray(), yy = new int[at.length];
            for (int k = 0; k < at.length; k++) yy[k] = weighted.targets().label(at[k]);
            BiasedLogisticProblem copied = new BiasedLogisticProblem(Nd4j.pullRows(weighted.features(), 1, at), yy,
                    Nd4j.pullRows(weighted.bias(), 1, at), regions.jointLabels(2));
            Oracle linear = FunctionSpec.pairwise("linear").create((int) weighted.features().size(1), 1, 1);
            ScoreFunction a = linear.fit(weighted, null), b = linear.fit(copied, null);
            INDArray probe = Nd4j.rand(DataType.FLOAT, 30, weighted.features().size(1));
            double[] sa = a.scores(probe).castTo(DataType.DOUBLE).data().asDouble(), sb = b.scores(probe).castTo(DataType.DOUBLE).data().asDouble();
            // the two fits stop at the optimiser's tolerance: the same function to 1e-3 (relative)
            for (int i = 0; i < sa.length; i++) assertEquals(sb[i], sa[i], 1e-3 * (1 + Math.abs(sb[i])), "the weighted region rows = the rows repeated, score " + i);
            // the same loss, exactly as a function: at any function both problems' mean losses agree
            assertEquals(copied.meanLoss(a), weighted.meanLoss(a), 1e-6 * copied.meanLoss(a), "the same mean loss at the weighted fit");
            assertEquals(copied.meanLoss(b), weighted.meanLoss(b), 1e-6 * copied.meanLoss(b), "the same mean loss at the copies' fit");
            // unweighted, the region rows all weigh 1: the weights above are the class weights' doing
            try (BatchStates plain = new BatchStates(train, Targets.of(train, RowWeights.NONE), null, 0.1, false)) {
                plain.start(Functions.none(T, regions.numTypes()), null);
                plain.iterate(5);
                assertEquals(1.0, plain.problem(T).targets().weight(0), 0.0);
            }
        }
    }

    /** Example weight 3 with patches = the example three times: the same functions (every type) and test errors; and not the unweighted ones. */
    @ParameterizedTest
    @ValueSource(strings = {"patches2x2"})
    void anExampleOfWeightKLearnsWhatKCopiesLearn(String layout) {
        RegionLayout regions = RegionLayout.of(layout);
        List<Example> train = images(3, 6), test = images(1, 7);
        List<Example> copies = new ArrayList<>(train);
        copies.add(train.get(0));
        copies.add(train.get(0));
        Training.Outcome weighted = train(RegionGrids.dataset(train, test), regions, RowWeights.NONE.withExamples(new double[] {3, 1, 1}), SETTINGS);
        Training.Outcome copied = train(RegionGrids.dataset(copies, test), regions, RowWeights.NONE, SETTINGS);
        Training.Outcome plain = train(RegionGrids.dataset(train, test), regions, RowWeights.NONE, SETTINGS);
        double[] a = scores(weighted.model(), regions), b = scores(copied.model(), regions), c = scores(plain.model(), regions);
        for (int i = 0; i < a.length; i++) assertEquals(b[i], a[i], 1e-4 * (1 + Math.abs(b[i])), "score " + i + " as with 3 copies");
        double differs = 0;
        for (int i = 0; i < a.length; i++) differs = Math.max(differs, Math.abs(a[i] - c[i]));
        assertTrue(differs > 1e-3, "the weight changes what is learned (else the test could not fail): " + differs);
        for (int k = 0; k < weighted.curve().size(); k++) {
            assertEquals(copied.curve().get(k).testError(), weighted.curve().get(k).testError(), 0.0, "test error, row " + k);
        }
        assertEquals(List.of(3.0, 1.0, 1.0), ((java.util.Map<?, ?>) weighted.model().settings().get("weights")).get("exampleWeights"));
    }

    /** The images with every variable where {@code mask} is true void, and the unary features of the void variables set to {@code value}. */
    static List<Example> withVoid(List<Example> images, Random mask, float value) {
        List<Example> out = new ArrayList<>();
        for (Example e : images) {
            int[] y = e.labels();
            float[] x = e.unary();
            for (int v = 0; v < y.length; v++) {
                if (mask.nextDouble() < 0.3) {
                    y[v] = Example.VOID;
                    if (!Float.isNaN(value)) x[2 * v + 1] = value;
                }
            }
            out.add(Example.builder(x, 2, e.edges(), e.pairwise(), 1).labels(y).numLabels(2).shape(4, 5).build());
        }
        return out;
    }

    /**
     * Simple form: a region touching a void variable has no row, no term and zero potentials in
     * training, so a void pixel's features change nothing (every curve row and every function exactly),
     * while the void labels do change the run (against full labels); its region problem has only the
     * regions whose variables are all labelled.
     */
    @ParameterizedTest
    @ValueSource(strings = {"patches2x2", "triplets"})
    void simpleFormVoidPixelsFeaturesChangeNothing(String layout) {
        RegionLayout regions = RegionLayout.of(layout);
        List<Example> train = images(3, 8), test = images(1, 9);
        LearnSettings simple = SETTINGS.withVoidForm(VoidForm.SIMPLE);
        Dataset a = RegionGrids.dataset(withVoid(train, new Random(2), Float.NaN), test);
        Dataset b = RegionGrids.dataset(withVoid(train, new Random(2), 7.5f), test);
        Training.Outcome oa = train(a, regions, RowWeights.NONE, simple), ob = train(b, regions, RowWeights.NONE, simple);
        Training.Outcome full = train(RegionGrids.dataset(train, test), regions, RowWeights.NONE, simple);
        for (int k = 0; k < oa.curve().size(); k++) {
            assertEquals(oa.curve().get(k).objective(), ob.curve().get(k).objective(), 0.0, "objective, row " + k);
            assertEquals(oa.curve().get(k).testError(), ob.curve().get(k).testError(), 0.0, "test error, row " + k);
        }
        assertArrayEquals(scores(oa.model(), regions), scores(ob.model(), regions), 0.0, "the functions learned");
        assertNotEquals(full.curve().get(2).objective(), oa.curve().get(2).objective(), "void labels change nothing: the test could not fail");

        ExampleBatch batch = new ExampleBatch(a.train(), 2, Training.pairTypeNames(1), regions);
        FactorGraph g = batch.graph();
        int[] y = batch.labels();
        int labelled = 0;
        for (int r : g.regionsByType()[0]) {
            boolean all = true;
            for (int p = 0; p < g.regionSize(r); p++) all &= y[g.regionVariable(r, p)] != Example.VOID;
            if (all) labelled++;
        }
        assertTrue(labelled > 0 && labelled < g.regionsByType()[0].length, "some regions touch void, some do not: " + labelled);
        try (BatchStates states = new BatchStates(batch, Targets.of(batch, RowWeights.NONE, VoidForm.SIMPLE), null, 0.1, false)) {
            states.start(Functions.none(1, regions.numTypes()), null);
            states.iterate(3);
            assertEquals(labelled, states.problem(1).numRows(), "the rows of the regions whose variables are all labelled");
        }
    }

    /**
     * Simple form, the reduction the oracle step rests on: with the messages fixed, R minus eps times the
     * labelled rows' biased logistic losses (unary, pairs, regions whose variables are all labelled) does not
     * depend on the functions, so the oracle step on those rows minimises R; checked at two random sets of
     * functions with void variables, for both layouts (a region touching void that kept its potential would
     * add a term of its function that no row has).
     */
    @ParameterizedTest
    @ValueSource(strings = {"patches2x2", "triplets"})
    void simpleFormRIsTheLabelledRowsLossesPlusAConstant(String layout) {
        RegionLayout regions = RegionLayout.of(layout);
        Random rnd = new Random(12);
        List<Example> ex = new ArrayList<>();
        for (int k = 0; k < 2; k++) {
            Example e = RegionTrainingTest.randomImage(3, 4, 3, rnd);
            int[] y = e.labels();
            y[1] = Example.VOID;
            y[6 + k] = Example.VOID;
            ex.add(Example.builder(e.unary(), 3, e.edges(), e.pairwise(), 2).labels(y).numLabels(3).shape(3, 4).build());
        }
        ExampleBatch b = new ExampleBatch(ex, 3, List.of("pairwise"), regions);
        double eps = 0.3;
        try (BatchStates states = new BatchStates(b, Targets.of(b, RowWeights.NONE, VoidForm.SIMPLE), null, eps, false)) {
            states.start(Functions.none(1, regions.numTypes()), null);
            states.iterate(3);
            double[] d = new double[2];
            for (int trial = 0; trial < 2; trial++) {
                Functions f = Functions.none(1, regions.numTypes());
                for (int type = Functions.UNARY; type < 1 + regions.numTypes(); type++) {
                    BiasedLogisticProblem p = states.problem(type);
                    float[] noise = new float[p.numRows() * p.numClasses()];
                    for (int i = 0; i < noise.length; i++) noise[i] = (float) (2 * rnd.nextGaussian());
                    f = f.with(type, new org.structlr.oracle.linear.LinearOracle().fit(new BiasedLogisticProblem(p.features(), p.labels(),
                            Nd4j.create(noise, new long[] {p.numRows(), p.numClasses()}, 'c'), p.numClasses()), null));
                }
                states.setFunctions(f);
                double rows = 0;
                for (int type = Functions.UNARY; type < 1 + regions.numTypes(); type++) {
                    BiasedLogisticProblem p = states.problem(type);
                    rows += p.loss(f.get(type));
                }
                d[trial] = states.objective() - eps * rows;
            }
            assertEquals(d[0], d[1], 2e-4 * Math.max(1, Math.abs(d[0])), layout + ": R - eps * rows changed with the functions");
        }
    }

    /**
     * Clamped form: without void it learns what full labels learn (A(theta | y) = F(x, y)): objectives
     * within 1e-5 relative, the same test errors, the same functions within 1e-4; with void every region is
     * a row with soft targets (the clamped region beliefs).
     */
    @ParameterizedTest
    @ValueSource(strings = {"patches2x2", "triplets"})
    void clampedFormWithRegions(String layout) {
        RegionLayout regions = RegionLayout.of(layout);
        Dataset d = RegionGrids.dataset(images(2, 10), images(1, 11));
        List<String> types = Training.pairTypeNames(1);
        ExampleBatch train = new ExampleBatch(d.train(), 2, types, regions), test = new ExampleBatch(d.test(), 2, types, regions);
        Targets clamped = Targets.clampedEvenWithoutVoid(train, RowWeights.NONE);
        assertTrue(clamped.clamps());
        AlternatingLearner.Result full = learn(d, train, test, Targets.of(train), regions), c = learn(d, train, test, clamped, regions);
        for (int k = 0; k < full.curve().size(); k++) {
            double a = full.curve().get(k).objective(), b = c.curve().get(k).objective();
            assertEquals(a, b, 1e-5 * Math.abs(a), "objective, row " + k + ": A(theta | y) = F(x, y) with every label observed");
            assertEquals(full.curve().get(k).testError(), c.curve().get(k).testError(), 0.0, "test error, row " + k);
        }
        INDArray probe = Nd4j.rand(DataType.FLOAT, 20, regions.featureWidth(1));
        assertArrayEquals(full.regions().get(0).scores(probe).castTo(DataType.DOUBLE).data().asDouble(),
                c.regions().get(0).scores(probe).castTo(DataType.DOUBLE).data().asDouble(), 1e-4, "the region function");

        ExampleBatch voided = new ExampleBatch(withVoid(d.train(), new Random(3), Float.NaN), 2, types, regions);
        try (BatchStates states = new BatchStates(voided, Targets.of(voided, RowWeights.NONE, VoidForm.CLAMPED), null, 0.1, false)) {
            states.start(Functions.none(1, regions.numTypes()), null);
            states.iterate(5);
            BiasedLogisticProblem p = states.problem(1);
            assertEquals(voided.graph().regionsByType()[0].length, p.numRows(), "every region is a row");
            assertFalse(p.targets().hard());
            assertTrue(Double.isFinite(states.objective()));
        }
    }

    private static AlternatingLearner.Result learn(Dataset d, ExampleBatch train, ExampleBatch test, Targets truth, RegionLayout regions) {
        try (Oracles o = Oracles.create(d.summary(), FunctionSpec.unary("linear"), FunctionSpec.pairwise("linear"), regions, SETTINGS, 1);
             BatchStates states = new BatchStates(train, truth, test, SETTINGS.eps(), true)) {
            return new AlternatingLearner(SETTINGS, o.unary(), o.pair(), o.regions()).train(states, null, LearnListener.NONE, StateSink.NONE);
        }
    }
}
