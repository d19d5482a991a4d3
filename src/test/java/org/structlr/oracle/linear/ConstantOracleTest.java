package org.structlr.oracle.linear;

import org.structlr.oracle.BiasedLogisticProblem;
import org.structlr.oracle.ScoreFunction;
import org.structlr.oracle.TestProblems;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.factory.Nd4j;

class ConstantOracleTest {

    /** Plain Gaussian elimination with partial pivoting, for the test references. */
    static double[] gauss(double[][] a0, double[] b0) {
        int n = b0.length;
        double[][] a = new double[n][];
        for (int i = 0; i < n; i++) a[i] = a0[i].clone();
        double[] b = b0.clone();
        for (int k = 0; k < n; k++) {
            int p = k;
            for (int i = k + 1; i < n; i++) if (Math.abs(a[i][k]) > Math.abs(a[p][k])) p = i;
            double[] t = a[k]; a[k] = a[p]; a[p] = t;
            double tb = b[k]; b[k] = b[p]; b[p] = tb;
            for (int i = k + 1; i < n; i++) {
                double f = a[i][k] / a[k][k];
                for (int j = k; j < n; j++) a[i][j] -= f * a[k][j];
                b[i] -= f * b[k];
            }
        }
        double[] x = new double[n];
        for (int i = n - 1; i >= 0; i--) {
            double s = b[i];
            for (int j = i + 1; j < n; j++) s -= a[i][j] * x[j];
            x[i] = s / a[i][i];
        }
        return x;
    }

    @Test
    void zeroBiasGivesLogFrequencies() {
        int n = 500, c = 4;
        BiasedLogisticProblem p0 = TestProblems.random(n, 2, c, 0.0, 3, DataType.DOUBLE);
        BiasedLogisticProblem p = new BiasedLogisticProblem(p0.features(), p0.labels(), Nd4j.zeros(DataType.DOUBLE, n, c), c);
        double[] w = ((ConstantScore) new ConstantOracle().fit(p, null)).weights();
        double[] counts = new double[c];
        for (int y : p.labels()) counts[y]++;
        double meanLog = 0;
        for (double k : counts) meanLog += Math.log(k / n) / c;
        for (int k = 0; k < c; k++) assertEquals(Math.log(counts[k] / n) - meanLog, w[k], 1e-9, "class " + k);
    }

    @Test
    void withBiasTheGradientVanishesAndMatchesAFixedPointSolution() {
        int n = 400, c = 3;
        BiasedLogisticProblem p = TestProblems.random(n, 2, c, 2.0, 4, DataType.DOUBLE);
        double[] w = ((ConstantScore) new ConstantOracle().fit(p, null)).weights();
        double[] b = BiasedLogisticProblem.flatDouble(p.bias());
        double[] expected = new double[c];
        for (int y : p.labels()) expected[y]++;
        // optimality: sum_n softmax(w + b_n)_c = count_c for every c
        double[] sumP = new double[c];
        for (int i = 0; i < n; i++) {
            double s = 0;
            double[] e = new double[c];
            for (int k = 0; k < c; k++) s += (e[k] = Math.exp(w[k] + b[i * c + k]));
            for (int k = 0; k < c; k++) sumP[k] += e[k] / s;
        }
        for (int k = 0; k < c; k++) assertEquals(expected[k], sumP[k], 1e-7);
        // an independent solver: the multiplicative fixed point w_c += log(count_c / sum_n p_nc)
        double[] v = new double[c];
        for (int it = 0; it < 20000; it++) {
            double[] sp = new double[c];
            for (int i = 0; i < n; i++) {
                double s = 0;
                double[] e = new double[c];
                for (int k = 0; k < c; k++) s += (e[k] = Math.exp(v[k] + b[i * c + k]));
                for (int k = 0; k < c; k++) sp[k] += e[k] / s;
            }
            for (int k = 0; k < c; k++) v[k] += Math.log(expected[k] / sp[k]);
        }
        double mean = 0;
        for (double x : v) mean += x / c;
        for (int k = 0; k < c; k++) assertEquals(v[k] - mean, w[k], 1e-7, "class " + k);
        assertTrue(Math.abs(w[0] - w[1]) + Math.abs(w[1] - w[2]) > 0.01);
    }

    @Test
    void warmStartNeverIncreasesTheLoss() {
        BiasedLogisticProblem p = TestProblems.random(300, 2, 3, 1.5, 9, DataType.FLOAT);
        ConstantOracle oneStep = new ConstantOracle(0, 1);
        ScoreFunction f = null;
        for (int call = 0; call < 5; call++) {
            BiasedLogisticProblem q = call == 0 ? p : TestProblems.withNewBias(p, 1.5, 50 + call);
            double before = q.loss(f);
            f = oneStep.fit(q, f);
            double after = q.loss(f);
            assertTrue(after <= before, "call " + call + ": " + before + " -> " + after);
        }
    }

    /** Weighted rows fit as the rows repeated; soft targets as the rows once per class weighted by their probabilities. */
    @Test
    void weightsAreRepeatedRowsAndSoftTargetsAMixOfLabels() {
        BiasedLogisticProblem p = TestProblems.random(150, 1, 3, 1.0, 41, DataType.DOUBLE);
        java.util.Random r = new java.util.Random(43);
        int[] times = new int[p.numRows()];
        for (int i = 0; i < times.length; i++) times[i] = r.nextInt(4);
        BiasedLogisticProblem weighted = p.withTargets(p.targets().withWeights(java.util.Arrays.stream(times).asDoubleStream().toArray()));
        ConstantOracle o = new ConstantOracle();
        assertClose(((ConstantScore) o.fit(TestProblems.repeat(p, times), null)).weights(),
                ((ConstantScore) o.fit(weighted, null)).weights());
        double[] soft = new double[p.numRows() * 3];
        for (int i = 0; i < p.numRows(); i++) {
            double s = 0;
            for (int k = 0; k < 3; k++) s += (soft[i * 3 + k] = r.nextDouble());
            for (int k = 0; k < 3; k++) soft[i * 3 + k] /= s;
        }
        assertClose(((ConstantScore) o.fit(TestProblems.mixture(p, soft), null)).weights(),
                ((ConstantScore) o.fit(p.withTargets(org.structlr.oracle.RowTargets.soft(soft, 3)), null)).weights());
    }

    private static void assertClose(double[] want, double[] got) {
        double spread = java.util.Arrays.stream(want).max().getAsDouble() - java.util.Arrays.stream(want).min().getAsDouble();
        assertTrue(spread > 0.05, "the classes must get different weights: " + java.util.Arrays.toString(want));
        for (int k = 0; k < want.length; k++) assertEquals(want[k], got[k], 1e-9, "class " + k);
    }
}
