package org.structlr.spark;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.structlr.data.Dataset;
import org.structlr.learn.IterationRecord;
import org.structlr.learn.LearnListener;
import org.structlr.learn.LearnSettings;
import org.structlr.learn.StateSink;
import org.structlr.learn.Training;
import org.structlr.model.ExampleBatch;
import org.structlr.oracle.BoostScore;

/**
 * Boosted trees on Spark through XGBoost's collective ({@link DistributedBoost}), on the small
 * denoising set of {@link SparkLocalTest}.
 */
class SparkBoostTest {

    @BeforeAll
    static void data() {
        SparkLocalTest.data();   // the same denoising set
    }

    static Training.Outcome spark(int partitions, LearnSettings settings) {
        return SparkLocalTest.withPartitions(partitions, () -> new SparkTraining().train("local[2]", SparkLocalTest.data, "boost", "boost",
                settings, 1, LearnListener.NONE, null, StateSink.NONE));
    }

    /** The functions' scores on the training rows: -1 the unary type, t the pairwise type t. */
    static float[] scores(Training.Outcome o, int type) {
        Dataset data = SparkLocalTest.data;
        ExampleBatch batch = new ExampleBatch(data.train(), data.numLabels(), Training.pairTypeNames(data.numPairTypes()));
        INDArray s = type >= 0 ? o.model().pair().get(type).scores(batch.pairFeatures(type)) : o.model().unary().scores(batch.unaryFeatures());
        return s.dup('c').reshape(-1).toFloatVector();
    }

    static double maxAbsDiff(float[] a, float[] b) {
        assertEquals(a.length, b.length);
        double m = 0;
        for (int k = 0; k < a.length; k++) m = Math.max(m, Math.abs(a[k] - b[k]));
        return m;
    }

    /**
     * One partition: one XGBoost worker through the same barrier stage, tracker, collective and byte
     * round trips; its rounds are the single-machine oracle's bit for bit (same curve to the last
     * bit, same scores), so the plumbing (gradients, Hessian sums, the booster's way out and back)
     * adds nothing.
     */
    @Test
    void onePartitionIsTheSingleMachineFitBitForBit() {
        LearnSettings three = SparkLocalTest.iterations(3);
        Training.Outcome one = Training.train(SparkLocalTest.data, "boost", "boost", three, 1, LearnListener.NONE);
        Training.Outcome spark = spark(1, three);
        assertEquals(one.curve().size(), spark.curve().size());
        for (int k = 0; k < one.curve().size(); k++) {
            IterationRecord e = one.curve().get(k), a = spark.curve().get(k);
            assertEquals(e.objective(), a.objective(), 0.0, "objective, iteration " + e.iteration());
            assertEquals(e.testError(), a.testError(), 0.0, "test error, iteration " + e.iteration());
        }
        assertArrayEquals(scores(one, -1), scores(spark, -1), "unary scores");
        assertArrayEquals(scores(one, 0), scores(spark, 0), "pairwise scores");
        assertEquals(3, ((BoostScore) spark.model().unary()).rounds());
    }

    /**
     * Two partitions, two XGBoost workers joined by the collective, 10 iterations: test error within
     * 0.005 of one machine (the requirement). {@link DistributedBoost} itself fails a fit
     * unless both workers saw a world of 2 and grew byte-identical boosters.
     */
    @Test
    void twoPartitionsTenIterationsWithinHalfAPercentOfOneMachine() {
        LearnSettings ten = SparkLocalTest.iterations(10);
        Training.Outcome one = Training.train(SparkLocalTest.data, "boost", "boost", ten, 1, LearnListener.NONE);
        Training.Outcome spark = spark(2, ten);
        for (int k = 0; k < one.curve().size(); k++) {
            IterationRecord e = one.curve().get(k), a = spark.curve().get(k);
            System.out.printf("iteration %d: objective %.8f / %.8f, test error %.5f / %.5f%n", e.iteration(), e.objective(), a.objective(),
                    e.testError(), a.testError());
        }
        double e1 = SparkLocalTest.last(one).testError(), e2 = SparkLocalTest.last(spark).testError();
        System.out.printf("(boost, boost) 10 iterations: test error one machine %.5f, local[2] two workers %.5f; unary scores max diff %.3g%n",
                e1, e2, maxAbsDiff(scores(one, -1), scores(spark, -1)));
        assertEquals(e1, e2, 0.005, "test error after 10 iterations");
        assertTrue(e2 < spark.curve().get(0).testError(), "the distributed run learns");
    }
}
