package org.structlr.inference;

import org.structlr.inference.loop.LoopMessagePassing;
import org.structlr.inference.nd4j.GridMessagePassing;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.indexing.NDArrayIndex;
import org.structlr.graph.Coloring;
import org.structlr.graph.FactorGraph;
import org.structlr.graph.GridBatch;

/**
 * A ragged batch on the ND4J grid engine gives what its images give one at a time, and what the
 * plain-loop engine gives on the disjoint union (same checkerboard order).
 */
class RaggedGridTest {
    /** Odd and even sides, a 1x1 image (no edges), a single row and a single column, narrower and wider images. */
    static final GridBatch SHAPES = new GridBatch(new int[] {3, 4, 1, 5, 2, 1, 6, 4}, new int[] {5, 2, 1, 3, 6, 4, 1, 7});

    static INDArray randomUnary(Random rnd, int v, int l, double pInf) {
        double[][] a = new double[v][l];
        for (int i = 0; i < v; i++) {
            int keep = rnd.nextInt(l);
            for (int y = 0; y < l; y++) a[i][y] = (y != keep && rnd.nextDouble() < pInf) ? Double.NEGATIVE_INFINITY : rnd.nextGaussian();
        }
        return Nd4j.createFromArray(a);
    }

    static INDArray randomPair(Random rnd, int e, int l, double pInf) {
        double[][] a = new double[Math.max(e, 0)][l * l];
        for (int i = 0; i < e; i++) {
            for (int y = 0; y < l * l; y++) {
                boolean diag = y / l == y % l;
                a[i][y] = (!diag && rnd.nextDouble() < pInf) ? Double.NEGATIVE_INFINITY : 0.7 * rnd.nextGaussian() + (diag ? 0.5 : 0);
            }
        }
        return e == 0 ? Nd4j.create(DataType.DOUBLE, 0, l * l) : Nd4j.createFromArray(a);
    }

    static INDArray rows(INDArray a, int from, int to) {
        if (to == from) return Nd4j.create(a.dataType(), 0, a.size(1));
        return a.get(NDArrayIndex.interval(from, to), NDArrayIndex.all()).dup();
    }

    /** Each image's checkerboard, colour 0 at its (0, 0): the grid engine's order. */
    static Coloring checkerboards(GridBatch b) {
        int[] c = new int[b.numVariables()];
        for (int k = 0; k < b.count(); k++) {
            for (int r = 0; r < b.height(k); r++) {
                for (int col = 0; col < b.width(k); col++) c[b.variableOffset(k) + r * b.width(k) + col] = (r + col) & 1;
            }
        }
        return new Coloring(c);
    }

    static void assertClose(double[] expected, double[] actual, double tol, String what) {
        assertEquals(expected.length, actual.length, what + ": length");
        for (int i = 0; i < expected.length; i++) {
            assertFalse(Double.isNaN(actual[i]), what + "[" + i + "] is NaN");
            if (expected[i] == Double.NEGATIVE_INFINITY || actual[i] == Double.NEGATIVE_INFINITY) {
                assertEquals(expected[i], actual[i], what + "[" + i + "]");
            } else {
                assertTrue(Math.abs(expected[i] - actual[i]) <= tol * Math.max(1, Math.abs(expected[i])),
                        what + "[" + i + "]: expected " + expected[i] + " got " + actual[i]);
            }
        }
    }

    static double[] flat(INDArray a) {
        return a.isEmpty() ? new double[0] : a.castTo(DataType.DOUBLE).reshape(-1).toDoubleVector();
    }

    @ParameterizedTest
    @ValueSource(ints = {2, 3, 4})
    void raggedBatchEqualsOneAtATimeAndTheLoopEngine(int labels) {
        double eps = 0.4;
        Random rnd = new Random(100 + labels);
        GridBatch b = SHAPES;
        try (GridMessagePassing batch = new GridMessagePassing(b, labels, eps, DataType.DOUBLE)) {
            FactorGraph g = batch.graph();
            assertTrue(b.matches(g), "the engine's graph is the GridBatch layout");
            INDArray un = randomUnary(rnd, g.numVariables(), labels, 0.15), pw = randomPair(rnd, g.numEdges(), labels, 0.1);
            batch.setPotentials(un, pw);
            List<GridMessagePassing> singles = new ArrayList<>();
            for (int k = 0; k < b.count(); k++) {
                GridMessagePassing one = new GridMessagePassing(1, b.height(k), b.width(k), labels, eps, DataType.DOUBLE);
                one.setPotentials(rows(un, b.variableOffset(k), b.variableOffset(k + 1)), rows(pw, b.edgeOffset(k), b.edgeOffset(k + 1)));
                singles.add(one);
            }
            LoopMessagePassing loop = new LoopMessagePassing(g, checkerboards(b), eps);
            loop.setPotentials(un, pw);
            // The loop engine leaves messages into a label with -inf potential at 0 until its first
            // update (the ND4J engines make them -inf at once, HardConstraintTest): start it from the same messages.
            loop.setMessages(batch.messages());
            for (int sweep = 1; sweep <= 5; sweep++) {
                batch.iterate(1);
                loop.iterate(1);
                double[] msgs = flat(batch.messages()), beliefs = flat(batch.unaryBeliefs()), pairs = flat(batch.pairBeliefs());
                int[] labelsOut = batch.decode();
                double dual = 0, primal = 0;
                for (int k = 0; k < b.count(); k++) {
                    GridMessagePassing one = singles.get(k);
                    one.iterate(1);
                    int v0 = b.variableOffset(k), v1 = b.variableOffset(k + 1), e0 = b.edgeOffset(k), e1 = b.edgeOffset(k + 1);
                    String at = "sweep " + sweep + ", image " + k + " (" + b.height(k) + "x" + b.width(k) + ")";
                    // the same element-wise operations on the same numbers: equal to rounding of nothing
                    assertArrayEquals(flat(one.messages()), java.util.Arrays.copyOfRange(msgs, e0 * 2 * labels, e1 * 2 * labels), 1e-12, at + " messages");
                    assertArrayEquals(flat(one.unaryBeliefs()), java.util.Arrays.copyOfRange(beliefs, v0 * labels, v1 * labels), 1e-12, at + " beliefs");
                    assertArrayEquals(flat(one.pairBeliefs()), java.util.Arrays.copyOfRange(pairs, e0 * labels * labels, e1 * labels * labels), 1e-12, at + " pair beliefs");
                    assertArrayEquals(one.decode(), java.util.Arrays.copyOfRange(labelsOut, v0, v1), at + " decode");
                    dual += one.dual();
                    primal += one.primal();
                }
                assertEquals(dual, batch.dual(), 1e-9 * Math.max(1, Math.abs(dual)), "sweep " + sweep + " dual = sum of the images' duals");
                assertEquals(primal, batch.primal(), 1e-9 * Math.max(1, Math.abs(primal)), "sweep " + sweep + " primal = sum of the images' primals");
                assertClose(flat(loop.messages()), msgs, 1e-9, "sweep " + sweep + " messages vs loop engine");
                assertClose(flat(loop.unaryBeliefs()), beliefs, 1e-9, "sweep " + sweep + " beliefs vs loop engine");
                assertClose(flat(loop.pairBeliefs()), pairs, 1e-9, "sweep " + sweep + " pair beliefs vs loop engine");
                assertEquals(loop.dual(), batch.dual(), 1e-9 * Math.max(1, Math.abs(dual)), "sweep " + sweep + " dual vs loop engine");
            }
            for (GridMessagePassing one : singles) one.close();
        }
    }

    @Test
    void floatRaggedBatchEqualsOneAtATimeInFloat() {
        int labels = 2;
        Random rnd = new Random(7);
        GridBatch b = new GridBatch(new int[] {9, 4, 7}, new int[] {12, 11, 3});
        try (GridMessagePassing batch = new GridMessagePassing(b, labels, 0.2, DataType.FLOAT)) {
            INDArray un = randomUnary(rnd, b.numVariables(), labels, 0).castTo(DataType.FLOAT);
            INDArray pw = randomPair(rnd, b.numEdges(), labels, 0).castTo(DataType.FLOAT);
            batch.setPotentials(un, pw);
            batch.iterate(20);
            float[] msgs = batch.messages().reshape(-1).toFloatVector();
            for (int k = 0; k < b.count(); k++) {
                try (GridMessagePassing one = new GridMessagePassing(1, b.height(k), b.width(k), labels, 0.2, DataType.FLOAT)) {
                    one.setPotentials(rows(un, b.variableOffset(k), b.variableOffset(k + 1)), rows(pw, b.edgeOffset(k), b.edgeOffset(k + 1)));
                    one.iterate(20);
                    float[] mine = java.util.Arrays.copyOfRange(msgs, b.edgeOffset(k) * 2 * labels, b.edgeOffset(k + 1) * 2 * labels);
                    assertArrayEquals(one.messages().reshape(-1).toFloatVector(), mine, 0f, "image " + k + ": float messages bit for bit");
                }
            }
        }
    }

    @Test
    void uniformBatchKeepsTheOldLayoutAndRaggedPaddingIsOnlyTheWidth() {
        assertEquals(1.0, GridMessagePassing.paddingFactor(GridBatch.uniform(3, 4, 6)), 0, "even uniform sizes: no phantom pixel");
        // 5x3 and 2x7: W2 = 4, rows ceil(5/2) + ceil(2/2) = 4, n = 16 -> 4 * 16 positions for 29 pixels
        assertEquals(64.0 / 29, GridMessagePassing.paddingFactor(new GridBatch(new int[] {5, 2}, new int[] {3, 7})), 1e-12);
    }
}
