package org.structlr.oracle.boost;

import org.structlr.oracle.BiasedLogisticProblem;
import org.structlr.oracle.FunctionSpec;
import org.structlr.oracle.ScoreFunction;
import org.structlr.oracle.ScoreFunctions;
import org.structlr.oracle.TestProblems;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

import ml.dmlc.xgboost4j.java.DMatrix;
import ml.dmlc.xgboost4j.java.XGBoostJNI;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;

class BoostOracleTest {

    /** XGBoost's own margin prediction for the first `rounds` rounds with base margin = the problem's bias. */
    private static INDArray nativeMargin(BoostScore f, BiasedLogisticProblem p) throws Exception {
        int n = p.numRows(), c = p.numClasses();
        DMatrix dm = new DMatrix(BiasedLogisticProblem.flatFloat(p.features()), n, p.numFeatures(), Float.NaN);
        try {
            assertEquals(0, XGBoostJNI.XGDMatrixSetFloatInfo(dm.getHandle(), "base_margin",
                    BiasedLogisticProblem.flatFloat(p.bias())));
            float[][] m = f.booster().predict(dm, true, f.rounds());
            return org.nd4j.linalg.factory.Nd4j.createFromArray(m);
        } finally {
            dm.dispose();
        }
    }

    @Test
    void marginsAreBiasPlusLeavesAndTheLossDecreasesEveryFit() throws Exception {
        BiasedLogisticProblem p = TestProblems.random(3000, 3, 3, 1.0, 21, DataType.FLOAT);
        try (BoostOracle oracle = new BoostOracle(1, 7)) {
            ScoreFunction f = null;
            double before = p.loss(f);
            for (int call = 0; call < 4; call++) {
                BoostScore g = (BoostScore) oracle.fit(p, f);
                assertEquals(call + 1, g.rounds());
                double after = p.loss(g);
                assertTrue(after < before, "fit " + call + ": loss " + before + " -> " + after);
                INDArray mine = g.scores(p.features()).add(p.bias());
                double diff = TestProblems.maxAbsDiff(mine, nativeMargin(g, p));
                assertTrue(diff < 1e-5, "scores + b vs XGBoost margin: " + diff);
                before = after;
                f = g;
            }
            // messages move: new bias, same features (cached matrix); still decreases
            for (int call = 0; call < 3; call++) {
                BiasedLogisticProblem q = TestProblems.withNewBias(p, 1.0, 300 + call);
                double b0 = q.loss(f);
                ScoreFunction g = oracle.fit(q, f);
                double b1 = q.loss(g);
                assertTrue(b1 < b0, "new bias " + call + ": " + b0 + " -> " + b1);
                assertTrue(TestProblems.maxAbsDiff(g.scores(q.features()).add(q.bias()), nativeMargin((BoostScore) g, q)) < 1e-5);
                f = g;
            }
        }
    }

    /**
     * Leaf value = -eta * sum g / sum h with h = s p (1 - p): s = 1 is the Newton step (the default),
     * s = 2 XGBoost's own softmax Hessian (half the step); every leaf holds 5% of the Hessian weight.
     */
    @org.junit.jupiter.params.ParameterizedTest
    @org.junit.jupiter.params.provider.EnumSource(BoostOracle.Hessian.class)
    void firstRoundLeavesAreShrunkNewtonStepsOnBigEnoughLeaves(BoostOracle.Hessian hessian) throws Exception {
        BiasedLogisticProblem p = TestProblems.random(4000, 3, 2, 1.5, 22, DataType.DOUBLE);
        double factor = hessian == BoostOracle.Hessian.NEWTON ? 1 : 2;
        try (BoostOracle oracle = new BoostOracle(1, 7, hessian)) {
            BoostScore f = (BoostScore) oracle.fit(p, null);
            int n = p.numRows(), c = 2;
            DMatrix dm = new DMatrix(BiasedLogisticProblem.flatFloat(p.features()), n, 3, Float.NaN);
            float[][] leaves;
            try {
                leaves = f.booster().predictLeaf(dm, 0);
            } finally {
                dm.dispose();
            }
            double[] b = BiasedLogisticProblem.flatDouble(p.bias());
            double[] s = BiasedLogisticProblem.flatDouble(f.scores(p.features()));
            double totalH = 0;
            for (int i = 0; i < n; i++) totalH += factor * pr(b, i, 0) * (1 - pr(b, i, 0));
            for (int k = 0; k < c; k++) {
                Map<Integer, double[]> gh = new HashMap<>();   // leaf -> {sum g, sum h, rows}
                for (int i = 0; i < n; i++) {
                    double q = pr(b, i, k);
                    double[] acc = gh.computeIfAbsent((int) leaves[i][k], z -> new double[3]);
                    acc[0] += q - (p.labels()[i] == k ? 1 : 0);
                    acc[1] += factor * q * (1 - q);
                    acc[2]++;
                }
                assertTrue(gh.size() >= 2 && gh.size() <= 20, "class " + k + ": " + gh.size() + " leaves");
                for (int i = 0; i < n; i++) {
                    double[] acc = gh.get((int) leaves[i][k]);
                    assertTrue(acc[1] >= 0.05 * totalH * (1 - 1e-6), "leaf Hessian weight " + acc[1] + " of " + totalH);
                    assertEquals(-BoostOracle.ETA * acc[0] / acc[1], s[i * c + k], 1e-4, hessian + ": row " + i + " class " + k);
                }
            }
        }
    }

    @Test
    void theDefaultIsTheNewtonStep() {
        assertEquals(BoostOracle.Hessian.NEWTON, BoostOracle.DEFAULT_HESSIAN);
        assertEquals(BoostOracle.Hessian.NEWTON, new BoostOracle(1, 7).hessian());
        assertEquals(BoostOracle.Hessian.XGBOOST, BoostOracle.Hessian.parse(" XGBoost "));
        assertThrows(IllegalArgumentException.class, () -> BoostOracle.Hessian.parse("half"));
        // the class option reaches the oracle
        try (BoostOracle chosen = (BoostOracle) FunctionSpec.pairwise("boost", java.util.Map.of("hessian", "xgboost")).create(2, 7, 1);
             BoostOracle plain = (BoostOracle) FunctionSpec.pairwise("boost").create(2, 7, 1)) {
            assertEquals(BoostOracle.Hessian.XGBOOST, chosen.hessian());
            assertEquals(BoostOracle.Hessian.NEWTON, plain.hessian());
            assertTrue(chosen.describe().contains("Hessian xgboost"), chosen.describe());
        }
    }

    private static double pr(double[] b, int i, int k) {
        double e0 = Math.exp(b[i * 2]), e1 = Math.exp(b[i * 2 + 1]);
        return (k == 0 ? e0 : e1) / (e0 + e1);
    }

    @Test
    void snapshotsStayFixedSaveAndLoadAndOnlyTheLatestContinues(@TempDir Path tmp) throws Exception {
        BiasedLogisticProblem p = TestProblems.random(1500, 2, 2, 1.0, 23, DataType.FLOAT);
        try (BoostOracle oracle = new BoostOracle(1, 7)) {
            BoostScore f1 = (BoostScore) oracle.fit(p, null);
            INDArray s1 = f1.scores(p.features()).dup();
            BoostScore f2 = (BoostScore) oracle.fit(p, f1);
            assertEquals(0.0, TestProblems.maxAbsDiff(s1, f1.scores(p.features())));
            assertTrue(TestProblems.maxAbsDiff(s1, f2.scores(p.features())) > 1e-3);
            assertThrows(IllegalStateException.class, () -> oracle.fit(p, f1));
            f1.save(tmp.resolve("f1"));
            f2.save(tmp.resolve("f2"));
            ScoreFunction l1 = ScoreFunctions.load(tmp.resolve("f1"));
            ScoreFunction l2 = ScoreFunctions.load(tmp.resolve("f2"));
            assertEquals(0.0, TestProblems.maxAbsDiff(s1, l1.scores(p.features())));
            assertEquals(0.0, TestProblems.maxAbsDiff(f2.scores(p.features()), l2.scores(p.features())));
            // a loaded latest function can be continued, giving what continuing the original gives
            ScoreFunction c1 = oracle.fit(p, l2);
            ScoreFunction c2 = oracle.fit(p, f2);
            assertTrue(TestProblems.maxAbsDiff(c1.scores(p.features()), c2.scores(p.features())) < 1e-6);
        }
    }
}
