package org.structlr.inference;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;
import org.junit.jupiter.api.Test;
import org.nd4j.linalg.factory.Nd4j;
import org.structlr.graph.FactorGraph;

class ExactInferenceTest {
    static final double NINF = Double.NEGATIVE_INFINITY;

    /** Variables 0, 1, 2 with 2, 3, 2 labels; edges (0, 1) and (2, 1) (second edge reversed). */
    static FactorGraph threeVariables() {
        return FactorGraph.builder(new int[] {2, 3, 2}).edges(new int[] {0, 2}, new int[] {1, 1}, null).build();
    }

    static double[][][] potentials(long seed) {
        Random rnd = new Random(seed);
        double[][] u = new double[3][3], p = new double[2][9];
        for (double[] r : u) for (int k = 0; k < r.length; k++) r[k] = rnd.nextGaussian();
        for (double[] r : p) for (int k = 0; k < r.length; k++) r[k] = rnd.nextGaussian();
        u[0][2] = u[2][2] = 99;   // labels those variables do not have: ignored
        return new double[][][] {u, p};
    }

    @Test
    void logPartitionMarginalsAndMapMatchHandLoops() {
        FactorGraph g = threeVariables();
        double[][][] th = potentials(1);
        double[][] u = th[0], p = th[1];
        for (double t : new double[] {1.0, 0.3}) {
            double z = 0, best = NINF;
            int[] arg = null;
            double[][] mu = new double[3][3];
            double[] m01 = new double[9], m21 = new double[9];
            for (int a = 0; a < 2; a++) {
                for (int b = 0; b < 3; b++) {
                    for (int c = 0; c < 2; c++) {
                        double f = u[0][a] + u[1][b] + u[2][c] + p[0][a * 3 + b] + p[1][c * 3 + b];
                        double w = Math.exp(f / t);
                        z += w;
                        mu[0][a] += w;
                        mu[1][b] += w;
                        mu[2][c] += w;
                        m01[a * 3 + b] += w;
                        m21[c * 3 + b] += w;
                        if (f > best) {
                            best = f;
                            arg = new int[] {a, b, c};
                        }
                    }
                }
            }
            ExactInference.Result r = ExactInference.solve(g, u, p, t);
            assertEquals(Math.log(z), r.logPartition(), 1e-12, "log partition at T=" + t);
            assertArrayEquals(arg, r.map());
            assertEquals(best, r.mapScore(), 1e-12);
            assertEquals(best, ExactInference.score(g, u, p, arg), 0);
            for (int i = 0; i < 3; i++) {
                double s = 0;
                for (int y = 0; y < 3; y++) {
                    assertEquals(mu[i][y] / z, r.unaryMarginals()[i][y], 1e-12, "p(y_" + i + " = " + y + ")");
                    s += r.unaryMarginals()[i][y];
                }
                assertEquals(1.0, s, 1e-12, "marginal of " + i + " sums to 1");
            }
            for (int k = 0; k < 9; k++) {
                assertEquals(m01[k] / z, r.pairMarginals()[0][k], 1e-12);
                assertEquals(m21[k] / z, r.pairMarginals()[1][k], 1e-12);
            }
            assertEquals(0.0, r.unaryMarginals()[0][2], 0);
        }
    }

    @Test
    void indArrayInputGivesTheSameResult() {
        FactorGraph g = threeVariables();
        double[][][] th = potentials(2);
        ExactInference.Result a = ExactInference.solve(g, th[0], th[1], 0.5);
        ExactInference.Result b = ExactInference.solve(g, Nd4j.createFromArray(th[0]), Nd4j.createFromArray(th[1]), 0.5);
        assertArrayEquals(a.map(), b.map());
        assertEquals(a.logPartition(), b.logPartition(), 1e-12);
    }

    @Test
    void minusInfinityIsAHardConstraint() {
        FactorGraph g = threeVariables();
        double[][][] th = potentials(3);
        double[][] u = th[0], p = th[1];
        ExactInference.Result free = ExactInference.solve(g, u, p, 1.0);
        int[] y = free.map();
        p[0][y[0] * 3 + y[1]] = NINF;              // forbid the free MAP's pair on edge 0
        u[2][1] = NINF;                            // and label 1 of variable 2
        ExactInference.Result r = ExactInference.solve(g, u, p, 1.0);
        assertTrue(!(r.map()[0] == y[0] && r.map()[1] == y[1]) && r.map()[2] == 0, "constrained MAP " + java.util.Arrays.toString(r.map()));
        assertTrue(Double.isFinite(r.mapScore()) && Double.isFinite(r.logPartition()));
        assertEquals(0.0, r.pairMarginals()[0][y[0] * 3 + y[1]], 0);
        assertEquals(0.0, r.unaryMarginals()[2][1], 0);
        assertEquals(1.0, r.unaryMarginals()[2][0], 1e-12);
        for (double[] row : r.unaryMarginals()) for (double x : row) assertTrue(!Double.isNaN(x));

        for (int k = 0; k < 9; k++) p[1][k] = NINF;  // nothing is allowed on edge 1
        assertThrows(IllegalArgumentException.class, () -> ExactInference.solve(g, u, p, 1.0));
    }

    @Test
    void refusesTooManyLabelingsAndBadValues() {
        int n = 23;
        int[][] edges = new int[n - 1][];
        for (int k = 0; k + 1 < n; k++) edges[k] = new int[] {k, k + 1};
        FactorGraph big = FactorGraph.of(n, 2, edges);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> ExactInference.solve(big, new double[n][2], new double[n - 1][4], 1.0));
        assertTrue(e.getMessage().contains("8388608"), e.getMessage());
        FactorGraph g = threeVariables();
        double[][][] th = potentials(4);
        th[0][1][1] = Double.NaN;
        assertThrows(IllegalArgumentException.class, () -> ExactInference.solve(g, th[0], th[1], 1.0));
        th[0][1][1] = Double.POSITIVE_INFINITY;
        assertThrows(IllegalArgumentException.class, () -> ExactInference.solve(g, th[0], th[1], 1.0));
    }
}
