package org.structlr.inference;

import org.structlr.inference.loop.LoopMessagePassing;
import org.structlr.inference.nd4j.GraphMessagePassing;
import org.structlr.inference.nd4j.GridMessagePassing;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.structlr.inference.RaggedGridTest.assertClose;
import static org.structlr.inference.RaggedGridTest.flat;

import java.util.Random;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.structlr.graph.FactorGraph;
import org.structlr.graph.GridBatch;

/**
 * Hard constraints (minus-infinity potentials and messages) give no NaN and the same state in the
 * ND4J grid engine, the ND4J graph engine and the plain-loop engine: right after setPotentials and
 * setMessages, after each sweep, and at convergence.
 *
 * <p>One difference is by convention, not by value: right after potentials are set, the ND4J
 * engines already put minus infinity on every message into an impossible label (what a star update
 * gives it), the loop engine only at its first update. Both describe the same unary state u (so
 * beliefs and decoding agree at once); messages and pair beliefs agree once the loop engine starts
 * from the ND4J engines' messages, and without that at convergence.
 */
class HardConstraintTest {
    static final GridBatch BATCH = new GridBatch(new int[] {4, 3, 1}, new int[] {5, 3, 4});
    static final double EPS = 0.3;

    private static void noNaN(MessagePassing mp, String what) {
        for (double x : flat(mp.messages())) assertFalse(Double.isNaN(x) || x == Double.POSITIVE_INFINITY, what + ": message " + x);
        for (double x : flat(mp.unaryBeliefs())) assertFalse(Double.isNaN(x), what + ": NaN belief");
        for (double x : flat(mp.pairBeliefs())) assertFalse(Double.isNaN(x), what + ": NaN pair belief");
        assertFalse(Double.isNaN(mp.dual()) || Double.isNaN(mp.primal()), what + ": NaN dual or primal");
    }

    /** Grid and graph engines hold the same messages; all three the same beliefs and labels. */
    private static void agree(GridMessagePassing grid, GraphMessagePassing graph, LoopMessagePassing loop, boolean loopInStep, String when) {
        noNaN(grid, when + " grid");
        noNaN(graph, when + " graph");
        noNaN(loop, when + " loop");
        assertClose(flat(graph.messages()), flat(grid.messages()), 1e-9, when + ": grid vs graph messages");
        assertClose(flat(graph.pairBeliefs()), flat(grid.pairBeliefs()), 1e-9, when + ": grid vs graph pair beliefs");
        assertEquals(graph.dual(), grid.dual(), 1e-9 * Math.max(1, Math.abs(graph.dual())), when + ": grid vs graph dual");
        assertEquals(graph.primal(), grid.primal(), 1e-9 * Math.max(1, Math.abs(graph.primal())), when + ": grid vs graph primal");
        assertClose(flat(loop.unaryBeliefs()), flat(grid.unaryBeliefs()), 1e-9, when + ": grid vs loop beliefs");
        assertClose(flat(loop.unaryBeliefs()), flat(graph.unaryBeliefs()), 1e-9, when + ": graph vs loop beliefs");
        assertArrayEquals(loop.decode(), grid.decode(), when + ": grid vs loop labels");
        assertArrayEquals(loop.decode(), graph.decode(), when + ": graph vs loop labels");
        assertClose(unaryOf(loop), unaryOf(grid), 1e-9, when + ": grid vs loop log beliefs (-inf = impossible)");
        if (loopInStep) {
            assertClose(flat(loop.messages()), flat(grid.messages()), 1e-9, when + ": grid vs loop messages");
            assertClose(flat(loop.pairBeliefs()), flat(grid.pairBeliefs()), 1e-9, when + ": grid vs loop pair beliefs");
            assertEquals(loop.dual(), grid.dual(), 1e-9 * Math.max(1, Math.abs(loop.dual())), when + ": grid vs loop dual");
        }
    }

    /** log b up to a constant per variable: which labels are impossible (-inf) and the finite rest. */
    private static double[] unaryOf(MessagePassing mp) {
        double[] b = flat(mp.unaryBeliefs());
        double[] out = new double[b.length];
        for (int i = 0; i < b.length; i++) out[i] = b[i] == 0 ? Double.NEGATIVE_INFINITY : Math.log(b[i]);
        return out;
    }


    /** Potentials with -inf entries that keep the labelling {@code truth} possible (a feasible model). */
    static INDArray[] feasible(Random rnd, FactorGraph g, int labels, int[] truth, double pInf) {
        double[][] u = new double[g.numVariables()][labels];
        for (int i = 0; i < u.length; i++) {
            for (int y = 0; y < labels; y++) u[i][y] = y != truth[i] && rnd.nextDouble() < pInf ? Double.NEGATIVE_INFINITY : rnd.nextGaussian();
        }
        double[][] p = new double[g.numEdges()][labels * labels];
        for (int e = 0; e < p.length; e++) {
            int keep = truth[g.edgeFrom(e)] * labels + truth[g.edgeTo(e)];
            for (int k = 0; k < labels * labels; k++) {
                p[e][k] = k != keep && rnd.nextDouble() < pInf ? Double.NEGATIVE_INFINITY : 0.7 * rnd.nextGaussian() + (k / labels == k % labels ? 0.5 : 0);
            }
        }
        return new INDArray[] {org.nd4j.linalg.factory.Nd4j.createFromArray(u), org.nd4j.linalg.factory.Nd4j.createFromArray(p)};
    }

    static int[] randomLabels(Random rnd, int n, int labels) {
        int[] t = new int[n];
        for (int i = 0; i < n; i++) t[i] = rnd.nextInt(labels);
        return t;
    }

    @ParameterizedTest
    @ValueSource(ints = {2, 3})
    void minusInfinityAgreesAcrossEnginesAtEveryStep(int labels) {
        Random rnd = new Random(31 + labels);
        try (GridMessagePassing grid = new GridMessagePassing(BATCH, labels, EPS, DataType.DOUBLE)) {
            FactorGraph g = grid.graph();
            GraphMessagePassing graph = new GraphMessagePassing(g, RaggedGridTest.checkerboards(BATCH), EPS, DataType.DOUBLE);
            LoopMessagePassing loop = new LoopMessagePassing(g, RaggedGridTest.checkerboards(BATCH), EPS);
            int[] truth = randomLabels(rnd, g.numVariables(), labels);
            INDArray[] pot = feasible(rnd, g, labels, truth, 0.3);
            INDArray un = pot[0], pw = pot[1];
            for (MessagePassing mp : new MessagePassing[] {grid, graph, loop}) mp.setPotentials(un, pw);
            agree(grid, graph, loop, false, "after setPotentials");

            // messages with -inf on labels whose potential is finite: the label becomes impossible (not 0)
            INDArray m = graph.messages().dup();
            double[] mm = flat(m);
            int planted = 0;
            for (int i = 0; i < mm.length; i += 7) {
                int e = i / (2 * labels), side = i / labels % 2, y = i % labels;
                if (y != truth[side == 0 ? g.edgeFrom(e) : g.edgeTo(e)] && mm[i] != Double.NEGATIVE_INFINITY) {
                    mm[i] = Double.NEGATIVE_INFINITY;
                    planted++;
                }
            }
            INDArray withInf = org.nd4j.linalg.factory.Nd4j.createFromArray(mm).reshape(m.shape());
            for (MessagePassing mp : new MessagePassing[] {grid, graph, loop}) mp.setMessages(withInf);
            agree(grid, graph, loop, false, "after setMessages with " + planted + " planted -inf");
            double[] got = flat(grid.messages());
            for (int i = 0; i < mm.length; i++) if (mm[i] == Double.NEGATIVE_INFINITY) assertEquals(Double.NEGATIVE_INFINITY, got[i], "-inf message " + i + " kept impossible");

            // the same potentials again (warm start): the impossible labels stay impossible
            for (MessagePassing mp : new MessagePassing[] {grid, graph, loop}) mp.setPotentials(un, pw);
            agree(grid, graph, loop, false, "after setPotentials on -inf messages");

            loop.setMessages(grid.messages());
            agree(grid, graph, loop, true, "loop started from the ND4J messages");
            for (int s = 1; s <= 4; s++) {
                for (MessagePassing mp : new MessagePassing[] {grid, graph, loop}) mp.iterate(1);
                agree(grid, graph, loop, true, "sweep " + s);
            }
        }
    }

    @ParameterizedTest
    @ValueSource(ints = {2, 3})
    void minusInfinityAgreesAtConvergenceWithoutSharedMessages(int labels) {
        Random rnd = new Random(77 + labels);
        try (GridMessagePassing grid = new GridMessagePassing(BATCH, labels, 1.0, DataType.DOUBLE)) {
            FactorGraph g = grid.graph();
            LoopMessagePassing loop = new LoopMessagePassing(g, RaggedGridTest.checkerboards(BATCH), 1.0);
            INDArray[] pot = feasible(rnd, g, labels, randomLabels(rnd, g.numVariables(), labels), 0.3);
            INDArray un = pot[0], pw = pot[1];
            grid.setPotentials(un, pw);
            loop.setPotentials(un, pw);
            grid.iterate(400);
            loop.iterate(400);
            assertClose(flat(loop.unaryBeliefs()), flat(grid.unaryBeliefs()), 1e-7, "beliefs at convergence");
            assertClose(flat(loop.pairBeliefs()), flat(grid.pairBeliefs()), 1e-7, "pair beliefs at convergence");
            assertEquals(loop.dual(), grid.dual(), 1e-7 * Math.max(1, Math.abs(loop.dual())), "dual at convergence");
        }
    }

    @ParameterizedTest
    @ValueSource(ints = {2, 3})
    void infeasibleModelGivesZeroBeliefsNotNaN(int labels) {
        try (GridMessagePassing grid = new GridMessagePassing(BATCH, labels, EPS, DataType.DOUBLE)) {
            FactorGraph g = grid.graph();
            double[][] u = new double[g.numVariables()][labels];
            for (int y = 0; y < labels; y++) u[3][y] = Double.NEGATIVE_INFINITY;   // variable 3 has no possible label
            INDArray un = org.nd4j.linalg.factory.Nd4j.createFromArray(u);
            INDArray pw = org.nd4j.linalg.factory.Nd4j.zeros(DataType.DOUBLE, g.numEdges(), labels * labels);
            grid.setPotentials(un, pw);
            for (int s = 0; s <= 3; s++) {
                if (s > 0) grid.iterate(1);
                double[] b = flat(grid.unaryBeliefs());
                for (int y = 0; y < labels; y++) assertEquals(0.0, b[3 * labels + y], "sweep " + s + ": belief of an infeasible variable");
                for (double x : b) assertFalse(Double.isNaN(x), "sweep " + s + ": NaN belief");
                for (double x : flat(grid.pairBeliefs())) assertFalse(Double.isNaN(x), "sweep " + s + ": NaN pair belief");
                for (double x : flat(grid.messages())) assertFalse(Double.isNaN(x) || x == Double.POSITIVE_INFINITY, "sweep " + s + ": message " + x);
                assertFalse(Double.isNaN(grid.dual()) || Double.isNaN(grid.primal()), "sweep " + s + ": NaN dual or primal");
            }
        }
    }
}
