package org.structlr.oracle;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;
import org.junit.jupiter.api.Test;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;

/**
 * The one biased logistic loss: against its formula, finite differences, the two-class form, the
 * ND4J form; weights as duplicated rows, soft one-hot targets as labels, soft targets as weighted
 * labels.
 */
class BiasedLogisticLossTest {

    static double[] randomZ(Random r, int c) {
        double[] z = new double[c];
        for (int k = 0; k < c; k++) z[k] = 3 * r.nextGaussian();
        return z;
    }

    /** sum_c T_c (lse(z) - z_c) by the definition (log of a plain sum of exps). */
    static double byDefinition(double[] z, double[] t) {
        double sum = 0;
        for (double v : z) sum += Math.exp(v);
        double lse = Math.log(sum), loss = 0;
        for (int k = 0; k < z.length; k++) loss += t[k] * (lse - z[k]);
        return loss;
    }

    static double[] oneHot(int y, int c, double w) {
        double[] t = new double[c];
        t[y] = w;
        return t;
    }

    @Test
    void aRowIsItsFormulaAndItsResidualTheGradient() {
        Random r = new Random(3);
        for (int c = 1; c <= 5; c++) {
            for (int trial = 0; trial < 20; trial++) {
                double[] z = randomZ(r, c);
                int y = r.nextInt(c);
                double w = 0.5 + 2 * r.nextDouble();
                double[] soft = new double[c];
                double s = 0;
                for (int k = 0; k < c; k++) s += (soft[k] = r.nextDouble());
                for (int k = 0; k < c; k++) soft[k] /= s;
                RowTargets[] cases = {RowTargets.labels(new int[]{y}, c), RowTargets.labels(new int[]{y}, c).withWeights(new double[]{w}),
                        RowTargets.soft(soft, c), RowTargets.soft(soft, c).withWeights(new double[]{w})};
                for (RowTargets t : cases) {
                    double[] tr = new double[c];
                    for (int k = 0; k < c; k++) tr[k] = t.target(0, k);
                    double[] p = new double[c], res = new double[c];
                    double loss = BiasedLogisticLoss.row(t, 0, z.clone(), 0, p, res);
                    assertEquals(byDefinition(z, tr), loss, 1e-12 * Math.max(1, Math.abs(loss)), t + " loss");
                    double psum = 0;
                    for (double v : p) psum += v;
                    assertEquals(1, psum, 1e-12, "softmax sums to 1");
                    for (int k = 0; k < c; k++) {
                        double h = 1e-6;
                        double[] up = z.clone(), down = z.clone();
                        up[k] += h;
                        down[k] -= h;
                        double fd = (byDefinition(up, tr) - byDefinition(down, tr)) / (2 * h);
                        assertEquals(fd, res[k], 1e-7, t + " residual " + k);
                    }
                    // p may be z itself
                    double[] zz = z.clone();
                    assertEquals(loss, BiasedLogisticLoss.row(t, 0, zz, 0, zz, null), 0);
                    assertArrayEquals(p, zz, 0);
                }
            }
        }
    }

    @Test
    void theTwoClassFormIsTheGeneralRow() {
        Random r = new Random(5);
        for (int trial = 0; trial < 200; trial++) {
            double[] z = randomZ(r, 2);
            if (trial == 0) z = new double[]{0, 0};
            double t1 = r.nextDouble(), w = 3 * r.nextDouble();
            RowTargets[] cases = {RowTargets.labels(new int[]{trial % 2}, 2), RowTargets.labels(new int[]{trial % 2}, 2).withWeights(new double[]{w}),
                    RowTargets.soft(new double[]{1 - t1, t1}, 2).withWeights(new double[]{w})};
            for (RowTargets t : cases) {
                double[] p = new double[2], res = new double[2], one = new double[1];
                double general = BiasedLogisticLoss.row(t, 0, z, 0, p, res);
                double binary = BiasedLogisticLoss.binaryRow(t, 0, z[1] - z[0], one);
                assertEquals(general, binary, 1e-12 * Math.max(1, general), t + " at " + z[0] + ", " + z[1]);
                assertEquals(res[1], one[0], 1e-12, "d/d(z1 - z0) = d/dz1");
                assertEquals(-res[0], one[0], 1e-12, "= -d/dz0");
            }
        }
    }

    /** A weight k is k copies of the row; a soft one-hot target is its label, bit for bit. */
    @Test
    void weightsAreDuplicatedRowsAndOneHotTargetsAreLabels() {
        Random r = new Random(7);
        int c = 4;
        double[] z = randomZ(r, c);
        RowTargets once = RowTargets.labels(new int[]{2}, c);
        RowTargets thrice = once.withWeights(new double[]{3});
        RowTargets copies = RowTargets.labels(new int[]{2, 2, 2}, c);
        double[] p = new double[c], r1 = new double[c], r3 = new double[c], sum = new double[c];
        double l1 = BiasedLogisticLoss.row(once, 0, z, 0, p, r1);
        double l3 = BiasedLogisticLoss.row(thrice, 0, z, 0, p, r3);
        double lc = 0;
        for (int i = 0; i < 3; i++) {
            double[] ri = new double[c];
            lc += BiasedLogisticLoss.row(copies, i, z, 0, p, ri);
            for (int k = 0; k < c; k++) sum[k] += ri[k];
        }
        assertEquals(lc, l3, 1e-12);
        assertArrayEquals(sum, r3, 1e-12);
        assertEquals(3, thrice.totalWeight());
        double[] rs = new double[c];
        assertEquals(l1, BiasedLogisticLoss.row(RowTargets.soft(oneHot(2, c, 1), c), 0, z, 0, p, rs), 0);
        assertArrayEquals(r1, rs, 0);
        assertEquals(0, BiasedLogisticLoss.row(once.withWeights(new double[]{0}), 0, z, 0, p, rs));
        assertArrayEquals(new double[c], rs, 0, "weight 0: no gradient");
    }

    /** The ND4J form the DL4J losses use is the same loss and gradient. */
    @Test
    void theNd4jFormIsTheSameLossAndGradient() {
        Random r = new Random(11);
        int n = 30, c = 3;
        double[] zf = new double[n * c], tf = new double[n * c];
        for (int i = 0; i < zf.length; i++) zf[i] = 2 * r.nextGaussian();
        double[] w = new double[n];
        for (int i = 0; i < n; i++) {
            w[i] = 2 * r.nextDouble();
            double s = 0;
            for (int k = 0; k < c; k++) s += (tf[i * c + k] = r.nextDouble());
            for (int k = 0; k < c; k++) tf[i * c + k] /= s;
        }
        RowTargets t = RowTargets.soft(tf, c).withWeights(w);
        INDArray z = Nd4j.create(zf, new long[]{n, c}, 'c');
        INDArray col = BiasedLogisticLoss.lossColumn(z, t.matrix(DataType.DOUBLE));
        INDArray grad = BiasedLogisticLoss.gradient(z, t.matrix(DataType.DOUBLE));
        double[] p = new double[c], res = new double[c];
        for (int i = 0; i < n; i++) {
            double loss = BiasedLogisticLoss.row(t, i, zf, i * c, p, res);
            assertEquals(loss, col.getDouble(i, 0), 1e-12);
            for (int k = 0; k < c; k++) assertEquals(res[k], grad.getDouble(i, k), 1e-12);
        }
    }

    /**
     * The problem's loss (ND4J ops, double, one scalar to the host) is the sum of the rows' losses in
     * Java ({@link BiasedLogisticLoss#row} summed) to double rounding: 2 classes (the log1p form) and 4,
     * scores up to +-30, labels, weighted and soft targets, float and double problems (a float
     * problem's weighted or soft targets are its float target matrix: to float rounding).
     */
    @Test
    void theProblemLossIsTheSumOfItsRowLosses() {
        for (DataType dt : new DataType[]{DataType.FLOAT, DataType.DOUBLE}) {
            for (int c : new int[]{2, 4}) {
                BiasedLogisticProblem hard = TestProblems.random(200, 3, c, 4.0, 31 + c, dt);
                Random r = new Random(37 + c);
                double[] w = new double[200], soft = new double[200 * c], sf = new double[200 * c];
                for (int i = 0; i < 200; i++) {
                    w[i] = 3 * r.nextDouble();
                    double sum = 0;
                    for (int k = 0; k < c; k++) sum += (soft[i * c + k] = r.nextDouble());
                    for (int k = 0; k < c; k++) soft[i * c + k] /= sum;
                }
                for (int i = 0; i < sf.length; i++) sf[i] = 10 * r.nextGaussian();
                INDArray scores = Nd4j.create(sf, new long[]{200, c}, 'c').castTo(dt);
                BiasedLogisticProblem[] problems = {hard, hard.withTargets(hard.targets().withWeights(w)),
                        hard.withTargets(RowTargets.soft(soft, c).withWeights(w))};
                for (BiasedLogisticProblem p : problems) {
                    double want = total(p.targets(), BiasedLogisticProblem.flatDouble(scores),
                            BiasedLogisticProblem.flatDouble(p.bias()));
                    double tol = (p.targets().hard() && !p.targets().weighted()) || dt == DataType.DOUBLE ? 1e-12 : 1e-6;
                    assertEquals(want, p.loss(scores), tol * want, dt + ", " + c + " classes, " + p.targets());
                }
            }
        }
    }

    /**
     * Classes far below their row's best (bias -1000: beyond where log(softmax) underflows, about
     * 745 in double) add nothing where their target is 0 and their true size where it is 1, as in
     * the rows' losses summed in Java, instead of 0 * -inf = NaN. Float and double problems, 2 and
     * 4 classes; once with the true class of row 0 among them.
     */
    @Test
    void classesFarBelowTheRowsBestAddTheirTrueLossNotNaN() {
        for (DataType dt : new DataType[]{DataType.FLOAT, DataType.DOUBLE}) {
            for (int c : new int[]{2, 4}) {
                int n = 50;
                Random r = new Random(41 + c);
                int[] y = new int[n];
                double[] b = new double[n * c], s = new double[n * c];
                for (int i = 0; i < n; i++) {
                    y[i] = r.nextInt(c);
                    for (int k = 0; k < c; k++) {
                        b[i * c + k] = k != y[i] && r.nextBoolean() ? -1000 : r.nextGaussian();
                        s[i * c + k] = 3 * r.nextGaussian();
                    }
                }
                INDArray x = Nd4j.ones(dt, n, 1);
                INDArray scores = Nd4j.create(s, new long[]{n, c}, 'c').castTo(dt);
                for (int round = 0; round < 2; round++) {
                    if (round == 1) b[y[0]] = -1000;   // row 0's true class far below its best
                    BiasedLogisticProblem p = new BiasedLogisticProblem(x, y, Nd4j.create(b, new long[]{n, c}, 'c').castTo(dt), c);
                    double want = total(p.targets(), BiasedLogisticProblem.flatDouble(scores), BiasedLogisticProblem.flatDouble(p.bias()));
                    assertTrue(Double.isFinite(want) && want > 0, "the Java sum: " + want);
                    assertEquals(want, p.loss(scores), 1e-9 * want, dt + ", " + c + " classes, round " + round);
                }
            }
        }
    }

    /** The summed loss of every row in Java: scores {@code s} and bias {@code b} row-major [N, C]. */
    static double total(RowTargets t, double[] s, double[] b) {
        int c = t.numClasses(), n = t.numRows();
        double[] z = new double[c];
        double total = 0;
        for (int i = 0; i < n; i++) {
            for (int k = 0; k < c; k++) z[k] = s[i * c + k] + b[i * c + k];
            total += BiasedLogisticLoss.row(t, i, z, 0, z, null);
        }
        return total;
    }

    /** A problem with integer weights is the problem with its rows repeated; soft targets are the weighted mix of labels. */
    @Test
    void aWeightedProblemIsItsRowsRepeatedAndSoftTargetsAMixOfLabels() {
        BiasedLogisticProblem p = TestProblems.random(40, 3, 3, 1.0, 13, DataType.DOUBLE);
        int[] times = new int[40];
        Random r = new Random(17);
        for (int i = 0; i < 40; i++) times[i] = r.nextInt(3);
        BiasedLogisticProblem weighted = p.withTargets(p.targets().withWeights(java.util.Arrays.stream(times).asDoubleStream().toArray()));
        BiasedLogisticProblem repeated = TestProblems.repeat(p, times);
        INDArray w = Nd4j.create(new double[]{0.3, -0.2, 0.1, 0.5, 0.0, -0.4, 0.2, 0.2, -0.1}, new long[]{3, 3}, 'c');
        assertEquals(repeated.loss(repeated.features().mmul(w)), weighted.loss(p.features().mmul(w)), 1e-10);
        assertEquals(repeated.numRows(), weighted.totalWeight());

        // soft row t = sum_c t_c onehot(c): the loss of rows (x, c) weighted t_c
        double[] soft = new double[40 * 3];
        for (int i = 0; i < soft.length; i++) soft[i] = r.nextDouble();
        for (int i = 0; i < 40; i++) {
            double s = soft[3 * i] + soft[3 * i + 1] + soft[3 * i + 2];
            for (int k = 0; k < 3; k++) soft[3 * i + k] /= s;
        }
        BiasedLogisticProblem softP = p.withTargets(RowTargets.soft(soft, 3));
        BiasedLogisticProblem mix = TestProblems.mixture(p, soft);
        assertEquals(mix.loss(mix.features().mmul(w)), softP.loss(p.features().mmul(w)), 1e-10);
        assertEquals(mix.totalWeight(), softP.totalWeight(), 1e-12);
    }

    @Test
    void badTargetsAreRefusedNamingTheRow() {
        assertEquals("label 2 at row 1 is outside 0..1",
                assertThrows(IllegalArgumentException.class, () -> RowTargets.labels(new int[]{0, 2}, 2)).getMessage());
        assertEquals("soft targets of row 1 sum to 0.5, not 1",
                assertThrows(IllegalArgumentException.class, () -> RowTargets.soft(new double[]{0.5, 0.5, 0.25, 0.25}, 2)).getMessage());
        assertTrue(assertThrows(IllegalArgumentException.class, () -> RowTargets.soft(new double[]{1.5, -0.5}, 2)).getMessage()
                .startsWith("soft target -0.5 at row 0, class 1"));
        assertEquals("weight NaN at row 0 is not finite and >= 0", assertThrows(IllegalArgumentException.class,
                () -> RowTargets.labels(new int[]{0}, 2).withWeights(new double[]{Double.NaN})).getMessage());
        assertThrows(IllegalArgumentException.class, () -> RowTargets.labels(new int[]{0}, 2).withWeights(new double[]{1, 1}));
        BiasedLogisticProblem p = TestProblems.random(5, 2, 2, 1.0, 1, DataType.FLOAT);
        assertThrows(IllegalArgumentException.class, () -> p.withTargets(RowTargets.labels(new int[]{0, 1}, 2)));
        assertEquals("biased logistic problem: label 3 at row 0 is outside 0..1", assertThrows(IllegalArgumentException.class,
                () -> new BiasedLogisticProblem(p.features(), new int[]{3, 0, 0, 0, 0}, p.bias(), 2)).getMessage());
    }
}
