package org.structlr.learn;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.structlr.data.Dataset;
import org.structlr.data.DenoisingGenerator;
import org.structlr.inference.engines.EngineChoice;
import org.structlr.inference.fused.FusedGridMessagePassing;
import org.structlr.inference.loop.LoopMessagePassing;
import org.structlr.inference.nd4j.GridMessagePassing;
import org.structlr.model.ExampleBatch;
import org.structlr.oracle.linear.LinearOracle;

/**
 * Learning through the ND4J engines (the CUDA path; here on ND4J's CPU backend) gives the fused
 * engine's run: the same objective curve to 1e-4 relative and the same train and test errors at
 * every evaluated iteration, for linear, MLP and FCN unary functions with linear pairwise ones.
 * The engines agree to float rounding; the curve falls by far more than the tolerance over the
 * run, so a wrong message, potential or label anywhere on the ND4J path shows.
 */
class EngineParityLearnerTest {
    static final double RELATIVE = 1e-4;

    @ParameterizedTest(name = "({0}, {1})")
    @CsvSource({"linear, linear, 5", "mlp, linear, 3", "fcn, linear, 3"})
    void theNd4jEnginesLearnTheFusedEnginesCurve(String unary, String pairwise, int iterations) {
        Dataset data = new DenoisingGenerator().generate(4, 4, 20, 20, 7);
        LearnSettings s = new LearnSettings(iterations, 0.1, 10, 10, 1, 3);
        Training.Outcome fused = Training.train(data, unary, pairwise, s.withEngine(EngineChoice.FUSED), 1, LearnListener.NONE);
        Training.Outcome nd4j = Training.train(data, unary, pairwise, s.withEngine(EngineChoice.ND4J), 1, LearnListener.NONE);
        List<IterationRecord> a = fused.curve(), b = nd4j.curve();
        assertEquals(iterations, a.size());
        assertEquals(a.size(), b.size());
        double first = a.get(0).objective(), last = a.get(a.size() - 1).objective();
        assertTrue(Math.abs(first - last) > 20 * RELATIVE * Math.abs(first), "the curve must move: " + first + " -> " + last);
        for (int k = 0; k < a.size(); k++) {
            IterationRecord x = a.get(k), y = b.get(k);
            String at = "(" + unary + ", " + pairwise + ") iteration " + x.iteration();
            assertEquals(x.objective(), y.objective(), RELATIVE * Math.abs(x.objective()), at + " objective");
            assertEquals(x.trainError(), y.trainError(), 0.0, at + " train error");
            assertEquals(x.testError(), y.testError(), 0.0, at + " test error");
        }
        assertEquals("nd4j", nd4j.model().settings().get("engine"));
    }

    /** The parity above would hold if --engine were ignored: here the learner's engine is the one named. */
    @Test
    void theNamedEngineRunsTheLearning() {
        Dataset data = new DenoisingGenerator().generate(2, 2, 12, 12, 7);
        List<String> types = Training.pairTypeNames(data.numPairTypes());
        ExampleBatch train = new ExampleBatch(data.train(), 2, types), test = new ExampleBatch(data.test(), 2, types);
        Object[][] cases = {{EngineChoice.FUSED, FusedGridMessagePassing.class}, {EngineChoice.ND4J, GridMessagePassing.class},
                {EngineChoice.LOOP, LoopMessagePassing.class}, {EngineChoice.AUTO, FusedGridMessagePassing.class}};
        for (Object[] c : cases) {
            List<String> seen = new ArrayList<>();
            StateSink sink = new StateSink() {
                @Override public boolean wants(int iteration, int total) { return true; }
                @Override public void accept(LearnerState s) {
                    seen.add(s.train().engine());
                    seen.add(s.trainEval().engine());
                    seen.add(s.testEval().engine());
                }
            };
            LearnSettings s = new LearnSettings(1, 0.1, 3, 3, 1, 3).withEngine((EngineChoice) c[0]);
            List<org.structlr.oracle.Oracle> pair = new ArrayList<>();
            for (int t = 0; t < types.size(); t++) pair.add(new LinearOracle());
            new AlternatingLearner(s, new LinearOracle(), pair).train(train, test, null, LearnListener.NONE, sink);
            String want = ((Class<?>) c[1]).getName();
            assertEquals(List.of(want, want, want), seen, "--engine " + c[0] + ": training, train- and test-evaluation engines");
        }
    }
}
