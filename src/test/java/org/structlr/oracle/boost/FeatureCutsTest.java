package org.structlr.oracle.boost;

import org.structlr.oracle.BiasedLogisticProblem;
import org.structlr.oracle.ScoreFunction;
import org.structlr.oracle.TestProblems;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashMap;
import java.util.Random;
import ml.dmlc.xgboost4j.java.Booster;
import ml.dmlc.xgboost4j.java.DMatrix;
import ml.dmlc.xgboost4j.java.XGBoost;
import org.junit.jupiter.api.Test;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.factory.Nd4j;

/**
 * The boosting bins ({@link FeatureCuts}): XGBoost keeps them exactly, trees grown on binned rows
 * score raw rows as they score the binned ones, and the cuts do not depend on how the rows are split
 * over workers (the reason they exist).
 */
class FeatureCutsTest {

    /** n rows of d features: a continuous one, a skewed one (half zeros), a binary one, and noise. */
    private static float[] rows(int n, int d, long seed) {
        Random r = new Random(seed);
        float[] x = new float[n * d];
        for (int i = 0; i < n; i++) {
            for (int k = 0; k < d; k++) {
                x[i * d + k] = switch (k % 3) {
                    case 0 -> (float) r.nextGaussian();
                    case 1 -> r.nextBoolean() ? 0f : (float) Math.exp(r.nextGaussian());
                    default -> r.nextInt(2);
                };
            }
        }
        return x;
    }

    @Test
    void binnedRowsTakeOnlyTheCutsAndTheMinimum() {
        int n = 5000, d = 3;
        float[] x = rows(n, d, 1);
        FeatureCuts cuts = FeatureCuts.of(x, n, d);
        float[] b = cuts.bin(x, n, d);
        for (int k = 0; k < d; k++) {
            float[] c = cuts.cuts()[k];
            assertTrue(c.length <= FeatureCuts.MAX_VALUES - 1, "feature " + k + ": " + c.length + " cuts");
            for (int j = 1; j < c.length; j++) assertTrue(c[j] > c[j - 1], "cuts increase");
            for (int i = 0; i < n; i++) {
                float v = x[i * d + k], r = b[i * d + k];
                // r(v) = the largest cut <= v, else the minimum; brute force over the cuts
                float want = cuts.min()[k];
                for (float cj : c) if (cj <= v) want = cj;
                assertEquals(want, r, "row " + i + " feature " + k);
            }
        }
        assertEquals(254, cuts.cuts()[0].length, "a continuous feature gets MAX_VALUES - 1 cuts");
        assertArrayEquals(new float[] {1f}, cuts.cuts()[2], "a binary feature: one cut at 1");
        assertEquals(0f, cuts.min()[1]);
    }

    @Test
    void cutsDoNotDependOnHowTheRowsAreSplit() {
        int d = 3;
        int n = (int) (FeatureCuts.SAMPLE_ROWS * 3 / 2);   // above the sample size: a real sample
        float[] x = rows(n, d, 2);
        FeatureCuts whole = FeatureCuts.of(x, n, d);
        double rate = FeatureCuts.rate(n);
        assertTrue(rate < 1);
        // three workers with uneven shares, pooled in another order
        int[] ends = {100_000, 100_001, n};
        float[][] samples = new float[3][], minima = new float[3][];
        int start = 0;
        for (int w = 0; w < 3; w++) {
            float[] part = java.util.Arrays.copyOfRange(x, start * d, ends[w] * d);
            samples[w] = FeatureCuts.sample(part, ends[w] - start, d, rate);
            minima[w] = FeatureCuts.minima(part, ends[w] - start, d);
            start = ends[w];
        }
        float[] pooled = new float[samples[0].length + samples[1].length + samples[2].length];
        System.arraycopy(samples[2], 0, pooled, 0, samples[2].length);
        System.arraycopy(samples[0], 0, pooled, samples[2].length, samples[0].length);
        System.arraycopy(samples[1], 0, pooled, samples[2].length + samples[0].length, samples[1].length);
        float[] min = new float[d];
        for (int k = 0; k < d; k++) min[k] = Math.min(minima[0][k], Math.min(minima[1][k], minima[2][k]));
        FeatureCuts split = FeatureCuts.fromSample(pooled, d, min);
        for (int k = 0; k < d; k++) assertArrayEquals(whole.cuts()[k], split.cuts()[k], "feature " + k);
        assertArrayEquals(whole.min(), split.min());
        int m = pooled.length / d;
        assertTrue(Math.abs(m - FeatureCuts.SAMPLE_ROWS) < 5 * Math.sqrt(FeatureCuts.SAMPLE_ROWS), "sample of " + m + " rows");
    }

    @Test
    void xgboostKeepsTheCutsAndTreesScoreRawRowsAsBinnedOnes() throws Exception {
        int n = 4000, d = 3;
        float[] x = rows(n, d, 3);
        FeatureCuts cuts = FeatureCuts.of(x, n, d);
        float[] labels = new float[n];
        for (int i = 0; i < n; i++) labels[i] = x[i * d] + 0.5f * x[i * d + 1] > 0.3f ? 1 : 0;
        DMatrix binned = new DMatrix(cuts.bin(x, n, d), n, d, Float.NaN);
        DMatrix raw = new DMatrix(x, n, d, Float.NaN);
        try {
            binned.setLabel(labels);
            java.util.Map<String, Object> params = new HashMap<>();
            params.put("objective", "binary:logistic");
            params.put("tree_method", "hist");
            params.put("max_bin", 256);
            params.put("max_depth", 6);
            params.put("nthread", 1);
            params.put("verbosity", 0);
            Booster booster = XGBoost.train(binned, params, 5, new HashMap<>(), null, null);
            try {
                // XGBoost's own cuts are ours, between its -infinity and its sentinel above the largest value
                DMatrix.QuantileCut qc = binned.getQuantileCut();
                for (int k = 0; k < d; k++) {
                    float[] c = cuts.cuts()[k];
                    int from = (int) qc.getIndptr()[k], to = (int) qc.getIndptr()[k + 1];
                    float[] theirs = java.util.Arrays.copyOfRange(qc.getValues(), from, to);
                    assertEquals(c.length + 2, theirs.length, "feature " + k + ": XGBoost's cut count");
                    assertEquals(Float.NEGATIVE_INFINITY, theirs[0], "feature " + k + ": XGBoost's first cut");
                    assertArrayEquals(c, java.util.Arrays.copyOfRange(theirs, 1, c.length + 1), "feature " + k + ": XGBoost's cuts");
                }
                float[][] onBinned = booster.predict(binned, true, 0);
                float[][] onRaw = booster.predict(raw, true, 0);
                for (int i = 0; i < n; i++) assertArrayEquals(onBinned[i], onRaw[i], "row " + i);
            } finally {
                booster.dispose();
            }
        } finally {
            binned.dispose();
            raw.dispose();
        }
    }

    @Test
    void boostOracleScoresRawFeaturesWithTheTreesOfBinnedRows() {
        BiasedLogisticProblem p = TestProblems.random(3000, 4, 3, 1.0, 11, DataType.FLOAT);
        try (BoostOracle oracle = new BoostOracle(1, 7)) {
            ScoreFunction f = null;
            for (int call = 0; call < 3; call++) f = oracle.fit(p, f);
            FeatureCuts cuts = FeatureCuts.of(BiasedLogisticProblem.flatFloat(p.features()), p.numRows(), p.numFeatures());
            float[] binned = cuts.bin(BiasedLogisticProblem.flatFloat(p.features()), p.numRows(), p.numFeatures());
            assertTrue(!java.util.Arrays.equals(binned, BiasedLogisticProblem.flatFloat(p.features())), "binning changes the rows");
            assertArrayEquals(f.scores(Nd4j.create(binned, new long[] {p.numRows(), p.numFeatures()})).reshape(-1).toFloatVector(),
                    f.scores(p.features()).reshape(-1).toFloatVector());
        }
    }
}
