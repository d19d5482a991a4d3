package org.structlr.inference.nd4j;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;

import org.junit.jupiter.api.Test;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.structlr.graph.Coloring;
import org.structlr.graph.FactorGraph;

class GridMessagePassingTest {

    /** Plain sequential double-precision star updates (docs/design.md §1), checkerboard order, natural units. */
    static final class Naive {
        final FactorGraph g;
        final int L;
        final double eps;
        final double[][] th, pw;
        final double[][][] lam;
        final int[] color;
        final int[][] inc;

        Naive(FactorGraph g, int count, int h, int w, double eps, double[][] th, double[][] pw) {
            this.g = g;
            this.L = g.maxLabels();
            this.eps = eps;
            this.th = th;
            this.pw = pw;
            this.lam = new double[g.numEdges()][2][L];
            this.color = Coloring.checkerboard(h, w, count).colors();
            this.inc = g.incidence();
            for (int e = 0; e < g.numEdges(); e++) {
                for (int y = 0; y < L; y++) {
                    if (th[g.edgeFrom(e)][y] == Double.NEGATIVE_INFINITY) lam[e][0][y] = Double.NEGATIVE_INFINITY;
                    if (th[g.edgeTo(e)][y] == Double.NEGATIVE_INFINITY) lam[e][1][y] = Double.NEGATIVE_INFINITY;
                }
            }
        }

        double pot(int e, int side, int own, int other) {
            return side == 0 ? pw[e][own * L + other] : pw[e][other * L + own];
        }

        static double lse(double[] x) {
            double mx = Double.NEGATIVE_INFINITY;
            for (double v : x) mx = Math.max(mx, v);
            if (mx == Double.NEGATIVE_INFINITY) return mx;
            double s = 0;
            for (double v : x) s += Math.exp(v - mx);
            return mx + Math.log(s);
        }

        void star(int v) {
            int[] off = inc[0], edge = inc[1], side = inc[2];
            int deg = off[v + 1] - off[v];
            double[][] m = new double[deg][L];
            double[] total = th[v].clone();
            for (int k = 0; k < deg; k++) {
                int e = edge[off[v] + k], s = side[off[v] + k];
                for (int y = 0; y < L; y++) {
                    double[] z = new double[L];
                    for (int yo = 0; yo < L; yo++) z[yo] = (pot(e, s, y, yo) + lam[e][1 - s][yo]) / eps;
                    m[k][y] = eps * lse(z);
                    total[y] += m[k][y];
                }
            }
            for (int k = 0; k < deg; k++) {
                int e = edge[off[v] + k], s = side[off[v] + k];
                for (int y = 0; y < L; y++) {
                    lam[e][s][y] = total[y] == Double.NEGATIVE_INFINITY ? Double.NEGATIVE_INFINITY : total[y] / (deg + 1) - m[k][y];
                }
            }
        }

        void sweep() {
            for (int c = 0; c < 2; c++) {
                for (int v = 0; v < g.numVariables(); v++) if (color[v] == c) star(v);
            }
        }

        double[] unaryScore(int v) {
            int[] off = inc[0], edge = inc[1], side = inc[2];
            double[] s = new double[L];
            for (int y = 0; y < L; y++) {
                boolean impossible = th[v][y] == Double.NEGATIVE_INFINITY;
                double t = th[v][y];
                for (int k = off[v]; k < off[v + 1]; k++) {
                    double l = lam[edge[k]][side[k]][y];
                    if (l == Double.NEGATIVE_INFINITY) impossible = true;
                    t -= l;
                }
                s[y] = impossible ? Double.NEGATIVE_INFINITY : t / eps;
            }
            return s;
        }

        double[] pairScore(int e) {
            double[] s = new double[L * L];
            for (int a = 0; a < L; a++) {
                for (int b = 0; b < L; b++) s[a * L + b] = (pw[e][a * L + b] + lam[e][0][a] + lam[e][1][b]) / eps;
            }
            return s;
        }

        double dual() {
            double d = 0;
            for (int e = 0; e < g.numEdges(); e++) d += eps * lse(pairScore(e));
            for (int v = 0; v < g.numVariables(); v++) d += eps * lse(unaryScore(v));
            return d;
        }

        static double[] softmax(double[] x) {
            double l = lse(x);
            double[] b = new double[x.length];
            for (int i = 0; i < x.length; i++) b[i] = Math.exp(x[i] - l);
            return b;
        }

        double primal() {
            double p = 0;
            for (int v = 0; v < g.numVariables(); v++) {
                double[] b = softmax(unaryScore(v));
                for (int y = 0; y < L; y++) if (b[y] > 0) p += b[y] * th[v][y] - eps * b[y] * Math.log(b[y]);
            }
            for (int e = 0; e < g.numEdges(); e++) {
                double[] b = softmax(pairScore(e));
                for (int y = 0; y < L * L; y++) if (b[y] > 0) p += b[y] * pw[e][y] - eps * b[y] * Math.log(b[y]);
            }
            return p;
        }
    }

    private static double[][] randomUnary(Random rnd, int v, int l, double pInf) {
        double[][] a = new double[v][l];
        for (int i = 0; i < v; i++) {
            int keep = rnd.nextInt(l);
            for (int y = 0; y < l; y++) a[i][y] = (y != keep && rnd.nextDouble() < pInf) ? Double.NEGATIVE_INFINITY : rnd.nextGaussian();
        }
        return a;
    }

    private static double[][] randomPair(Random rnd, int e, int l, double pInf) {
        double[][] a = new double[e][l * l];
        for (int i = 0; i < e; i++) {
            for (int y = 0; y < l * l; y++) {
                boolean diag = y / l == y % l;
                a[i][y] = (!diag && rnd.nextDouble() < pInf) ? Double.NEGATIVE_INFINITY : 0.7 * rnd.nextGaussian() + (diag ? 0.5 : 0);
            }
        }
        return a;
    }

    private static INDArray toNd(double[][] a, DataType dt) {
        if (a.length == 0) return Nd4j.create(dt, 0, 4);
        return Nd4j.createFromArray(a).castTo(dt);
    }

    private static void assertClose(double expected, double actual, double tol, String what) {
        if (expected == Double.NEGATIVE_INFINITY || actual == Double.NEGATIVE_INFINITY) {
            assertEquals(expected, actual, what);
        } else {
            assertTrue(Math.abs(expected - actual) <= tol * Math.max(1, Math.abs(expected)),
                    what + ": expected " + expected + " got " + actual);
        }
    }

    private void compareWithNaive(int count, int h, int w, int l, double pInfU, double pInfP, long seed) {
        double eps = 0.3;
        Random rnd = new Random(seed);
        try (GridMessagePassing mp = new GridMessagePassing(count, h, w, l, eps, DataType.DOUBLE)) {
            FactorGraph g = mp.graph();
            assertEquals(count * h * w, g.numVariables());
            double[][] th = randomUnary(rnd, g.numVariables(), l, pInfU);
            double[][] pw = randomPair(rnd, g.numEdges(), l, pInfP);
            mp.setPotentials(toNd(th, DataType.DOUBLE), toNd(pw, DataType.DOUBLE));
            Naive ref = new Naive(g, count, h, w, eps, th, pw);
            assertClose(ref.dual(), mp.dual(), 1e-9, "initial dual");
            double prev = Double.POSITIVE_INFINITY;
            for (int k = 1; k <= 6; k++) {
                mp.iterate(1);
                ref.sweep();
                double[] got = mp.messages().reshape(-1).toDoubleVector();
                int i = 0;
                for (int e = 0; e < g.numEdges(); e++) {
                    for (int s = 0; s < 2; s++) {
                        for (int y = 0; y < l; y++, i++) assertClose(ref.lam[e][s][y], got[i], 1e-9, "sweep " + k + " message " + e + "," + s + "," + y);
                    }
                }
                double d = mp.dual();
                assertClose(ref.dual(), d, 1e-9, "dual after sweep " + k);
                assertClose(ref.primal(), mp.primal(), 1e-9, "primal after sweep " + k);
                assertTrue(d <= prev + 1e-9 * Math.max(1, Math.abs(d)), "dual increased: " + prev + " -> " + d);
                prev = d;
            }
            double[] ub = mp.unaryBeliefs().reshape(-1).toDoubleVector();
            for (int v = 0; v < g.numVariables(); v++) {
                double[] b = Naive.softmax(ref.unaryScore(v));
                for (int y = 0; y < l; y++) assertClose(b[y], ub[v * l + y], 1e-9, "unary belief " + v);
            }
            double[] pb = mp.pairBeliefs().reshape(-1).toDoubleVector();
            for (int e = 0; e < g.numEdges(); e++) {
                double[] b = Naive.softmax(ref.pairScore(e));
                for (int y = 0; y < l * l; y++) assertClose(b[y], pb[e * l * l + y], 1e-9, "pair belief " + e);
            }
            double[] sums = mp.incomingMessageSums().reshape(-1).toDoubleVector();
            for (int v = 0; v < g.numVariables(); v++) {
                for (int y = 0; y < l; y++) {
                    double s = 0;
                    int[][] inc = g.incidence();
                    for (int k = inc[0][v]; k < inc[0][v + 1]; k++) s += ref.lam[inc[1][k]][inc[2][k]][y];
                    assertClose(s, sums[v * l + y], 1e-9, "incoming sum " + v);
                }
            }
        }
    }

    @Test
    void matchesNaiveOddSizesTwoLabels() {
        compareWithNaive(2, 3, 4, 2, 0, 0, 1);
        compareWithNaive(2, 5, 5, 2, 0, 0, 2);
    }

    @Test
    void matchesNaiveThreeLabels() {
        compareWithNaive(2, 3, 4, 3, 0, 0, 3);
        compareWithNaive(2, 5, 5, 3, 0, 0, 4);
    }

    @Test
    void matchesNaiveWithHardConstraints() {
        compareWithNaive(2, 5, 5, 3, 0.2, 0.1, 5);
        compareWithNaive(2, 3, 4, 2, 0.2, 0.1, 6);
        compareWithNaive(1, 4, 3, 4, 0.2, 0.1, 7);
    }

    @Test
    void thinGrids() {
        compareWithNaive(3, 1, 5, 2, 0, 0, 8);
        compareWithNaive(2, 4, 1, 3, 0, 0, 9);
        compareWithNaive(2, 1, 1, 2, 0, 0, 10);
    }

    @Test
    void convergesToZeroGapWithConsistentBeliefs() {
        int l = 3;
        Random rnd = new Random(11);
        try (GridMessagePassing mp = new GridMessagePassing(2, 5, 5, l, 0.5, DataType.DOUBLE)) {
            FactorGraph g = mp.graph();
            mp.setPotentials(toNd(randomUnary(rnd, g.numVariables(), l, 0.1), DataType.DOUBLE),
                    toNd(randomPair(rnd, g.numEdges(), l, 0), DataType.DOUBLE));
            // the gap can be negative before convergence (beliefs not yet locally consistent), so
            // iterate until |gap| is small rather than relying on gap <= tolerance
            double gap = Double.NaN;
            for (int it = 0; it < 5000 && !(Math.abs(gap) < 1e-8); it += 10) {
                mp.iterate(10);
                gap = mp.gap();
            }
            assertTrue(Math.abs(gap) < 1e-6, "gap " + gap);
            double[] ub = mp.unaryBeliefs().reshape(-1).toDoubleVector();
            double[] pb = mp.pairBeliefs().reshape(-1).toDoubleVector();
            for (int e = 0; e < g.numEdges(); e++) {
                int i = g.edgeFrom(e), j = g.edgeTo(e);
                for (int y = 0; y < l; y++) {
                    double si = 0, sj = 0;
                    for (int o = 0; o < l; o++) {
                        si += pb[e * l * l + y * l + o];
                        sj += pb[e * l * l + o * l + y];
                    }
                    assertEquals(ub[i * l + y], si, 1e-5, "marginal of edge " + e + " at its first end");
                    assertEquals(ub[j * l + y], sj, 1e-5, "marginal of edge " + e + " at its second end");
                }
            }
            int[] dec = mp.decode();
            for (int v = 0; v < g.numVariables(); v++) {
                for (int y = 0; y < l; y++) assertTrue(ub[v * l + y] <= ub[v * l + dec[v]] + 1e-12);
            }
        }
    }

    @Test
    void floatAgreesWithDouble() {
        int l = 3;
        Random rnd = new Random(12);
        try (GridMessagePassing md = new GridMessagePassing(2, 5, 6, l, 0.2, DataType.DOUBLE);
             GridMessagePassing mf = new GridMessagePassing(2, 5, 6, l, 0.2, DataType.FLOAT)) {
            FactorGraph g = md.graph();
            double[][] th = randomUnary(rnd, g.numVariables(), l, 0.1);
            double[][] pw = randomPair(rnd, g.numEdges(), l, 0.05);
            md.setPotentials(toNd(th, DataType.DOUBLE), toNd(pw, DataType.DOUBLE));
            mf.setPotentials(toNd(th, DataType.FLOAT), toNd(pw, DataType.FLOAT));
            md.iterate(20);
            mf.iterate(20);
            assertEquals(md.dual(), mf.dual(), 1e-3 * Math.max(1, Math.abs(md.dual())));
            assertEquals(md.primal(), mf.primal(), 1e-3 * Math.max(1, Math.abs(md.primal())));
            double[] a = md.messages().reshape(-1).toDoubleVector(), b = mf.messages().reshape(-1).toDoubleVector();
            for (int i = 0; i < a.length; i++) {
                if (a[i] == Double.NEGATIVE_INFINITY) assertEquals(a[i], b[i]);
                else assertEquals(a[i], b[i], 1e-3 * Math.max(1, Math.abs(a[i])), "message " + i);
            }
            double[] ua = md.unaryBeliefs().reshape(-1).toDoubleVector(), ubf = mf.unaryBeliefs().reshape(-1).toDoubleVector();
            assertArrayEquals(ua, ubf, 1e-3);
            // L = 2 fast path in float
            try (GridMessagePassing d2 = new GridMessagePassing(2, 4, 5, 2, 0.2, DataType.DOUBLE);
                 GridMessagePassing f2 = new GridMessagePassing(2, 4, 5, 2, 0.2, DataType.FLOAT)) {
                double[][] t2 = randomUnary(rnd, 40, 2, 0.1);
                double[][] p2 = randomPair(rnd, d2.graph().numEdges(), 2, 0.1);
                d2.setPotentials(toNd(t2, DataType.DOUBLE), toNd(p2, DataType.DOUBLE));
                f2.setPotentials(toNd(t2, DataType.FLOAT), toNd(p2, DataType.FLOAT));
                d2.iterate(20);
                f2.iterate(20);
                assertEquals(d2.dual(), f2.dual(), 1e-3 * Math.max(1, Math.abs(d2.dual())));
                assertArrayEquals(d2.unaryBeliefs().reshape(-1).toDoubleVector(), f2.unaryBeliefs().reshape(-1).toDoubleVector(), 1e-3);
            }
        }
    }

    @Test
    void messagesRoundTripAndReset() {
        Random rnd = new Random(13);
        try (GridMessagePassing mp = new GridMessagePassing(2, 3, 5, 2, 0.1, DataType.DOUBLE)) {
            FactorGraph g = mp.graph();
            mp.setPotentials(toNd(randomUnary(rnd, g.numVariables(), 2, 0), DataType.DOUBLE),
                    toNd(randomPair(rnd, g.numEdges(), 2, 0), DataType.DOUBLE));
            mp.iterate(3);
            INDArray m = mp.messages();
            double d = mp.dual();
            mp.resetMessages();
            assertEquals(0.0, mp.messages().amaxNumber().doubleValue(), 0.0);
            mp.setMessages(m);
            assertArrayEquals(m.reshape(-1).toDoubleVector(), mp.messages().reshape(-1).toDoubleVector(), 1e-12);
            assertEquals(d, mp.dual(), 1e-9 * Math.max(1, Math.abs(d)));
            mp.iterate(1);
            assertTrue(mp.dual() <= d + 1e-9);
        }
    }

    @Test
    void agreesWithGeneralGraphEngine() {
        agreeWithGeneral(2, 5, 4, 3, 0, 0);
        agreeWithGeneral(2, 5, 4, 3, 0.1, 0.05);
        agreeWithGeneral(3, 7, 9, 2, 0.1, 0.1);
        agreeWithGeneral(2, 6, 3, 4, 0.1, 0.05);
    }

    private void agreeWithGeneral(int count, int h, int w, int l, double pInfU, double pInfP) {
        Random rnd = new Random(14 + h * w * l);
        try (GridMessagePassing grid = new GridMessagePassing(count, h, w, l, 0.25, DataType.DOUBLE);
             GraphMessagePassing general = new GraphMessagePassing(grid.graph(), Coloring.checkerboard(h, w, count), 0.25, DataType.DOUBLE)) {
            FactorGraph g = grid.graph();
            INDArray un = toNd(randomUnary(rnd, g.numVariables(), l, pInfU), DataType.DOUBLE);
            INDArray pw = toNd(randomPair(rnd, g.numEdges(), l, pInfP), DataType.DOUBLE);
            grid.setPotentials(un, pw);
            general.setPotentials(un, pw);
            grid.resetMessages();
            general.resetMessages();
            // Both engines start from the same messages after reset: 0, and -inf into impossible labels.
            for (int k = 0; k < 4; k++) {
                grid.iterate(2);
                general.iterate(2);
                assertClose(general.dual(), grid.dual(), 1e-9, "dual (pInf " + pInfU + ", sweep " + (2 * k + 2) + ")");
                assertClose(general.primal(), grid.primal(), 1e-9, "primal");
                double[] a = general.messages().reshape(-1).toDoubleVector(), b = grid.messages().reshape(-1).toDoubleVector();
                for (int i = 0; i < a.length; i++) assertClose(a[i], b[i], 1e-9, "message " + i);
                assertArrayEquals(general.unaryBeliefs().reshape(-1).toDoubleVector(), grid.unaryBeliefs().reshape(-1).toDoubleVector(), 1e-9);
                assertArrayEquals(general.pairBeliefs().reshape(-1).toDoubleVector(), grid.pairBeliefs().reshape(-1).toDoubleVector(), 1e-9);
                assertArrayEquals(general.incomingMessageSums().reshape(-1).toDoubleVector(), grid.incomingMessageSums().reshape(-1).toDoubleVector(), 1e-9);
                assertArrayEquals(general.decode(), grid.decode());
            }
        }
    }

    @Test
    void refusesBadInput() {
        try (GridMessagePassing mp = new GridMessagePassing(1, 2, 2, 2, 0.1, DataType.DOUBLE)) {
            INDArray u = Nd4j.zeros(DataType.DOUBLE, 4, 2), p = Nd4j.zeros(DataType.DOUBLE, 4, 4);
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> mp.setPotentials(Nd4j.zeros(DataType.DOUBLE, 3, 2), p));
            assertTrue(e.getMessage().contains("shape"), e.getMessage());
            u.putScalar(1, 0, Double.NaN);
            e = assertThrows(IllegalArgumentException.class, () -> mp.setPotentials(u, p));
            assertTrue(e.getMessage().contains("NaN") && e.getMessage().contains("unary"), e.getMessage());
            u.putScalar(1, 0, 0);
            p.putScalar(2, 3, Double.POSITIVE_INFINITY);
            e = assertThrows(IllegalArgumentException.class, () -> mp.setPotentials(u, p));
            assertTrue(e.getMessage().contains("Infinity") && e.getMessage().contains("pairwise"), e.getMessage());
            assertThrows(IllegalStateException.class, mp::dual);
        }
        assertThrows(IllegalArgumentException.class, () -> new GridMessagePassing(1, 2, 2, 1, 0.1, DataType.DOUBLE));
        assertThrows(IllegalArgumentException.class, () -> new GridMessagePassing(1, 2, 2, 2, 0, DataType.DOUBLE));
    }
}
