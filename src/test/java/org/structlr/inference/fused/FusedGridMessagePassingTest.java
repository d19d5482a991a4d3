package org.structlr.inference.fused;

import org.structlr.inference.BruteForce;
import org.structlr.inference.MessagePassing;
import org.structlr.inference.MessagePassingTest;
import org.structlr.inference.ReferenceAgreementTest;
import org.structlr.inference.TestEngines;
import org.structlr.inference.engines.Engines;
import org.structlr.inference.loop.LoopMessagePassing;
import org.structlr.inference.nd4j.GraphMessagePassing;
import org.structlr.inference.nd4j.GridMessagePassing;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.structlr.graph.Coloring;
import org.structlr.graph.FactorGraph;
import org.structlr.graph.GridBatch;

/**
 * The fused CPU engine (float) against the formulas (brute force), the plain loop engine and the
 * ND4J engines (double), the Python reference, and itself (ragged vs one image at a time, one vs two
 * threads, state round trips). Tolerance 1e-5 relative (float against double).
 */
class FusedGridMessagePassingTest {
    static final double TOL = 1e-5;
    /** Ragged, with odd sizes and 1xN, Nx1, 1x1 grids. */
    static final GridBatch RAGGED = new GridBatch(new int[] {3, 5, 1, 6, 1, 4}, new int[] {4, 5, 7, 1, 1, 9});

    /** Checkerboard colouring of a grid batch in natural variable order. */
    static Coloring checkerboard(GridBatch b) {
        int[] c = new int[b.numVariables()];
        for (int k = 0, v = 0; k < b.count(); k++) {
            for (int r = 0; r < b.height(k); r++) for (int col = 0; col < b.width(k); col++) c[v++] = (r + col) & 1;
        }
        return new Coloring(c);
    }

    /** Gaussian potentials of standard deviation {@code scale}; a fraction {@code pInf} of entries minus infinity (never a whole row). */
    static double[][][] potentials(FactorGraph g, double scale, double pInf, long seed) {
        Random rnd = new Random(seed);
        int L = g.maxLabels();
        double[][] u = new double[g.numVariables()][L], p = new double[g.numEdges()][L * L];
        for (double[] row : u) {
            int keep = rnd.nextInt(L);
            for (int y = 0; y < L; y++) row[y] = y != keep && rnd.nextDouble() < pInf ? Double.NEGATIVE_INFINITY : scale * rnd.nextGaussian();
        }
        for (double[] row : p) {
            for (int k = 0; k < L * L; k++) {
                boolean diag = k / L == k % L;
                row[k] = !diag && rnd.nextDouble() < pInf ? Double.NEGATIVE_INFINITY : scale * rnd.nextGaussian();
            }
        }
        return new double[][][] {u, p};
    }

    static INDArray nd(double[][] a, int cols) {
        return a.length == 0 ? Nd4j.create(DataType.DOUBLE, 0, cols) : Nd4j.createFromArray(a).castTo(DataType.DOUBLE);
    }

    static void set(MessagePassing mp, double[][][] pot) {
        int L = mp.graph().maxLabels();
        mp.setPotentials(nd(pot[0], L), nd(pot[1], L * L));
    }

    static void close(double want, double got, double tol, String what) {
        if (want == got) return;
        if (Double.isNaN(got) || Double.isInfinite(want) || Double.isInfinite(got) || Math.abs(want - got) > tol * Math.max(1, Math.abs(want))) {
            fail(what + ": expected " + want + " but was " + got);
        }
    }

    static void close(double[] want, double[] got, double tol, String what) {
        assertEquals(want.length, got.length, what + " length");
        for (int k = 0; k < want.length; k++) close(want[k], got[k], tol, what + " [" + k + "]");
    }

    /** Messages, beliefs, sums, dual, primal and (where the beliefs leave no near tie) decode agree. */
    static void sameState(MessagePassing want, MessagePassing got, double tol, String what) {
        close(TestEngines.flat(want.messages()), TestEngines.flat(got.messages()), tol, what + " messages");
        double[] bw = TestEngines.flat(want.unaryBeliefs());
        close(bw, TestEngines.flat(got.unaryBeliefs()), tol, what + " unary beliefs");
        close(TestEngines.flat(want.pairBeliefs()), TestEngines.flat(got.pairBeliefs()), tol, what + " pair beliefs");
        close(TestEngines.flat(want.incomingMessageSums()), TestEngines.flat(got.incomingMessageSums()), tol, what + " incoming sums");
        close(want.dual(), got.dual(), tol, what + " dual");
        close(want.primal(), got.primal(), tol, what + " primal");
        int L = want.graph().maxLabels();
        int[] dw = want.decode(), dg = got.decode();
        for (int v = 0; v < dw.length; v++) {
            double best = bw[v * L + dw[v]], second = 0;
            for (int y = 0; y < L; y++) if (y != dw[v]) second = Math.max(second, bw[v * L + y]);
            if (best - second > 1e-3) assertEquals(dw[v], dg[v], what + " decode of variable " + v);
        }
    }

    static FusedGridMessagePassing fused(GridBatch b, int labels, double eps, int threads) {
        return new FusedGridMessagePassing(b, labels, eps, threads);
    }

    // ------------------------------------------------------------------ against the loop and ND4J engines

    private void againstReferenceEngines(GridBatch b, int L, double eps, double scale, double pInf, long seed) {
        againstReferenceEngines(b, L, eps, scale, pInf, seed, TOL);
    }

    private void againstReferenceEngines(GridBatch b, int L, double eps, double scale, double pInf, long seed, double tol) {
        try (FusedGridMessagePassing f = fused(b, L, eps, 2)) {
            FactorGraph g = f.graph();
            double[][][] pot = potentials(g, scale, pInf, seed);
            set(f, pot);
            Coloring board = checkerboard(b);
            try (MessagePassing loop = new LoopMessagePassing(g, board, eps);
                 MessagePassing graph = new GraphMessagePassing(g, board, eps, DataType.DOUBLE);
                 MessagePassing grid = b.isUniform() ? new GridMessagePassing(b.count(), b.height(0), b.width(0), L, eps, DataType.DOUBLE) : null) {
                for (MessagePassing m : new MessagePassing[] {loop, graph, grid}) {
                    if (m == null) continue;
                    set(m, pot);
                    m.setMessages(f.messages().castTo(DataType.DOUBLE));   // the same start (minus infinity into impossible labels)
                }
                String what = b + " L=" + L + " eps " + eps + " scale " + scale + " pInf " + pInf;
                sameState(loop, f, tol, what + " at the start");
                for (int k = 1; k <= 6; k++) {
                    int sweeps = k < 4 ? 1 : 5;
                    f.iterate(sweeps);
                    for (MessagePassing m : new MessagePassing[] {loop, graph, grid}) {
                        if (m == null) continue;
                        m.iterate(sweeps);
                        sameState(m, f, tol, what + " vs " + m.getClass().getSimpleName() + " step " + k);
                    }
                }
            }
        }
    }

    @Test
    void agreesWithTheLoopAndNd4jEnginesOnUniformBatches() {
        againstReferenceEngines(GridBatch.uniform(3, 5, 6), 2, 0.5, 1.0, 0, 1);
        againstReferenceEngines(GridBatch.uniform(2, 7, 4), 3, 0.3, 1.0, 0, 2);
        againstReferenceEngines(GridBatch.uniform(2, 5, 5), 5, 0.2, 1.0, 0, 3);
    }

    @Test
    void agreesWithTheLoopAndNd4jEnginesOnRaggedBatches() {
        for (int L : new int[] {2, 3, 4, 5}) againstReferenceEngines(RAGGED, L, 0.25, 1.0, 0, 10 + L);
    }

    /**
     * Potentials about 100 eps apart: probability-space sums underflow (below 1e-30) and must be
     * redone exactly in log space. Float keeps about 1e-5 eps absolute at these magnitudes, hence 1e-4.
     */
    @Test
    void wideRangesTakeTheExactPath() {
        againstReferenceEngines(RAGGED, 4, 0.05, 5.0, 0, 21, 1e-4);
        againstReferenceEngines(GridBatch.uniform(2, 6, 6), 3, 0.05, 5.0, 0, 22, 1e-4);
        againstReferenceEngines(GridBatch.uniform(2, 6, 6), 2, 0.05, 5.0, 0, 23, 1e-4);
    }

    @Test
    void hardConstraintsAgreeAcrossEnginesWithoutNaN() {
        againstReferenceEngines(RAGGED, 2, 0.3, 1.0, 0.2, 31);
        againstReferenceEngines(RAGGED, 3, 0.3, 1.0, 0.25, 32);
        againstReferenceEngines(GridBatch.uniform(2, 5, 6), 4, 0.1, 1.0, 0.3, 33);
    }

    // ------------------------------------------------------------------ formulas, impossibility

    /** At arbitrary messages (set, and after sweeps) the engine's numbers are the formulas' at its own messages. */
    @Test
    void dualPrimalBeliefsMatchTheFormulas() {
        for (int L : new int[] {2, 3, 5}) {
            for (double pInf : new double[] {0, 0.25}) {
                try (FusedGridMessagePassing f = fused(RAGGED, L, 0.3, 1)) {
                    FactorGraph g = f.graph();
                    double[][][] pot = potentials(g, 1.0, pInf, 40 + L);
                    set(f, pot);
                    f.setMessages(TestEngines.messageArray(MessagePassingTest.randomMessages(g, 1.5, new Random(41)), L));
                    for (int step = 0; step < 3; step++) {
                        String what = "L=" + L + " pInf " + pInf + " step " + step;
                        double[][][] lam = TestEngines.messages(f);
                        BruteForce bf = new BruteForce(g, pot[0], pot[1], lam, 0.3);
                        close(bf.dual(), f.dual(), TOL, what + " dual");
                        close(bf.primal(), f.primal(), TOL, what + " primal");
                        close(BruteForce.flatten(bf.unaryBeliefs()), TestEngines.flat(f.unaryBeliefs()), TOL, what + " unary beliefs");
                        close(BruteForce.flatten(bf.pairBeliefs()), TestEngines.flat(f.pairBeliefs()), TOL, what + " pair beliefs");
                        close(BruteForce.flatten(bf.incomingSums()), TestEngines.flat(f.incomingMessageSums()), TOL, what + " incoming sums");
                        assertImpossibleLabels(f, pot, what);
                        f.iterate(2);
                    }
                }
            }
        }
    }

    /** Labels with minus infinity unary potential: minus infinity messages, zero beliefs, no NaN anywhere. */
    static void assertImpossibleLabels(MessagePassing mp, double[][][] pot, String what) {
        FactorGraph g = mp.graph();
        int L = g.maxLabels();
        double[][][] lam = TestEngines.messages(mp);
        double[] bu = TestEngines.flat(mp.unaryBeliefs()), bp = TestEngines.flat(mp.pairBeliefs());
        for (double x : bu) assertFalse(Double.isNaN(x), what + " NaN unary belief");
        for (double x : bp) assertFalse(Double.isNaN(x), what + " NaN pair belief");
        for (double x : TestEngines.flat(mp.messages())) assertFalse(Double.isNaN(x) || x == Double.POSITIVE_INFINITY, what + " message " + x);
        assertFalse(Double.isNaN(mp.dual()) || Double.isNaN(mp.primal()), what + " NaN dual or primal");
        for (int e = 0; e < g.numEdges(); e++) {
            for (int s = 0; s < 2; s++) {
                int v = s == 0 ? g.edgeFrom(e) : g.edgeTo(e);
                for (int y = 0; y < L; y++) {
                    if (pot[0][v][y] != Double.NEGATIVE_INFINITY) continue;
                    assertEquals(Double.NEGATIVE_INFINITY, lam[e][s][y], what + " message into impossible label " + y + " of " + v);
                    assertEquals(0.0, bu[v * L + y], what + " belief of impossible label");
                    for (int o = 0; o < L; o++) assertEquals(0.0, bp[e * L * L + (s == 0 ? y * L + o : o * L + y)], what + " pair belief of impossible label");
                }
            }
        }
    }

    @Test
    void impossibleLabelsRightAfterSettingPotentialsAndMessages() {
        try (FusedGridMessagePassing f = fused(RAGGED, 3, 0.2, 2)) {
            double[][][] pot = potentials(f.graph(), 1.0, 0.3, 51);
            set(f, pot);
            assertImpossibleLabels(f, pot, "after setPotentials");
            f.setMessages(TestEngines.messageArray(MessagePassingTest.randomMessages(f.graph(), 1.0, new Random(52)), 3));
            assertImpossibleLabels(f, pot, "after setMessages");
            f.resetMessages();
            assertImpossibleLabels(f, pot, "after resetMessages");
            f.iterate(3);
            assertImpossibleLabels(f, pot, "after sweeps");
        }
    }

    /**
     * The two-label dual, summed in the kernel's float lanes, equals the dual written out in double
     * from the engine's own messages and the potentials, to 1e-7 relative: ragged sizes (phantom
     * positions, 1x1 images), impossible labels, potentials 5 and 50 eps wide, before and after sweeps.
     */
    @Test
    void twoLabelDualInLanesEqualsTheDoubleSum() {
        int finite = 0;
        for (double eps : new double[] {1.0, 0.1}) {
            for (long seed = 71; seed < 75; seed++) {
                try (FusedGridMessagePassing f = fused(RAGGED, 2, eps, 2)) {
                    double[][][] pot = potentials(f.graph(), 5.0, 0.05, seed);
                    set(f, pot);
                    f.setMessages(TestEngines.messageArray(MessagePassingTest.randomMessages(f.graph(), 2.0, new Random(seed + 100)), 2));
                    for (int k = 0; k < 3; k++) {
                        double want = doubleDual(f.graph(), pot, TestEngines.messages(f), eps), got = f.dual();
                        String what = "eps " + eps + " seed " + seed + " after " + (2 * k) + " sweeps";
                        if (Double.isFinite(want)) {
                            finite++;
                            assertEquals(want, got, 1e-7 * Math.abs(want), what);
                        } else {
                            assertEquals(want, got, what + " (an infeasible edge: minus infinity)");
                        }
                        f.iterate(2);
                    }
                }
            }
        }
        assertTrue(finite >= 6, "finite duals compared: " + finite);
    }

    /**
     * The two-label decode written out for L = 2 gives the labels of the general one, to the last
     * variable: random potentials with impossible labels, random messages, after 0, 2 and 4 sweeps,
     * and all ties (zero potentials and messages: label 0 everywhere).
     */
    @Test
    void twoLabelDecodeEqualsTheGeneralOne() {
        int compared = 0;
        for (long seed = 81; seed < 85; seed++) {
            try (FusedGridMessagePassing f = fused(RAGGED, 2, 0.1, 2)) {
                set(f, potentials(f.graph(), 5.0, 0.1, seed));
                f.setMessages(TestEngines.messageArray(MessagePassingTest.randomMessages(f.graph(), 2.0, new Random(seed + 100)), 2));
                for (int k = 0; k < 3; k++) {
                    int[] general = f.decodeAnyLabels();
                    assertArrayEquals(general, f.decode(), "seed " + seed + " after " + (2 * k) + " sweeps");
                    for (int y : general) compared += y;
                    f.iterate(2);
                }
            }
        }
        assertTrue(compared > 100, "label 1 decoded " + compared + " times: the comparison must see both labels");
        try (FusedGridMessagePassing f = fused(RAGGED, 2, 0.1, 1)) {
            int nv = f.graph().numVariables(), ne = f.graph().numEdges();
            f.setPotentials(Nd4j.zeros(DataType.FLOAT, nv, 2), Nd4j.zeros(DataType.FLOAT, ne, 4));
            assertArrayEquals(new int[nv], f.decode(), "ties: the lowest label");
            assertArrayEquals(new int[nv], f.decodeAnyLabels(), "ties: the lowest label");
        }
    }

    /** A = eps sum_a lse((theta_a + lambda_i + lambda_j) / eps) + eps sum_i lse((theta_i - sum_a lambda_{a->i}) / eps), in double. */
    static double doubleDual(FactorGraph g, double[][][] pot, double[][][] lam, double eps) {
        int L = g.maxLabels();
        double[][] u = new double[g.numVariables()][L];
        for (int v = 0; v < u.length; v++) System.arraycopy(pot[0][v], 0, u[v], 0, L);
        double total = 0;
        for (int e = 0; e < g.numEdges(); e++) {
            int a = g.edgeFrom(e), b = g.edgeTo(e);
            double[] r = new double[L * L];
            for (int y = 0; y < L; y++) {
                for (int o = 0; o < L; o++) r[y * L + o] = (pot[1][e][y * L + o] + lam[e][0][y] + lam[e][1][o]) / eps;
                // an impossible label (minus infinity potential or message) stays minus infinity
                u[a][y] = u[a][y] == Double.NEGATIVE_INFINITY || lam[e][0][y] == Double.NEGATIVE_INFINITY ? Double.NEGATIVE_INFINITY : u[a][y] - lam[e][0][y];
                u[b][y] = u[b][y] == Double.NEGATIVE_INFINITY || lam[e][1][y] == Double.NEGATIVE_INFINITY ? Double.NEGATIVE_INFINITY : u[b][y] - lam[e][1][y];
            }
            total += lse(r);
        }
        for (double[] row : u) {
            double[] r = new double[L];
            for (int y = 0; y < L; y++) r[y] = row[y] / eps;
            total += lse(r);
        }
        return eps * total;
    }

    private static double lse(double[] x) {
        double m = Double.NEGATIVE_INFINITY;
        for (double v : x) m = Math.max(m, v);
        if (m == Double.NEGATIVE_INFINITY) return m;
        double s = 0;
        for (double v : x) s += Math.exp(v - m);
        return m + Math.log(s);
    }

    @Test
    void dualNeverIncreases() {
        for (int L : new int[] {2, 3, 5}) {
            for (double eps : new double[] {1.0, 0.1}) {
                try (FusedGridMessagePassing f = fused(RAGGED, L, eps, 2)) {
                    set(f, potentials(f.graph(), 1.0, L == 3 ? 0.2 : 0, 60 + L));
                    f.setMessages(TestEngines.messageArray(MessagePassingTest.randomMessages(f.graph(), 2.0, new Random(61)), L));
                    double prev = f.dual();
                    for (int k = 0; k < 15; k++) {
                        f.iterate(1);
                        double d = f.dual();
                        assertTrue(d <= prev + 1e-6 * Math.max(1, Math.abs(prev)), "L=" + L + " eps " + eps + " sweep " + k + ": dual rose from " + prev + " to " + d);
                        prev = d;
                    }
                }
            }
        }
    }

    // ------------------------------------------------------------------ the Python reference

    @Test
    void convergedDualAndPrimalMatchThePythonReference() {
        JsonNode ref = ReferenceAgreementTest.reference();
        int h = ref.get("height").asInt(), w = ref.get("width").asInt(), l = ref.get("labels").asInt();
        double eps = ref.get("eps").asDouble();
        double[][] u = ReferenceAgreementTest.matrix(ref.get("unary")), p = ReferenceAgreementTest.matrix(ref.get("pairwise"));
        try (FusedGridMessagePassing f = fused(GridBatch.uniform(1, h, w), l, eps, 1)) {
            for (int a = 0; a < ref.get("edges").size(); a++) {
                assertEquals(ref.get("edges").get(a).get(0).asInt(), f.graph().edgeFrom(a), "edge order");
                assertEquals(ref.get("edges").get(a).get(1).asInt(), f.graph().edgeTo(a), "edge order");
            }
            f.setPotentials(nd(u, l), nd(p, l * l));
            assertTrue(MessagePassingTest.converge(f, 1e-5, 5000), "not converged, gap " + f.gap());
            assertEquals(ref.get("dual").asDouble(), f.dual(), 1e-4, "converged dual");
            assertEquals(ref.get("primal").asDouble(), f.primal(), 1e-4, "converged primal");
        }
    }

    // ------------------------------------------------------------------ batches, threads, state

    /** Each image of a ragged batch gets bit for bit the messages it gets alone (the same float operations in other lanes). */
    @Test
    void raggedBatchEqualsOneImageAtATime() {
        for (int L : new int[] {2, 5}) {
            try (FusedGridMessagePassing all = fused(RAGGED, L, 0.2, 2)) {
                double[][][] pot = potentials(all.graph(), 1.0, 0.1, 70 + L);
                set(all, pot);
                all.iterate(7);
                double[] batchMessages = TestEngines.flat(all.messages());
                double[] batchBeliefs = TestEngines.flat(all.unaryBeliefs());
                for (int k = 0; k < RAGGED.count(); k++) {
                    GridBatch one = GridBatch.uniform(1, RAGGED.height(k), RAGGED.width(k));
                    int v0 = RAGGED.variableOffset(k), e0 = RAGGED.edgeOffset(k);
                    int nv = one.numVariables(), ne = one.numEdges();
                    try (FusedGridMessagePassing f = fused(one, L, 0.2, 1)) {
                        set(f, new double[][][] {java.util.Arrays.copyOfRange(pot[0], v0, v0 + nv), java.util.Arrays.copyOfRange(pot[1], e0, e0 + ne)});
                        f.iterate(7);
                        assertArrayEquals(java.util.Arrays.copyOfRange(batchMessages, e0 * 2 * L, (e0 + ne) * 2 * L), TestEngines.flat(f.messages()),
                                "messages of image " + k + " (" + one + ") L=" + L);
                        assertArrayEquals(java.util.Arrays.copyOfRange(batchBeliefs, v0 * L, (v0 + nv) * L), TestEngines.flat(f.unaryBeliefs()),
                                "beliefs of image " + k);
                    }
                }
            }
        }
    }

    @Test
    void threadCountDoesNotChangeAnyBit() {
        GridBatch big = new GridBatch(new int[] {70, 33, 90}, new int[] {65, 101, 47});   // several ranges per image
        for (int L : new int[] {2, 3}) {
            try (FusedGridMessagePassing one = fused(big, L, 0.1, 1); FusedGridMessagePassing two = fused(big, L, 0.1, 2)) {
                double[][][] pot = potentials(one.graph(), 1.0, 0.05, 80 + L);
                set(one, pot);
                set(two, pot);
                one.iterate(4);
                two.iterate(4);
                assertArrayEquals(one.state(), two.state(), "L=" + L);
            }
        }
    }

    /**
     * Sweeps run strip by strip (both colours of a band of rows while it is in cache, images cut into
     * blocks per thread, several sweeps at once; a strip is a row for more than two labels, 4 to 32
     * rows for two): every bit must equal the plain red-black order (all of colour 0, then all of
     * colour 1), with 1, 2 and 3 threads, cuts inside images and 1-strip blocks included.
     */
    @Test
    void rowOrderEqualsThePlainRedBlackOrder() {
        GridBatch[] batches = {GridBatch.uniform(1, 37, 23), RAGGED, new GridBatch(new int[] {2, 3, 1, 9}, new int[] {17, 5, 20, 2}),
                new GridBatch(new int[] {70, 41}, new int[] {65, 100})};
        for (GridBatch b : batches) {
            for (int L : new int[] {2, 3, 5}) {
                for (int threads = 1; threads <= 3; threads++) {
                    try (FusedGridMessagePassing rows = fused(b, L, 0.1, threads); FusedGridMessagePassing plain = fused(b, L, 0.1, 1)) {
                        double[][][] pot = potentials(rows.graph(), 1.0, 0.1, 60 + L);
                        set(rows, pot);
                        set(plain, pot);
                        for (int s = 0; s < 4; s++) {
                            rows.iterate(1);
                            plain.plainSweep();
                            assertArrayEquals(plain.state(), rows.state(), b + " L=" + L + " threads " + threads + " sweep " + s);
                        }
                        // several sweeps per call: images not cut run up to 16 sweeps at once, two rows apart
                        for (int sweeps : new int[] {2, 5, 40}) {
                            rows.iterate(sweeps);
                            for (int s = 0; s < sweeps; s++) plain.plainSweep();
                            assertArrayEquals(plain.state(), rows.state(), b + " L=" + L + " threads " + threads + ", " + sweeps + " sweeps in one call");
                        }
                    }
                }
            }
        }
    }

    @Test
    void stateRoundTripIsBitExact() {
        try (FusedGridMessagePassing a = fused(RAGGED, 3, 0.2, 2); FusedGridMessagePassing b = fused(RAGGED, 3, 0.2, 1)) {
            double[][][] pot = potentials(a.graph(), 1.0, 0.2, 90);
            set(a, pot);
            set(b, pot);
            a.iterate(5);
            float[] s = a.state();
            b.setState(s);
            assertArrayEquals(s, b.state());
            assertArrayEquals(TestEngines.flat(a.messages()), TestEngines.flat(b.messages()));
            a.iterate(3);
            b.iterate(3);
            assertArrayEquals(a.state(), b.state(), "3 sweeps after the round trip");
            assertEquals(a.dual(), b.dual());
            assertThrows(IllegalArgumentException.class, () -> b.setState(new float[s.length - 1]));
        }
    }

    @Test
    void refusesBadInput() {
        try (FusedGridMessagePassing f = fused(GridBatch.uniform(1, 2, 2), 2, 0.1, 1)) {
            INDArray u = Nd4j.zeros(DataType.DOUBLE, 4, 2), p = Nd4j.zeros(DataType.DOUBLE, 4, 4);
            assertThrows(IllegalArgumentException.class, () -> f.setPotentials(Nd4j.zeros(DataType.DOUBLE, 3, 2), p));
            u.putScalar(1, 0, Double.NaN);
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> f.setPotentials(u, p));
            assertTrue(e.getMessage().contains("NaN") && e.getMessage().contains("unary"), e.getMessage());
            assertThrows(IllegalStateException.class, f::dual);
            INDArray m = Nd4j.zeros(DataType.DOUBLE, 4, 2, 2);
            m.putScalar(new int[] {0, 1, 1}, Double.POSITIVE_INFINITY);
            assertThrows(IllegalArgumentException.class, () -> f.setMessages(m));
        }
        assertThrows(IllegalArgumentException.class, () -> new FusedGridMessagePassing(GridBatch.uniform(1, 2, 2), 1, 0.1, 1));
        assertThrows(IllegalArgumentException.class, () -> new FusedGridMessagePassing(GridBatch.uniform(1, 2, 2), 2, 0, 1));
    }

    /** m distinct random edges over n variables. */
    static FactorGraph randomGraph(int n, int m, int labels, long seed) {
        Random rnd = new Random(seed);
        java.util.Set<Long> seen = new java.util.HashSet<>();
        int[][] edges = new int[m][];
        for (int k = 0; k < m; ) {
            int i = rnd.nextInt(n), j = rnd.nextInt(n);
            if (i != j && seen.add((long) Math.min(i, j) * n + Math.max(i, j))) edges[k++] = new int[] {Math.min(i, j), Math.max(i, j)};
        }
        return FactorGraph.of(n, labels, edges);
    }

    /** Engines gives images of any sizes to the fused engine and tiny general graphs to the loop engine. */
    @Test
    void enginesPicksTheFusedEngineForGridsAndTheLoopForTinyGraphs() {
        FactorGraph g;
        try (FusedGridMessagePassing f = fused(RAGGED, 2, 0.1, 1)) {
            g = f.graph();
        }
        List<int[]> shapes = new java.util.ArrayList<>();
        for (int k = 0; k < RAGGED.count(); k++) shapes.add(new int[] {RAGGED.height(k), RAGGED.width(k)});
        try (MessagePassing mp = Engines.create(g, shapes, 0.1, DataType.FLOAT)) {
            assertTrue(mp instanceof FusedGridMessagePassing, mp.getClass().getName());
            assertEquals(RAGGED, ((FusedGridMessagePassing) mp).batch());
        }
        shapes.set(0, new int[] {4, 3});   // not this graph: a small general graph
        try (MessagePassing mp = Engines.create(g, shapes, 0.1, DataType.FLOAT)) {
            assertTrue(mp instanceof LoopMessagePassing, mp.getClass().getName());
        }
        FactorGraph large = randomGraph(30_000, 60_000, 2, 1);
        try (MessagePassing mp = Engines.create(large, 0.1, DataType.FLOAT)) {
            assertTrue(mp instanceof GraphMessagePassing, "a large general graph goes to the batched ND4J engine, got " + mp.getClass().getName());
        }
    }
}
