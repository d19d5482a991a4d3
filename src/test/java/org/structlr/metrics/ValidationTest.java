package org.structlr.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.structlr.data.Dataset;
import org.structlr.data.DenoisingGenerator;
import org.structlr.learn.Functions;
import org.structlr.learn.LearnListener;
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

    /** Val examples without a labelled pixel have no mean IoU to compare (NaN): refused, not a first check kept as the best. */
    @Test
    void valExamplesVoidEverywhereAreRefused() {
        Dataset d = new DenoisingGenerator().generate(1, 2, 6, 6, 9);
        List<org.structlr.data.Example> allVoid = new ArrayList<>();
        for (org.structlr.data.Example e : d.test()) {
            int[] y = new int[e.numVariables()];
            Arrays.fill(y, org.structlr.data.Example.VOID);
            allVoid.add(org.structlr.data.Example.builder(e.unary(), e.unaryDim(), e.edges(), e.pairwise(), e.pairDim()).labels(y).numLabels(2).build());
        }
        IllegalArgumentException ex = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                () -> new Validation(allVoid, 2, Training.pairTypeNames(1), 0.1, 1, 0, 10));
        assertEquals("every val variable is void (label -1): validation has nothing to score the functions on", ex.getMessage());
        // one labelled pixel is enough
        int[] y = allVoid.get(0).labels();
        y[3] = 1;
        org.structlr.data.Example e = allVoid.get(0);
        allVoid.set(0, org.structlr.data.Example.builder(e.unary(), e.unaryDim(), e.edges(), e.pairwise(), e.pairDim()).labels(y).numLabels(2).build());
        new Validation(allVoid, 2, Training.pairTypeNames(1), 0.1, 1, 0, 10).close();
    }

    @Test
    void patienceZeroNeverStops() {
        Dataset d = new DenoisingGenerator().generate(2, 2, 10, 10, 4);
        try (Validation v = new Validation(d.test(), 2, List.of("pairwise-0", "pairwise-1"), 0.1, 1, 0, 20)) {
            for (int it = 1; it <= 5; it++) assertFalse(v.check(it, null, Arrays.asList(null, null)).stop());
            assertEquals(1, v.best().iteration(), "equal mean IoU: the earlier check stays the best");
        }
    }

    /**
     * A fixed run, checked every iteration: with patience 0 it runs all its iterations; with
     * patience P it stops at the first check that is the P-th in a row without a higher mean IoU
     * (found here from the full run's checks), with the same checks up to there (validation does
     * not change learning); the model kept has the functions of the best check (the first highest
     * mean IoU), and a cold prediction with it scores that mean IoU.
     */
    @Test
    void patienceStopsAtTheRightIterationAndTheBestFunctionsAreKept() {
        Dataset d = new DenoisingGenerator().generate(4, 1, 16, 16, 31);
        int n = 16, patience = 2;
        LearnSettings s = new LearnSettings(n, 0.1, 3, 0, n, 1);
        Run full = run(d, s, 0);
        assertEquals(n, full.last(), "patience 0 never stops");
        assertEquals(n, full.checks.size());
        // where patience P stops, from the full run's checks alone
        int expectedStop = n, since = 0;
        double best = Double.NEGATIVE_INFINITY;
        int bestIt = -1;
        for (Validation.Check c : full.checks) {
            if (c.meanIou() > best) {
                best = c.meanIou();
                bestIt = c.iteration();
                since = 0;
            } else if (++since >= patience) {
                expectedStop = c.iteration();
                break;
            }
        }
        assertTrue(expectedStop < n, "the run must level off for this test to say anything: " + full.ious());
        Run stopped = run(d, s, patience);
        assertEquals(expectedStop, stopped.last(), full.ious() + " vs " + stopped.ious());
        assertEquals(full.ious().subList(0, expectedStop), stopped.ious(), "validation changes nothing learned");
        assertTrue(stopped.checks.get(expectedStop - 1).stop());
        for (int k = 0; k < expectedStop - 1; k++) assertFalse(stopped.checks.get(k).stop());
        // the kept model: the best check's functions, and they score its mean IoU
        assertEquals(bestIt, stopped.validation.best().iteration());
        CrfModel kept = stopped.validation.keepBest(stopped.outcome.model(), stopped.last());
        assertSame(stopped.seen.get(bestIt).unary(), kept.unary());
        assertNotSame(stopped.seen.get(expectedStop).unary(), kept.unary(), "not the last functions");
        assertEquals(stopped.seen.get(bestIt).pair(), kept.pair());
        assertEquals(best, Evaluation.confusion(kept, d.test(), 500, 1e-5).meanIou(), 1e-3);
        @SuppressWarnings("unchecked")
        Map<String, Object> v = (Map<String, Object>) kept.provenance().get("validation");
        assertEquals(bestIt, v.get("keptIteration"));
        assertEquals(expectedStop, v.get("lastIteration"));
        assertEquals(true, v.get("stoppedEarly"));
        stopped.validation.close();
        full.validation.close();
    }

    private record Run(Validation validation, List<Validation.Check> checks, Map<Integer, Functions> seen, Training.Outcome outcome) {
        int last() { return outcome.curve().get(outcome.curve().size() - 1).iteration(); }

        List<Double> ious() {
            List<Double> r = new ArrayList<>();
            for (Validation.Check c : checks) r.add(c.meanIou());
            return r;
        }
    }

    /** Trains (linear, linear) checking every iteration on the test examples; the last iteration is checked after the run. */
    private static Run run(Dataset d, LearnSettings s, int patience) {
        Validation v = new Validation(d.test(), 2, Training.pairTypeNames(d.numPairTypes()), s.eps(), 1, patience, 100);
        List<Validation.Check> checks = new ArrayList<>();
        Map<Integer, Functions> seen = new HashMap<>();
        LearnListener record = new LearnListener() {
            @Override
            public void onIteration(org.structlr.learn.IterationRecord r, int total) {}

            @Override
            public boolean keepLearning(int it, Functions f) {
                seen.put(it, f);
                return true;
            }
        };
        Training.Outcome out = Training.train(d, "linear", "linear", s, 1, v.around(record, s.iterations(), checks::add));
        int last = out.curve().get(out.curve().size() - 1).iteration();
        if (!seen.containsKey(last)) seen.put(last, new Functions(out.model().unary(), out.model().pair()));
        Validation.Check c = v.checkLast(last, out.model());
        if (c != null) checks.add(c);
        return new Run(v, checks, seen, out);
    }
}
