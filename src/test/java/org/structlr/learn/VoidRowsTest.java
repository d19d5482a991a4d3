package org.structlr.learn;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.structlr.data.Example;
import org.structlr.model.ExampleBatch;
import org.structlr.oracle.BiasedLogisticProblem;

/**
 * VoidRows, the simple void form's rows, where some factor type has no row to fit: the unary rows
 * of a batch whose every variable is void, a pairwise type whose every edge touches a void
 * variable, a pairwise type with no edge in the batch at all (with or without void). Each gives no
 * problem (null: the fit is skipped, the function stays), never an empty problem that an oracle
 * would meet as a [0, D] array; the rows that are there are exactly the labelled ones.
 */
class VoidRowsTest {
    static final int L = 2, TYPES = 2;

    /**
     * An H x W grid of 4-connected pixels, horizontal edges type 0 and vertical type 1 (or type 0
     * too, when {@code oneType}), labels y(i, j) = (i + j) % 2, rows i with {@code voidRow(i)} void.
     */
    static Example grid(int h, int w, java.util.function.IntPredicate voidRow, boolean oneType) {
        float[] u = new float[h * w * 2];
        int[] y = new int[h * w];
        List<int[]> edges = new ArrayList<>();
        List<Integer> types = new ArrayList<>();
        for (int i = 0; i < h; i++) {
            for (int j = 0; j < w; j++) {
                int v = i * w + j;
                u[2 * v] = 1;
                u[2 * v + 1] = v;
                y[v] = voidRow.test(i) ? Example.VOID : (i + j) % 2;
                if (j + 1 < w) {
                    edges.add(new int[] {v, v + 1});
                    types.add(0);
                }
                if (i + 1 < h) {
                    edges.add(new int[] {v, v + w});
                    types.add(oneType ? 0 : 1);
                }
            }
        }
        int[] flat = new int[2 * edges.size()];
        float[] p = new float[edges.size()];
        for (int e = 0; e < edges.size(); e++) {
            flat[2 * e] = edges.get(e)[0];
            flat[2 * e + 1] = edges.get(e)[1];
            p[e] = e;
        }
        return Example.builder(u, 2, flat, p, 1).labels(y).numLabels(L).shape(h, w)
                .edgeType(types.stream().mapToInt(Integer::intValue).toArray()).build();
    }

    static ExampleBatch batch(Example... examples) {
        return new ExampleBatch(List.of(examples), L, Training.pairTypeNames(TYPES));
    }

    static BiasedLogisticProblem unary(ExampleBatch b, VoidRows v) {
        return v.unaryProblem(b.unaryFeatures(), Nd4j.zeros(DataType.FLOAT, b.labels().length, L), null, null);
    }

    static BiasedLogisticProblem pair(ExampleBatch b, VoidRows v, int t) {
        INDArray f = b.pairFeatures(t);
        return v.pairProblem(t, f, b.pairLabels(t), Nd4j.zeros(DataType.FLOAT, f.size(0), L * L), null, null);
    }

    @Test
    void aBatchWhoseEveryVariableIsVoidHasNoRowOfAnyType() {
        ExampleBatch b = batch(grid(3, 4, i -> true, false), grid(2, 2, i -> true, false));
        VoidRows v = new VoidRows(b);
        assertTrue(v.any());
        assertNull(unary(b, v), "no unary problem: nothing is labelled");
        for (int t = 0; t < TYPES; t++) assertNull(pair(b, v, t), "no problem of pairwise type " + t);
        // every training factor is zero
        assertEquals(0.0, v.maskUnary(Nd4j.ones(DataType.FLOAT, b.labels().length, L)).sumNumber().doubleValue());
        assertEquals(0.0, v.maskPair(Nd4j.ones(DataType.FLOAT, b.jointLabels().length, L * L)).sumNumber().doubleValue());
        // with row weights too
        assertNull(v.unaryProblem(b.unaryFeatures(), Nd4j.zeros(DataType.FLOAT, b.labels().length, L), new double[b.labels().length], null));
    }

    /** Odd rows void: every vertical edge touches one, so type 1 has no row; type 0 has the even rows' horizontal edges. */
    @Test
    void aTypeWhoseEveryEdgeTouchesAVoidVariableHasNoRow() {
        ExampleBatch b = batch(grid(4, 4, i -> i % 2 == 1, false), grid(4, 4, i -> false, false));
        VoidRows v = new VoidRows(b);
        // beside a fully labelled example, type 1 has that example's 12 vertical edges; the first adds none
        BiasedLogisticProblem vertical = pair(b, v, 1);
        assertNotNull(vertical);
        assertEquals(12, vertical.numRows());

        ExampleBatch odd = batch(grid(4, 4, i -> i % 2 == 1, false));
        VoidRows w = new VoidRows(odd);
        assertNull(pair(odd, w, 1), "every vertical edge touches a void row");
        BiasedLogisticProblem horizontal = pair(odd, w, 0);
        assertEquals(2 * 3, horizontal.numRows(), "the horizontal edges of rows 0 and 2");
        int[] y = odd.labels();
        int[] expected = {y[0] * L + y[1], y[1] * L + y[2], y[2] * L + y[3], y[8] * L + y[9], y[9] * L + y[10], y[10] * L + y[11]};
        assertArrayEquals(expected, horizontal.labels());
        BiasedLogisticProblem u = unary(odd, w);
        assertEquals(8, u.numRows());
        assertArrayEquals(new int[] {0, 1, 0, 1, 0, 1, 0, 1}, u.labels());
    }

    /** A type declared by the data set but without an edge in the batch (it occurs only in the test split): no problem, void or not. */
    @Test
    void aTypeWithoutAnEdgeInTheBatchHasNoRow() {
        for (boolean withVoid : new boolean[] {false, true}) {
            ExampleBatch b = batch(grid(3, 3, i -> withVoid && i == 2, true));
            VoidRows v = new VoidRows(b);
            assertEquals(withVoid, v.any());
            assertEquals(0, b.pairFeatures(1).size(0));
            assertNull(pair(b, v, 1), "type 1 has no edge" + (withVoid ? " (with void)" : ""));
            assertEquals(withVoid ? 2 * 2 + 3 : 12, pair(b, v, 0).numRows());
            assertEquals(withVoid ? 6 : 9, unary(b, v).numRows());
        }
    }
}
