package org.structlr.oracle.boost;

import org.structlr.oracle.BiasedLogisticProblem;
import org.structlr.oracle.ScoreFunction;
import org.structlr.oracle.TestProblems;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;
import org.nd4j.linalg.api.buffer.DataType;

/**
 * The distributed form of the boosting round ({@link BoostOracle#start}, {@link BoostOracle#boostPart},
 * {@link BoostOracle#finish}) with one worker and no collective: the ensemble shipped out and back
 * as bytes every round, the booster rebuilt from them, the gradients on the worker's own copy of the
 * rows. It must be {@link BoostOracle#fit} bit for bit (the Spark learner's one-partition case).
 */
class BoostRoundTest {

    @Test
    void oneWorkerRoundsAreTheFitsBitForBit() throws Exception {
        BiasedLogisticProblem p = TestProblems.random(2000, 4, 3, 1.0, 31, DataType.FLOAT);
        try (BoostOracle single = new BoostOracle(1, 7); BoostOracle shipped = new BoostOracle(1, 7)) {
            FeatureCuts cuts = FeatureCuts.of(BiasedLogisticProblem.flatFloat(p.features()), p.numRows(), p.numFeatures());
            ScoreFunction f = null, g = null;
            for (int call = 0; call < 4; call++) {
                BiasedLogisticProblem q = call == 0 ? p : TestProblems.withNewBias(p, 1.0, 500 + call);   // the messages move
                f = single.fit(q, f);
                BoostOracle.Round r = shipped.start(g, q.numFeatures(), q.numClasses(), 1, cuts);
                assertEquals(call, r.rounds());
                byte[] bytes = BoostOracle.boostPart(r, BiasedLogisticProblem.flatFloat(q.features()), q.labels(),
                        BiasedLogisticProblem.flatFloat(q.bias()), h -> h);
                g = shipped.finish(r, g, bytes);
                assertEquals(call + 1, ((BoostScore) g).rounds());
                assertArrayEquals(f.scores(p.features()).reshape(-1).toFloatVector(), g.scores(p.features()).reshape(-1).toFloatVector(), "scores after fit " + call);
            }
            // an earlier snapshot still reads its own rounds after the ensemble took the new boosters
            BoostOracle.Round r = shipped.start(g, p.numFeatures(), p.numClasses(), 1, cuts);
            assertEquals(4, r.rounds());
            ScoreFunction stale = g;
            g = shipped.finish(r, g, BoostOracle.boostPart(r, BiasedLogisticProblem.flatFloat(p.features()), p.labels(),
                    BiasedLogisticProblem.flatFloat(p.bias()), h -> h));
            assertArrayEquals(f.scores(p.features()).reshape(-1).toFloatVector(), stale.scores(p.features()).reshape(-1).toFloatVector(), "4-round snapshot");
            ScoreFunction old = stale;
            assertThrows(IllegalStateException.class, () -> shipped.start(old, p.numFeatures(), p.numClasses(), 1, cuts), "only the latest continues");
        }
    }
}
