package org.structlr.spark;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.structlr.data.Dataset;
import org.structlr.data.DenoisingGenerator;
import org.structlr.learn.IterationRecord;
import org.structlr.learn.LearnListener;
import org.structlr.learn.LearnSettings;
import org.structlr.learn.StateSink;
import org.structlr.learn.Training;
import org.structlr.model.ExampleBatch;
import org.structlr.oracle.boost.BoostScore;

/**
 * Boosted trees on Spark through XGBoost's collective in a barrier stage ({@link DistributedBoost}),
 * on {@code local[2]}.
 */
class SparkBoostTest {
    /** 8 + 8 images of 64 x 64 (32,768 training pixels): big enough for the 10-iteration comparison (see the test). */
    static Dataset larger;

    @BeforeAll
    static void data() {
        SparkLocalTest.data();   // 4 + 4 images of 32 x 32
        larger = new DenoisingGenerator().generate(8, 8, 64, 64, 17);
    }

    static Training.Outcome spark(Dataset data, int partitions, LearnSettings settings, boolean onDriver) {
        if (onDriver) System.setProperty(DistributedFits.BOOST_ON_DRIVER, "true");
        try {
            return SparkLocalTest.withPartitions(partitions, () -> new SparkTraining().train("local[2]", data, "boost", "boost",
                    settings, 1, LearnListener.NONE, null, StateSink.NONE));
        } finally {
            System.clearProperty(DistributedFits.BOOST_ON_DRIVER);
        }
    }

    /** The functions' scores on the training rows: -1 the unary type, t the pairwise type t. */
    static float[] scores(Dataset data, Training.Outcome o, int type) {
        ExampleBatch batch = new ExampleBatch(data.train(), data.numLabels(), Training.pairTypeNames(data.numPairTypes()));
        INDArray s = type >= 0 ? o.model().pair().get(type).scores(batch.pairFeatures(type)) : o.model().unary().scores(batch.unaryFeatures());
        return s.dup('c').reshape(-1).toFloatVector();
    }

    static void assertSameBits(Dataset data, Training.Outcome expected, Training.Outcome actual) {
        assertEquals(expected.curve().size(), actual.curve().size());
        for (int k = 0; k < expected.curve().size(); k++) {
            IterationRecord e = expected.curve().get(k), a = actual.curve().get(k);
            assertEquals(e.objective(), a.objective(), 0.0, "objective, iteration " + e.iteration());
            assertEquals(e.trainError(), a.trainError(), 0.0, "training error, iteration " + e.iteration());
            assertEquals(e.testError(), a.testError(), 0.0, "test error, iteration " + e.iteration());
        }
        assertArrayEquals(scores(data, expected, -1), scores(data, actual, -1), "unary scores");
        for (int t = 0; t < data.numPairTypes(); t++) assertArrayEquals(scores(data, expected, t), scores(data, actual, t), "pairwise scores, type " + t);
    }

    /**
     * One partition: one XGBoost worker through the whole machinery (barrier stage, tracker,
     * collective, gradients on the executor, the ensemble shipped out and back as bytes, the Hessian
     * sums through the all-reduce) gives the single-machine oracle's rounds on the same rows (the
     * gathered fit, {@code spark.structlr.boost.onDriver}) bit for bit: curves, scores. Both are the
     * one-machine learner's curve (objective within 1e-5: the Spark learner keeps float biases).
     */
    @Test
    void onePartitionIsTheGatheredFitBitForBit() {
        LearnSettings three = SparkLocalTest.iterations(3);
        Training.Outcome one = Training.train(SparkLocalTest.data, "boost", "boost", three, 1, LearnListener.NONE);
        Training.Outcome gathered = spark(SparkLocalTest.data, 1, three, true);
        Training.Outcome distributed = spark(SparkLocalTest.data, 1, three, false);
        assertSameBits(SparkLocalTest.data, gathered, distributed);
        SparkLocalTest.assertSameCurve(one, distributed);
        assertEquals(3, ((BoostScore) distributed.model().unary()).rounds());
    }

    /**
     * Two partitions, two XGBoost workers, 10 iterations: the issue asks for the test error within
     * 0.005 of one machine; with the shared bins ({@link org.structlr.oracle.boost.FeatureCuts}) it is the
     * same test error at every iteration (measured: the same at all 10), and the objective within
     * 1.3e-5 (relative; asserted: 1e-4): not the same bits, as the workers' gradient histograms are
     * added in another order than one machine's. Each fit also passed {@link DistributedBoost#agreed}:
     * both workers saw a world of 2 and returned the same booster, which two workers holding different
     * rows only do when the collective joined them. (Before the shared bins the workers merged their
     * own quantile sketches: 0.0853 against 0.0845 here, and 0.111 against 0.058 on the paper's
     * denoising set.)
     */
    @Test
    void twoWorkersTenIterationsGiveOneMachinesTestErrors() {
        LearnSettings ten = SparkLocalTest.iterations(10);
        Training.Outcome one = Training.train(larger, "boost", "boost", ten, 1, LearnListener.NONE);
        Training.Outcome two = spark(larger, 2, ten, false);
        for (int k = 0; k < one.curve().size(); k++) {
            IterationRecord e = one.curve().get(k), a = two.curve().get(k);
            System.out.printf("iteration %d: objective %.8f / %.8f, test error %.5f / %.5f%n", e.iteration(), e.objective(), a.objective(),
                    e.testError(), a.testError());
            assertEquals(e.objective(), a.objective(), 1e-4 * e.objective(), "objective, iteration " + e.iteration());
            assertEquals(e.testError(), a.testError(), 0.0, "test error, iteration " + e.iteration());
        }
        double e2 = SparkLocalTest.last(two).testError();
        assertTrue(e2 < two.curve().get(0).testError() - 0.2, "the distributed run learns");
        assertEquals(10, ((BoostScore) two.model().pair().get(0)).rounds());
    }

    /**
     * A worker fails (injected: rank 1's first task): the driver reruns the round with a new tracker,
     * and the run ends with the undisturbed run's model bit for bit.
     */
    @Test
    void aFailedWorkerIsRerunWithANewTrackerToTheSameModel() {
        LearnSettings two = SparkLocalTest.iterations(2);
        Training.Outcome undisturbed = spark(SparkLocalTest.data, 2, two, false);
        System.setProperty(DistributedBoost.TIMEOUT, "60");
        DistributedBoost.INJECTED_FAULTS.set(1);
        Training.Outcome disturbed;
        try {
            disturbed = spark(SparkLocalTest.data, 2, two, false);
        } finally {
            System.clearProperty(DistributedBoost.TIMEOUT);
        }
        assertEquals(0, DistributedBoost.INJECTED_FAULTS.getAndSet(0), "the fault was injected");
        assertSameBits(SparkLocalTest.data, undisturbed, disturbed);
    }

    /**
     * Checkpoints: a distributed run saves its state after iteration 1 (the boosted functions through
     * their usual saving), a second distributed run resumes from it (the loaded ensembles shipped to
     * the workers) and ends where the uninterrupted run ends: same errors, objective within 1e-5
     * (the engines are rebuilt from the saved messages, as for every class).
     */
    @Test
    void aDistributedRunResumesFromItsCheckpoint(@org.junit.jupiter.api.io.TempDir java.nio.file.Path tmp) {
        LearnSettings three = SparkLocalTest.iterations(3);
        java.nio.file.Path dir = tmp.resolve("ck");
        Training.Outcome whole = SparkLocalTest.withPartitions(2, () -> new SparkTraining().train("local[2]", SparkLocalTest.data, "boost", "boost",
                three, 1, LearnListener.NONE, null, new SparkLocalTest.SaveAt(1, dir, "boost", "boost")));
        var from = org.structlr.learn.Checkpoint.load(dir).state();
        Training.Outcome resumed = SparkLocalTest.withPartitions(2, () -> new SparkTraining().train("local[2]", SparkLocalTest.data, "boost", "boost",
                three, 1, LearnListener.NONE, from, StateSink.NONE));
        SparkLocalTest.assertSameCurve(whole, resumed);
        assertEquals(3, ((BoostScore) resumed.model().unary()).rounds());
    }

    /** More training partitions than task slots (the barrier stage could never start): one clear error at the first fit. */
    @Test
    void morePartitionsThanSlotsIsOneClearError() {
        var e = assertThrows(org.structlr.data.BadInputException.class, () -> spark(SparkLocalTest.data, 3, SparkLocalTest.iterations(1), false));
        assertTrue(e.getMessage().startsWith("spark.structlr.partitions: boost on Spark runs all 3 training partitions at once"), e.getMessage());
        assertTrue(e.getMessage().endsWith("set spark.structlr.partitions to at most 2"), e.getMessage());
    }

    /** The driver's check of the workers' results: every worker saw the whole world and grew the same trees. */
    @Test
    void workersThatDidNotJoinOrDisagreeAreAnError() {
        byte[] a = {1, 2, 3}, b = {1, 2, 4};
        var alone = assertThrows(IllegalStateException.class, () -> DistributedBoost.agreed(
                List.of(new DistributedBoost.Boosted(0, 1, a), new DistributedBoost.Boosted(0, 1, a)), 2));
        assertTrue(alone.getMessage().contains("saw 1 XGBoost workers, expected 2"), alone.getMessage());
        var differ = assertThrows(IllegalStateException.class, () -> DistributedBoost.agreed(
                List.of(new DistributedBoost.Boosted(0, 2, a), new DistributedBoost.Boosted(1, 2, b)), 2));
        assertTrue(differ.getMessage().contains("grew different trees"), differ.getMessage());
        assertThrows(IllegalStateException.class, () -> DistributedBoost.agreed(List.of(new DistributedBoost.Boosted(0, 2, a)), 2));
        assertSame(a, DistributedBoost.agreed(List.of(new DistributedBoost.Boosted(0, 2, a), new DistributedBoost.Boosted(1, 2, a.clone())), 2));
    }

    /**
     * The Hessian sums' all-reduce form (three floats per double): exact for one worker's doubles
     * (what makes one partition bit-exact), and for two workers the float sums of the parts come
     * within float rounding of the double sum.
     */
    @Test
    void hessianSumsSplitIntoThreeFloatsExactly() {
        double[] v = {1234.5678901234567, 1e-3 / 3, 98765.4321 / 7, 0.0, 3.0000000000000004, 4096 * 0.24999999};
        assertArrayEquals(v, DistributedBoost.join(DistributedBoost.split(v), v.length), 0.0);
        double[] w = {7.123456789, 2e-3 / 7, 1.5, 1.0, 1e-9, 100.5};
        float[] a = DistributedBoost.split(v), b = DistributedBoost.split(w), sum = new float[a.length];
        for (int k = 0; k < a.length; k++) sum[k] = a[k] + b[k];
        double[] joined = DistributedBoost.join(sum, v.length);
        for (int k = 0; k < v.length; k++) assertEquals(v[k] + w[k], joined[k], 1.2e-7 * (v[k] + w[k]), "sum " + k);
    }
}
