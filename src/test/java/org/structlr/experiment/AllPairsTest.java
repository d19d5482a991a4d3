package org.structlr.experiment;

import org.structlr.model.Potentials;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.structlr.data.Dataset;
import org.structlr.data.DenoisingGenerator;
import org.structlr.data.Example;
import org.structlr.learn.IterationRecord;
import org.structlr.learn.LearnListener;
import org.structlr.learn.LearnSettings;
import org.structlr.model.ExampleBatch;
import org.structlr.model.Predictor;

/**
 * Every one of the 25 (unary, pairwise) pairs of {zero, const, linear, boost, mlp} of the paper's
 * Table 1 trains and predicts (CI-sized: two 16x16 training images and one test image, 5 iterations).
 * The pairs must learn, against the unary-only baseline computed here: the error of the best rule
 * that looks at each pixel's unary feature alone (the generator's Bayes rule, threshold 0.5), on the
 * same images:
 * <ul>
 *   <li>unary linear, boost or mlp with pairwise const, linear or boost: training error below the
 *       baseline on the training images; with const or linear pairwise also test error below the
 *       baseline on the test image (boosted pairwise trees overfit two 16x16 images: measured test
 *       error 0.31-0.45 at training error 0.06-0.21);</li>
 *   <li>mlp pairwise: the paper's SGD (step 0.05) needs more iterations than a unit test affords
 *       (measured here: training error 0.36-0.45 after 5 and 10 iterations), so these pairs must lower
 *       the objective R; the README's tables show them learning at full size.</li>
 * </ul>
 */
public class AllPairsTest {
    static final List<String> KINDS = List.of("zero", "const", "linear", "boost", "mlp");
    static final Set<String> FEATURE_UNARY = Set.of("linear", "boost", "mlp");
    static final Set<String> LEARNING_PAIRWISE = Set.of("const", "linear", "boost");
    static final int SIZE = 16, ITERATIONS = 5;
    static Dataset data;
    static double trainBaseline, testBaseline;

    @BeforeAll
    static void data() {
        data = new DenoisingGenerator().generate(2, 1, SIZE, SIZE, 11);
        trainBaseline = unaryOnlyError(data.train());
        testBaseline = unaryOnlyError(data.test());
        assertTrue(trainBaseline > 0.3 && testBaseline > 0.3, "the unary feature alone is a poor guide: " + trainBaseline + ", " + testBaseline);
    }

    /** phi_i ~ U[0, 0.9] for y = 0 and U[0.1, 1] for y = 1: per pixel, the best rule is a threshold at 0.5. */
    public static double unaryOnlyError(List<Example> examples) {
        int wrong = 0, n = 0;
        for (Example ex : examples) {
            for (int i = 0; i < ex.numVariables(); i++) {
                if ((ex.unary(i, 1) > 0.5f ? 1 : 0) != ex.label(i)) wrong++;
                n++;
            }
        }
        return (double) wrong / n;
    }

    static Stream<Arguments> pairs() {
        List<Arguments> a = new ArrayList<>();
        for (String u : KINDS) for (String p : KINDS) a.add(Arguments.of(u, p));
        assertEquals(25, a.size());
        return a.stream();
    }

    @ParameterizedTest(name = "{0}/{1}")
    @MethodSource("pairs")
    void trainsAndPredicts(String unary, String pairwise) {
        Experiment exp = new Experiment("denoise", data, new LearnSettings(ITERATIONS, 0.1, 10, 10, 5), 1);
        Experiment.PairResult r = exp.train(unary, pairwise, LearnListener.NONE);
        assertEquals(ITERATIONS, r.curve().size());
        for (IterationRecord it : r.curve()) assertTrue(Double.isFinite(it.objective()), "objective " + it);
        assertEquals(unary, r.outcome().model().settings().get("unary"));
        assertEquals(pairwise, r.outcome().model().settings().get("pairwise"));
        ExampleBatch test = new ExampleBatch(data.test(), 2, r.outcome().model().pairTypes());
        Predictor.Prediction p = Predictor.predict(r.outcome().model(), test, Predictor.defaultStop(test, 100, 1e-5));
        assertEquals(SIZE * SIZE, p.labels().length);
        double err = Potentials.error(test, p.labels());
        IterationRecord first = r.curve().get(0), last = r.curve().get(ITERATIONS - 1);
        String pair = unary + "/" + pairwise;
        System.out.printf("allpairs %s: test error %.4f (baseline %.4f), train error %.4f (baseline %.4f), R %.4f -> %.4f%n",
                pair, err, testBaseline, last.trainError(), trainBaseline, first.objective(), last.objective());
        if (FEATURE_UNARY.contains(unary) && LEARNING_PAIRWISE.contains(pairwise)) {
            assertTrue(last.trainError() < trainBaseline, pair + ": training error " + last.trainError()
                    + " is not below the unary-only baseline " + trainBaseline);
            if (!pairwise.equals("boost")) {
                assertTrue(err < testBaseline, pair + ": test error " + err + " is not below the unary-only baseline " + testBaseline);
            }
        }
        if (pairwise.equals("mlp")) {
            assertTrue(last.objective() < first.objective(), pair + ": the objective did not go down: " + r.curve());
        }
        if (unary.equals("zero") && pairwise.equals("zero")) {
            // nothing learned: every marginal is exactly uniform
            for (int i = 0; i < SIZE * SIZE; i++) assertEquals(0.5, p.marginals().getDouble(i, 1), 1e-6);
        }
    }

    /**
     * The first boosted fit of a unary type sees rows whose loss-augmented bias (Delta / eps = 10)
     * makes the true label's probability about 4.5e-5; without a trust region the Newton leaf was
     * ~2,800 (g units) and later rounds reached ~1e15, where the float engine's beliefs break.
     * BoostOracle.MAX_DELTA_STEP bounds it.
     */
    @org.junit.jupiter.api.Test
    void boostedUnaryPotentialsStayModerate() {
        Experiment exp = new Experiment("denoise", data, new LearnSettings(2, 0.1, 3, 3, 5), 1);
        Experiment.PairResult r = exp.train("boost", "zero", LearnListener.NONE);
        ExampleBatch test = new ExampleBatch(data.test(), 2, r.outcome().model().pairTypes());
        double max = Potentials.unary(test, r.outcome().model().unary(), 0.1).amaxNumber().doubleValue();
        assertTrue(max < 100, "max |unary potential| " + max);
    }
}
