package org.structlr.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.structlr.data.Dataset;
import org.structlr.data.DenoisingGenerator;
import org.structlr.learn.LearnSettings;
import org.structlr.learn.Training;
import org.structlr.model.CrfModel;
import org.structlr.oracle.ScoreFunction;

class ValidationTest {

    @Test
    void keepsTheBestFunctionsAndStopsAfterPatience() {
        Dataset d = new DenoisingGenerator().generate(3, 3, 14, 14, 9);
        CrfModel m = Training.train(d, "linear", "linear", new LearnSettings(3, 0.1, 10, 0, 1), 1, (r, n) -> {}).model();
        List<ScoreFunction> zeroPair = Arrays.asList(null, null);
        try (Validation v = new Validation(d.test(), m.numLabels(), m.pairTypes(), m.eps(), 2, 2, 500)) {
            assertFalse(v.due(1, 9));
            assertTrue(v.due(2, 9) && v.due(9, 9));
            Validation.Check zero = v.check(2, null, zeroPair);
            assertTrue(zero.best(), "the first check is the best so far");
            Validation.Check trained = v.check(4, m.unary(), m.pair());
            assertTrue(trained.best() && trained.meanIou() > zero.meanIou(), trained.meanIou() + " vs " + zero.meanIou());
            assertFalse(trained.stop());
            Validation.Check worse = v.check(6, null, zeroPair);
            assertFalse(worse.best());
            assertFalse(worse.stop(), "one check without improvement, patience 2");
            Validation.Check again = v.check(8, null, zeroPair);
            assertTrue(again.stop(), "two checks without improvement");
            assertSame(trained, v.best());
            assertSame(m.unary(), v.bestUnary());
            assertEquals(m.pair(), v.bestPair());
            assertEquals(4, v.history().size());
            // a check is the converged prediction's metrics (warm start changes where passing starts, not where it ends)
            ConfusionMatrix full = Evaluation.confusion(m, d.test(), 500, 1e-5);
            assertEquals(full.meanIou(), trained.meanIou(), 1e-3);
            assertEquals(full.pixelAccuracy(), trained.confusion().pixelAccuracy(), 1e-3);
        }
    }

    @Test
    void patienceZeroNeverStops() {
        Dataset d = new DenoisingGenerator().generate(2, 2, 10, 10, 4);
        try (Validation v = new Validation(d.test(), 2, List.of("pairwise-0", "pairwise-1"), 0.1, 1, 0, 20)) {
            for (int it = 1; it <= 5; it++) assertFalse(v.check(it, null, Arrays.asList(null, null)).stop());
            assertEquals(1, v.best().iteration(), "equal mean IoU: the earlier check stays the best");
        }
    }
}
