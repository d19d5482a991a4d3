package org.structlr.learn;

import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.structlr.data.Dataset;
import org.structlr.data.DenoisingGenerator;

/** --eval-sweeps auto (the demo's and CrfTrainer's default) evaluates: Training keeps the evaluation engines for it. */
class AutoEvalSweepsTest {
    @Test
    void autoEvaluationSweepsReportErrors() {
        Dataset data = new DenoisingGenerator().generate(2, 2, 12, 12, 5);
        LearnSettings s = new LearnSettings(2, 0.1, 3, LearnSettings.AUTO_EVAL_SWEEPS, 1, 3);
        for (IterationRecord r : Training.train(data, "linear", "linear", s, 1, LearnListener.NONE).curve()) {
            assertTrue(Double.isFinite(r.trainError()) && Double.isFinite(r.testError()), "iteration " + r.iteration() + ": " + r);
        }
    }
}
