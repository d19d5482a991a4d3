package org.structlr.oracle.linear;

import org.structlr.oracle.BiasedLogisticProblem;
import org.structlr.oracle.TestProblems;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.nd4j.linalg.api.buffer.DataType;

/**
 * The linear oracle's loss over row blocks: the same bits on every thread count, the gradient of
 * the loss (finite differences), the former ND4J computation's values; and the early-stopping fit
 * at the Newton optimum, with warm starts that take few steps.
 */
class LinearLossTest {

    private static double[] someW(int n) {
        double[] w = new double[n];
        for (int i = 0; i < n; i++) w[i] = 0.3 * Math.sin(1.7 * i + 0.2);
        return w;
    }

    /**
     * Rows not a multiple of the block, so the last block is partial. D=7, C=2 is the two-class
     * (logistic) path; its values must equal the general softmax computation's too.
     */
    @org.junit.jupiter.params.ParameterizedTest(name = "D={0}, C={1}")
    @org.junit.jupiter.params.provider.CsvSource({"3,4", "7,2"})
    void sameBitsOnEveryThreadCountAndTheFormerValues(int d, int c) {
        BiasedLogisticProblem p = TestProblems.random(3 * LinearLoss.BLOCK_ROWS + 517, d, c, 1.0, 21, DataType.FLOAT);
        int m = d * c;
        double[] w = someW(m);
        double[] g1 = new double[m];
        double f1 = LinearLoss.of(p, 1).valueAndGradient(w, g1);
        for (int threads : new int[] {2, 3, 8}) {
            double[] g = new double[m];
            double f = LinearLoss.of(p, threads).valueAndGradient(w, g);
            assertEquals(f1, f, 0.0, threads + " threads: loss");
            assertArrayEquals(g1, g, 0.0, threads + " threads: gradient");
        }
        double[] g0 = new double[m];
        double f0 = LinearLossTiming.nd4jObjective(p).valueAndGradient(w, g0);
        assertEquals(f0, f1, 1e-12 * Math.abs(f0));
        assertArrayEquals(g0, g1, 1e-12);
        // the general pass (the one that also builds the Hessian) gives the same loss and gradient
        double[] gh = new double[m];
        double fh = LinearLoss.of(p, 2).valueGradientHessian(w, gh, new double[m * m]);
        assertEquals(fh, f1, 1e-12 * Math.abs(fh));
        assertArrayEquals(gh, g1, 1e-12);
        assertTrue(Math.abs(g1[0]) > 1e-3, "a gradient far from 0, so the comparison says something");
        assertEquals(p.meanLoss(null), LinearLoss.of(p, 2).valueAndGradient(new double[m], new double[m]), 1e-12);
    }

    @org.junit.jupiter.params.ParameterizedTest(name = "C={0}")
    @org.junit.jupiter.params.provider.ValueSource(ints = {3, 2})
    void gradientMatchesFiniteDifferences(int c) {
        BiasedLogisticProblem p = TestProblems.random(2000, 3, c, 1.0, 4, DataType.DOUBLE);
        LinearLoss f = LinearLoss.of(p, 2);
        int m = 3 * c;
        double[] w = someW(m), g = new double[m], scratch = new double[m];
        f.valueAndGradient(w, g);
        double h = 1e-5;
        for (int i = 0; i < w.length; i++) {
            double[] up = w.clone(), down = w.clone();
            up[i] += h;
            down[i] -= h;
            double fd = (f.valueAndGradient(up, scratch) - f.valueAndGradient(down, scratch)) / (2 * h);
            assertEquals(fd, g[i], 1e-7, "d f / d w_" + i);
        }
        assertTrue(Math.abs(g[0]) + Math.abs(g[4]) > 1e-3, "a gradient far from 0, so the comparison says something");
    }

    @Test
    void hessianMatchesFiniteDifferencesOfTheGradient() {
        BiasedLogisticProblem p = TestProblems.random(3000, 3, 3, 1.0, 6, DataType.DOUBLE);
        LinearLoss f = LinearLoss.of(p, 3);
        int m = 9;
        double[] w = someW(m), g = new double[m], h = new double[m * m], gUp = new double[m], gDown = new double[m];
        double value = f.valueGradientHessian(w, g, h);
        assertEquals(f.valueAndGradient(w, new double[m]), value, 0.0, "the Hessian pass gives the same loss");
        double step = 1e-5;
        for (int i = 0; i < m; i++) {
            double[] up = w.clone(), down = w.clone();
            up[i] += step;
            down[i] -= step;
            f.valueAndGradient(up, gUp);
            f.valueAndGradient(down, gDown);
            for (int k = 0; k < m; k++) {
                assertEquals((gUp[k] - gDown[k]) / (2 * step), h[k * m + i], 1e-7, "d2f / dw_" + k + " dw_" + i);
            }
        }
        assertTrue(Math.abs(h[0]) > 1e-2, "a Hessian far from 0");
    }

    /** W with the mean over classes of each feature's row removed (the loss cannot see it). */
    private static double[][] centred(double[][] a) {
        for (double[] row : a) {
            double mean = 0;
            for (double v : row) mean += v / row.length;
            for (int k = 0; k < row.length; k++) row[k] -= mean;
        }
        return a;
    }

    private static double maxDiff(double[][] a, double[][] b) {
        double m = 0;
        for (int j = 0; j < a.length; j++) for (int k = 0; k < a[j].length; k++) m = Math.max(m, Math.abs(a[j][k] - b[j][k]));
        return m;
    }

    /**
     * The default stopping rule (gradient 1e-6 or relative decrease 1e-9), with the Newton and with
     * the L-BFGS solver, ends at the reference Newton optimum
     * to 1e-4 in W and 1e-9 in the mean loss; warm-started on a slightly moved bias (the learner's
     * late iterations) it takes far fewer loss evaluations than from scratch and is at that
     * problem's optimum too.
     */
    @org.junit.jupiter.params.ParameterizedTest(name = "D={0}, C={1}")
    @org.junit.jupiter.params.provider.CsvSource({"3,3", "10,4"})   // Newton; L-BFGS (40 parameters)
    void earlyStoppingFitReachesTheNewtonOptimumAndWarmStartsAreCheap(int d, int c) {
        int n = 20_000;
        BiasedLogisticProblem p = TestProblems.random(n, d, c, 1.0, 31, DataType.FLOAT);
        LinearOracle oracle = new LinearOracle(2);
        LinearScore cold = (LinearScore) oracle.fit(p, null);
        int coldEvaluations = oracle.lastFitCounts()[1];
        double[][] ref = NewtonReference.solve(BiasedLogisticProblem.flatDouble(p.features()), p.labels(), BiasedLogisticProblem.flatDouble(p.bias()), n, d, c);
        double[][] w = centred(cold.weights().castTo(DataType.DOUBLE).toDoubleMatrix());
        double err = maxDiff(w, centred(ref));
        System.out.printf("cold fit: %d evaluations, max |W - W_newton| = %.3g%n", coldEvaluations, err);
        assertTrue(err < 1e-4, "max |W - W_newton| = " + err);

        // a bias moved by 1% of its scale, as between two late learner iterations
        BiasedLogisticProblem q = new BiasedLogisticProblem(p.features(), p.labels(),
                p.bias().add(TestProblems.withNewBias(p, 0.01, 77).bias()), c);
        LinearScore warm = (LinearScore) oracle.fit(q, cold);
        int warmEvaluations = oracle.lastFitCounts()[1];
        double[][] refQ = NewtonReference.solve(BiasedLogisticProblem.flatDouble(q.features()), q.labels(), BiasedLogisticProblem.flatDouble(q.bias()), n, d, c);
        double errQ = maxDiff(centred(warm.weights().castTo(DataType.DOUBLE).toDoubleMatrix()), centred(refQ));
        System.out.printf("warm fit: %d evaluations, max |W - W_newton| = %.3g%n", warmEvaluations, errQ);
        assertTrue(errQ < 1e-4, "warm: max |W - W_newton| = " + errQ);
        assertTrue(warmEvaluations * 2 <= coldEvaluations, "warm " + warmEvaluations + " evaluations, cold " + coldEvaluations);
        LinearScore tight = (LinearScore) new LinearOracle(1e-12, 0, 500, 1, 1).fit(q, null);
        assertEquals(q.meanLoss(tight), q.meanLoss(warm), 1e-8, "mean loss at the tight optimum");
    }
}
