package org.structlr.learn;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.structlr.data.Dataset;
import org.structlr.data.DenoisingGenerator;
import org.structlr.inference.MessagePassing;
import org.structlr.model.ExampleBatch;
import org.structlr.model.Potentials;

/**
 * The learner's evaluation: each evaluated iteration's errors come from K sweeps continued from the
 * previous evaluation's messages (warm start), and by default K is a fifth of one iteration's
 * passing ({@link LearnSettings#evalSweepsFor}).
 */
class EvaluationTest {
    static Dataset data;

    @BeforeAll
    static void data() {
        data = new DenoisingGenerator().generate(3, 2, 12, 12, 5);
    }

    @Test
    void autoSweepsAreAFifthOfOneIterationsPassing() {
        LearnSettings auto = new LearnSettings(10, 0.1, 25, LearnSettings.AUTO_EVAL_SWEEPS, 2, 1);
        // 2 phases x 25 sweeps = 50 sweeps on V_train per iteration; a fifth = 10, on V_train + V_test
        assertEquals(5, auto.evalSweepsFor(1000, 1000));
        assertEquals(10, auto.evalSweepsFor(1000, 0));
        assertEquals(2, auto.evalSweepsFor(1000, 3000), "2.5 rounds down");
        assertEquals(1, auto.evalSweepsFor(1, 1_000_000), "at least one sweep");
        for (int every : new int[] {1, 7, 20}) assertEquals(5, auto.withEvalEvery(every).evalSweepsFor(1000, 1000), "evaluating every " + every);
        LearnSettings more = new LearnSettings(10, 0.1, 40, LearnSettings.AUTO_EVAL_SWEEPS, 2, 1);
        assertEquals(8, more.evalSweepsFor(1000, 1000), "2 x 40 x 1000 / (5 x 2000)");
        assertEquals(9, more.evalSweepsFor(3000, 2000), "2 x 40 x 3000 / (5 x 5000) = 9.6");
        LearnSettings fixed = new LearnSettings(10, 0.1, 25, 7, 2, 1);
        assertEquals(7, fixed.evalSweepsFor(1000, 1000), "a given count is used as given");
        assertEquals("auto", auto.evalSweepsRecorded());
        assertEquals(LearnSettings.AUTO_EVAL_SWEEPS, LearnSettings.evalSweepsOf(new com.fasterxml.jackson.databind.ObjectMapper().valueToTree("auto")));
    }

    /**
     * The curve's errors equal engines of our own that, at every evaluated iteration, take the
     * functions learned so far and run K more sweeps from where they stopped at the previous one;
     * with auto, K is what {@link LearnSettings#evalSweepsFor} gives for these sets. A cold start
     * per evaluation gives other errors (so the comparison can tell).
     */
    @Test
    void errorsComeFromKSweepsContinuedFromThePreviousEvaluation() {
        LearnSettings s = new LearnSettings(6, 0.1, 10, LearnSettings.AUTO_EVAL_SWEEPS, 2, 4);
        List<String> types = Training.pairTypeNames(data.numPairTypes());
        ExampleBatch train = new ExampleBatch(data.train(), data.numLabels(), types);
        ExampleBatch test = new ExampleBatch(data.test(), data.numLabels(), types);
        int k = s.evalSweepsFor(train.graph().numVariables(), test.graph().numVariables());
        assertEquals(2, k, "2 phases x 10 sweeps on 3 images = 20 per iteration, a fifth over 5 images: 2.4");
        List<double[]> warm = new ArrayList<>(), cold = new ArrayList<>();
        try (MessagePassing onTrain = train.newEngine(s.eps()); MessagePassing onTest = test.newEngine(s.eps())) {
            LearnListener own = new LearnListener() {
                @Override
                public void onIteration(IterationRecord row, int total) {}

                @Override
                public boolean keepLearning(int it, Functions f) {
                    if (!s.evaluates(it)) return true;
                    warm.add(new double[] {it, errors(train, onTrain, f, s.eps(), k), errors(test, onTest, f, s.eps(), k)});
                    try (MessagePassing a = train.newEngine(s.eps()); MessagePassing b = test.newEngine(s.eps())) {
                        cold.add(new double[] {it, errors(train, a, f, s.eps(), k), errors(test, b, f, s.eps(), k)});
                    }
                    return true;
                }
            };
            AlternatingLearner.Result r;
            try (Oracles o = Oracles.create(data.summary(), org.structlr.oracle.FunctionSpec.unary("linear"),
                    org.structlr.oracle.FunctionSpec.pairwise("linear"), s, 1)) {
                r = new AlternatingLearner(s, o.unary(), o.pair()).train(train, test, own);
            }
            assertEquals(List.of(1, 2, 4, 6), r.curve().stream().map(IterationRecord::iteration).toList());
            boolean coldDiffers = false;
            for (int row = 0; row < warm.size(); row++) {
                IterationRecord c = r.curve().get(row);
                assertEquals(warm.get(row)[1], c.trainError(), 0.0, "training error, iteration " + c.iteration());
                assertEquals(warm.get(row)[2], c.testError(), 0.0, "test error, iteration " + c.iteration());
                coldDiffers |= cold.get(row)[1] != c.trainError() || cold.get(row)[2] != c.testError();
            }
            assertNotEquals(false, coldDiffers, "cold-started evaluations give the same errors: the test cannot tell a warm start");
        }
    }

    /** Potentials of {@code f} (no loss) into {@code engine}, {@code k} sweeps from its messages, the decoded labels' error. */
    private static double errors(ExampleBatch b, MessagePassing engine, Functions f, double eps, int k) {
        engine.setPotentials(Potentials.unary(b, f.unary(), eps), Potentials.pairwise(b, f.pair(), eps));
        engine.iterate(k);
        return Potentials.error(b, engine.decode());
    }

    /**
     * Learning never reads the evaluation engines: without errors (0 sweeps), with auto and with 50
     * warm sweeps per evaluation, the objective curve and the learned model's predictions are the
     * same bits, under the paper schedule and the extrapolating one (which reads the objective
     * inside learning). The evaluations did run: errors where asked, none with 0 sweeps.
     */
    @org.junit.jupiter.params.ParameterizedTest
    @org.junit.jupiter.params.provider.ValueSource(strings = {org.structlr.schedule.Schedules.PAPER, org.structlr.schedule.Schedules.EXTRAPOLATE})
    void evaluationNeverChangesLearning(String schedule) {
        List<Training.Outcome> runs = new ArrayList<>();
        for (int sweeps : new int[] {0, LearnSettings.AUTO_EVAL_SWEEPS, 50}) {
            LearnSettings s = new LearnSettings(4, 0.1, 5, sweeps, 1, 3).withSchedule(schedule);
            runs.add(Training.train(data, "linear", "linear", s, 1, LearnListener.NONE));
        }
        Training.Outcome off = runs.get(0);
        int[] offLabels = predict(off.model());
        for (Training.Outcome on : runs.subList(1, 3)) {
            assertEquals(off.curve().size(), on.curve().size());
            for (int k = 0; k < off.curve().size(); k++) {
                assertEquals(off.curve().get(k).objective(), on.curve().get(k).objective(), 0.0, "objective of iteration " + (k + 1));
                assertEquals(false, Double.isNaN(on.curve().get(k).testError()), "the evaluation ran");
                assertEquals(true, Double.isNaN(off.curve().get(k).testError()), "no errors without evaluation sweeps");
            }
            org.junit.jupiter.api.Assertions.assertArrayEquals(offLabels, predict(on.model()), "predicted test labels");
        }
    }

    private static int[] predict(org.structlr.model.CrfModel m) {
        ExampleBatch b = new ExampleBatch(data.test(), m.numLabels(), m.pairTypes());
        return org.structlr.model.Predictor.predict(m, b, org.structlr.model.Predictor.defaultStop(b, 200, 1e-6)).labels();
    }
}
