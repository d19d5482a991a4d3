package org.structlr.learn;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.structlr.data.Dataset;
import org.structlr.data.DenoisingGenerator;
import org.structlr.inference.engines.EngineChoice;

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
}
