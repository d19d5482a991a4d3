package org.structlr.experiment;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.structlr.data.Dataset;
import org.structlr.data.DenoisingGenerator;
import org.structlr.learn.IterationRecord;
import org.structlr.learn.LearnListener;
import org.structlr.learn.LearnSettings;
import org.structlr.model.ExampleBatch;
import org.structlr.model.Predictor;

/**
 * Every one of the 25 (unary, pairwise) pairs of {zero, const, linear, boost, mlp} of the paper's
 * Table 1 trains and predicts (CI-sized: one 8x8 training and one test image, short schedules).
 */
class AllPairsTest {
    static final List<String> KINDS = List.of("zero", "const", "linear", "boost", "mlp");
    static Dataset data;

    @BeforeAll
    static void data() {
        data = new DenoisingGenerator().generate(1, 1, 8, 8, 11);
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
        Experiment exp = new Experiment("denoise", data, new LearnSettings(2, 0.1, 3, 3, 5), 1);
        Experiment.PairResult r = exp.train(unary, pairwise, LearnListener.NONE);
        assertEquals(2, r.curve().size());
        for (IterationRecord it : r.curve()) {
            assertTrue(Double.isFinite(it.objective()), "objective " + it);
            assertTrue(it.trainError() >= 0 && it.trainError() <= 1, "train error " + it);
            assertTrue(it.testError() >= 0 && it.testError() <= 1, "test error " + it);
        }
        assertEquals(unary, r.outcome().model().settings().get("unary"));
        assertEquals(pairwise, r.outcome().model().settings().get("pairwise"));
        ExampleBatch test = new ExampleBatch(data.test(), 2, r.outcome().model().pairTypes());
        Predictor.Prediction p = Predictor.predict(r.outcome().model(), test, Predictor.defaultStop(test, 20, 1e-5));
        assertEquals(64, p.labels().length);
        for (int y : p.labels()) assertTrue(y == 0 || y == 1);
        double err = test.error(p.labels());
        assertTrue(err >= 0 && err <= 1);
        // every marginal is a distribution
        for (int i = 0; i < 64; i++) {
            double s = p.marginals().getDouble(i, 0) + p.marginals().getDouble(i, 1);
            assertEquals(1.0, s, 1e-4);
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
        double max = test.unaryPotentials(r.outcome().model().unary(), 0.1).amaxNumber().doubleValue();
        assertTrue(max < 100, "max |unary potential| " + max);
    }
}
