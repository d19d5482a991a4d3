package org.structlr.oracle.linear;

import org.structlr.oracle.BiasedLogisticProblem;
import org.structlr.oracle.ScoreFunction;
import org.structlr.oracle.TestProblems;
import org.structlr.oracle.ZeroScore;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;

class LinearOracleTest {

    /** W with the class mean of each feature's row removed (the loss cannot see it). */
    private static double[][] centred(INDArray w) {
        double[][] a = w.castTo(DataType.DOUBLE).toDoubleMatrix();
        for (double[] row : a) {
            double mean = 0;
            for (double v : row) mean += v / row.length;
            for (int k = 0; k < row.length; k++) row[k] -= mean;
        }
        return a;
    }

    @Test
    void matchesAnIndependentNewtonSolution() {
        int n = 200, d = 3, c = 3;
        BiasedLogisticProblem p = TestProblems.random(n, d, c, 1.5, 11, DataType.DOUBLE);
        double[][] ref = NewtonReference.solve(BiasedLogisticProblem.flatDouble(p.features()), p.labels(),
                BiasedLogisticProblem.flatDouble(p.bias()), n, d, c);
        LinearScore f = (LinearScore) new LinearOracle(1e-8, 200, 1).fit(p, null);
        double[][] w = centred(f.weights());
        double err = 0, scale = 0;
        for (int j = 0; j < d; j++) {
            for (int k = 0; k < c; k++) {
                err = Math.max(err, Math.abs(w[j][k] - ref[j][k]));
                scale = Math.max(scale, Math.abs(ref[j][k]));
            }
        }
        System.out.printf("linear vs Newton: max |W - W*| = %.3g (max |W*| = %.3g)%n", err, scale);
        assertTrue(scale > 0.3, "the reference solution should be far from 0");
        assertTrue(err < 1e-5, "max |W - W_newton| = " + err);
        assertTrue(TestProblems.maxAbsDiff(f.scores(p.features()), p.features().mmul(f.weights())) < 1e-12, "g = X W");
        // from scratch the gauge sum_c W_jc = 0 is kept
        double[][] raw = f.weights().toDoubleMatrix();
        for (double[] row : raw) {
            double s = 0;
            for (double v : row) s += v;
            assertEquals(0, s, 1e-9);
        }
    }

    @Test
    void warmStartNeverIncreasesTheLossAndContinues() {
        BiasedLogisticProblem p = TestProblems.random(300, 3, 2, 1.0, 5, DataType.DOUBLE);
        LinearOracle few = new LinearOracle(1e-9, 2, 1);   // a deliberately unfinished fit
        ScoreFunction f = null;
        double prev = p.loss((ScoreFunction) null);
        for (int call = 0; call < 4; call++) {
            BiasedLogisticProblem q = call == 0 ? p : TestProblems.withNewBias(p, 1.0, 100 + call);
            double before = q.loss(f);
            ScoreFunction g = few.fit(q, f);
            double after = q.loss(g);
            assertTrue(after <= before + 1e-9 * Math.abs(before), "call " + call + ": " + before + " -> " + after);
            if (f != null) {
                // the previous function is untouched by the continued fit
                assertEquals(before, q.loss(f), 0.0);
            }
            f = g;
            prev = after;
        }
        assertTrue(prev > 0);
    }

    @Test
    void floatProblemsReachTheFloatTolerance() {
        BiasedLogisticProblem pd = TestProblems.random(400, 3, 3, 1.0, 8, DataType.DOUBLE);
        BiasedLogisticProblem pf = new BiasedLogisticProblem(pd.features().castTo(DataType.FLOAT), pd.labels(),
                pd.bias().castTo(DataType.FLOAT), 3);
        LinearScore fd = (LinearScore) new LinearOracle(1e-9, 200, 1).fit(pd, null);
        LinearScore ff = (LinearScore) new LinearOracle(1e-8, 200, 1).fit(pf, null);
        assertEquals(DataType.FLOAT, ff.scores(pf.features()).dataType());
        double[][] a = centred(fd.weights()), b = centred(ff.weights());
        for (int j = 0; j < a.length; j++) for (int k = 0; k < a[j].length; k++) assertEquals(a[j][k], b[j][k], 1e-3);
    }

    @Test
    void refusesAnotherKindOrShapeOfPrevious() {
        BiasedLogisticProblem p = TestProblems.random(50, 3, 2, 1.0, 5, DataType.DOUBLE);
        assertThrows(IllegalArgumentException.class, () -> new LinearOracle().fit(p, new ConstantScore(new double[]{0, 1})));
        assertThrows(IllegalArgumentException.class, () -> new LinearOracle().fit(p, new ZeroScore(3)));
    }

    /**
     * Weighted rows fit as the rows repeated, soft targets as the rows once per class weighted by
     * their probabilities: the same optimum (two classes through the logistic form, three through
     * the general row), and the same Newton curvature (LinearNewton for these few parameters).
     */
    @Test
    void weightsAreRepeatedRowsAndSoftTargetsAMixOfLabels() {
        for (int c : new int[]{2, 3}) {
            BiasedLogisticProblem p = TestProblems.random(120, 3, c, 1.0, 31 + c, DataType.FLOAT);
            java.util.Random r = new java.util.Random(c);
            int[] times = new int[p.numRows()];
            for (int i = 0; i < times.length; i++) times[i] = r.nextInt(3);
            BiasedLogisticProblem weighted = p.withTargets(p.targets().withWeights(java.util.Arrays.stream(times).asDoubleStream().toArray()));
            LinearOracle o = new LinearOracle(1e-10, 0, 200, 1, 1);
            assertClose(centred(((LinearScore) o.fit(TestProblems.repeat(p, times), null)).weights()),
                    centred(((LinearScore) o.fit(weighted, null)).weights()), 1e-6, c + " classes, weights");
            double[] soft = new double[p.numRows() * c];
            for (int i = 0; i < p.numRows(); i++) {
                double s = 0;
                for (int k = 0; k < c; k++) s += (soft[i * c + k] = r.nextDouble());
                for (int k = 0; k < c; k++) soft[i * c + k] /= s;
            }
            BiasedLogisticProblem softP = p.withTargets(org.structlr.oracle.RowTargets.soft(soft, c));
            assertClose(centred(((LinearScore) o.fit(TestProblems.mixture(p, soft), null)).weights()),
                    centred(((LinearScore) o.fit(softP, null)).weights()), 1e-6, c + " classes, soft targets");
        }
    }

    private static void assertClose(double[][] want, double[][] got, double tol, String what) {
        double worst = 0;
        for (int j = 0; j < want.length; j++) for (int k = 0; k < want[j].length; k++) worst = Math.max(worst, Math.abs(want[j][k] - got[j][k]));
        assertTrue(worst <= tol, what + ": largest difference " + worst);
        assertTrue(java.util.Arrays.stream(want).flatMapToDouble(java.util.Arrays::stream).map(Math::abs).max().orElse(0) > 0.05,
                what + ": the fit must move W away from 0");
    }
}
