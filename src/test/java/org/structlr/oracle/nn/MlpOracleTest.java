package org.structlr.oracle.nn;

import org.structlr.oracle.BiasedLogisticProblem;
import org.structlr.oracle.ScoreFunction;
import org.structlr.oracle.ScoreFunctions;
import org.structlr.oracle.TestProblems;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;

class MlpOracleTest {

    @Test
    void lossDecreasesOverFitsAndSaveLoadIsExact(@TempDir Path tmp) throws Exception {
        BiasedLogisticProblem p = TestProblems.random(4000, 3, 3, 1.0, 31, DataType.FLOAT);
        MlpOracle oracle = MlpOracle.unary();
        double l0 = p.loss((ScoreFunction) null);
        ScoreFunction f = oracle.fit(p, null);
        double l1 = p.loss(f);
        ScoreFunction g = oracle.fit(p, f);
        ScoreFunction h = oracle.fit(p, g);
        double l3 = p.loss(h);
        System.out.printf("mlp loss per row: %.4f -> %.4f -> %.4f%n", l0 / 4000, l1 / 4000, l3 / 4000);
        assertTrue(l1 < l0 && l3 < l1, l0 + " -> " + l1 + " -> " + l3);
        assertEquals(3, ((MlpScore) h).fits());

        INDArray before = f.scores(p.features()).dup();
        h.save(tmp.resolve("h"));
        ScoreFunction loaded = ScoreFunctions.load(tmp.resolve("h"));
        assertEquals(0.0, TestProblems.maxAbsDiff(h.scores(p.features()), loaded.scores(p.features())));
        // earlier functions are not changed by continuing them
        assertEquals(0.0, TestProblems.maxAbsDiff(before, f.scores(p.features())));
        // continuing the loaded function (momentum state saved) is the same as continuing the original
        ScoreFunction a = oracle.fit(p, h), b = oracle.fit(p, loaded);
        assertTrue(TestProblems.maxAbsDiff(a.scores(p.features()), b.scores(p.features())) < 1e-6);
    }

    @Test
    void deterministicGivenTheSeed() {
        BiasedLogisticProblem p = TestProblems.random(1500, 2, 2, 1.0, 32, DataType.FLOAT);
        ScoreFunction a = new MlpOracle(0.05, 8, 1, 100, 0.9, 99).fit(p, null);
        ScoreFunction b = new MlpOracle(0.05, 8, 1, 100, 0.9, 99).fit(p, null);
        ScoreFunction c = new MlpOracle(0.05, 8, 1, 100, 0.9, 98).fit(p, null);
        assertEquals(0.0, TestProblems.maxAbsDiff(a.scores(p.features()), b.scores(p.features())));
        assertTrue(TestProblems.maxAbsDiff(a.scores(p.features()), c.scores(p.features())) > 1e-4);
    }
}
