package org.structlr.oracle.boost;

import org.structlr.oracle.BiasedLogisticProblem;
import org.structlr.oracle.ScoreFunction;
import org.structlr.oracle.TestProblems;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;
import org.nd4j.linalg.api.buffer.DataType;

/** The boosting round ({@link BoostRound}): its gradients, and its form on shipped ensembles (a distributed fit's). */
class BoostRoundTest {

    /**
     * The round on shipped ensembles ({@link BoostRound#ship}, {@link BoostRound#boostShipped},
     * {@link BoostRound#adopt}) with one worker and no collective: the ensemble shipped out and back
     * as bytes every round, the booster rebuilt from them, the gradients on the worker's own copy of
     * the rows. It must be {@link BoostOracle#fit} bit for bit (the Spark learner's one-partition case).
     */
    @Test
    void oneWorkerRoundsAreTheFitsBitForBit() throws Exception {
        BiasedLogisticProblem p = TestProblems.random(2000, 4, 3, 1.0, 31, DataType.FLOAT);
        try (BoostOracle single = new BoostOracle(1, 7)) {
            BoostRound.Settings settings = single.roundSettings(1);
            FeatureCuts cuts = FeatureCuts.of(BiasedLogisticProblem.flatFloat(p.features()), p.numRows(), p.numFeatures());
            ScoreFunction f = null, g = null;
            for (int call = 0; call < 4; call++) {
                BiasedLogisticProblem q = call == 0 ? p : TestProblems.withNewBias(p, 1.0, 500 + call);   // the messages move
                f = single.fit(q, f);
                BoostRound.Shipped sent = BoostRound.ship(g, q.numFeatures(), q.numClasses());
                assertEquals(call, sent.rounds());
                byte[] bytes = BoostRound.boostShipped(sent, settings, cuts, BiasedLogisticProblem.flatFloat(q.features()), q.labels(),
                        BiasedLogisticProblem.flatFloat(q.bias()), h -> h);
                g = BoostRound.adopt(g, sent, bytes);
                assertEquals(call + 1, ((BoostScore) g).rounds());
                assertArrayEquals(f.scores(p.features()).reshape(-1).toFloatVector(), g.scores(p.features()).reshape(-1).toFloatVector(), "scores after fit " + call);
            }
            // an earlier snapshot still reads its own rounds after the ensemble took the new boosters
            BoostRound.Shipped sent = BoostRound.ship(g, p.numFeatures(), p.numClasses());
            assertEquals(4, sent.rounds());
            ScoreFunction stale = g;
            g = BoostRound.adopt(g, sent, BoostRound.boostShipped(sent, settings, cuts, BiasedLogisticProblem.flatFloat(p.features()), p.labels(),
                    BiasedLogisticProblem.flatFloat(p.bias()), h -> h));
            assertArrayEquals(f.scores(p.features()).reshape(-1).toFloatVector(), stale.scores(p.features()).reshape(-1).toFloatVector(), "4-round snapshot");
            ScoreFunction old = stale;
            assertThrows(IllegalStateException.class, () -> BoostRound.ship(old, p.numFeatures(), p.numClasses()), "only the latest continues");
            ScoreFunction latest = g;
            assertThrows(IllegalArgumentException.class, () -> BoostRound.ship(latest, p.numFeatures() + 1, p.numClasses()), "features checked");
            assertThrows(IllegalArgumentException.class, () -> BoostRound.boostShipped(BoostRound.ship(latest, p.numFeatures(), p.numClasses()),
                    settings, FeatureCuts.of(new float[] {1, 2}, 2, 1), BiasedLogisticProblem.flatFloat(p.features()), p.labels(),
                    BiasedLogisticProblem.flatFloat(p.bias()), h -> h), "cuts of other features refused");
        }
    }

    /** The custom gradients of a weighted row are the summed gradients of its copies, and so are the per-class Hessian sums. */
    @Test
    void weightedGradientsAreThoseOfRepeatedRows() {
        BiasedLogisticProblem p = TestProblems.random(60, 2, 3, 1.0, 29, DataType.DOUBLE);
        int[] times = new int[p.numRows()];
        java.util.Random r = new java.util.Random(31);
        for (int i = 0; i < times.length; i++) times[i] = 1 + r.nextInt(3);
        BiasedLogisticProblem repeated = TestProblems.repeat(p, times);
        float[][] margin = new float[p.numRows()][3];
        float[][] repeatedMargin = new float[repeated.numRows()][];
        for (int i = 0, o = 0; i < p.numRows(); i++) {
            for (int k = 0; k < 3; k++) margin[i][k] = (float) r.nextGaussian();
            for (int t = 0; t < times[i]; t++) repeatedMargin[o++] = margin[i];
        }
        org.structlr.oracle.RowTargets weighted = p.targets().withWeights(java.util.Arrays.stream(times).asDoubleStream().toArray());
        BoostRound.Gradients w = BoostRound.gradients(margin, BiasedLogisticProblem.flatDouble(p.bias()), weighted, 1.0);
        BoostRound.Gradients d = BoostRound.gradients(repeatedMargin, BiasedLogisticProblem.flatDouble(repeated.bias()), repeated.targets(), 1.0);
        for (int i = 0, o = 0; i < p.numRows(); i++) {
            for (int k = 0; k < 3; k++) {
                assertEquals(times[i] * d.grad()[o * 3 + k], w.grad()[i * 3 + k], 1e-6, "grad row " + i);
                assertEquals(times[i] * d.hess()[o * 3 + k], w.hess()[i * 3 + k], 1e-6, "hess row " + i);
            }
            o += times[i];
        }
        for (int k = 0; k < 3; k++) assertEquals(d.hessianSums()[k], w.hessianSums()[k], 1e-9);
    }
}
