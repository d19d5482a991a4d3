package org.structlr.model;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.structlr.data.Example;
import org.structlr.oracle.ScoreFunction;

/**
 * A batch with several pairwise types reads its edges' rows by type and puts the types' scores back
 * in edge order through gathers made once per batch ({@link ExampleBatch#typeRows},
 * {@link ExampleBatch#edgeOrder}): the pairwise potentials are bit for bit those of ND4J's pullRows
 * from the Java indices (what they were before), on the CPU backend's way and on the device's way,
 * and every row is its edge's (the definition).
 */
class TypeRowsTest {
    static final int L = 2, DP = 3;

    /** Random general graphs (about 3 edges a variable) whose edges have one of {@code types} types at random. */
    static List<Example> typedExamples(int n, int types, long seed) {
        Random r = new Random(seed);
        List<Example> xs = new ArrayList<>();
        for (int k = 0; k < n; k++) {
            int v = 20 + r.nextInt(20);
            List<Integer> edges = new ArrayList<>();
            for (int i = 0; i < v; i++) for (int j = i + 1; j < v; j++) if (r.nextDouble() < 3.0 / v) { edges.add(i); edges.add(j); }
            int[] type = new int[edges.size() / 2], y = new int[v];
            float[] u = new float[v * 2], p = new float[type.length * DP];
            for (int e = 0; e < type.length; e++) type[e] = r.nextInt(types);
            for (int i = 0; i < v; i++) y[i] = r.nextInt(L);
            for (int q = 0; q < u.length; q++) u[q] = (float) r.nextGaussian();
            for (int q = 0; q < p.length; q++) p[q] = (float) r.nextGaussian();
            xs.add(Example.builder(u, 2, edges.stream().mapToInt(Integer::intValue).toArray(), p, DP).edgeType(type).labels(y).numLabels(L).build());
        }
        return xs;
    }

    @Test
    void pairwisePotentialsAreThePullRowsOfBeforeBitForBit() {
        List<Example> xs = typedExamples(3, 3, 17);
        ExampleBatch b = new ExampleBatch(xs, L, List.of("a", "b", "c"));
        List<ScoreFunction> f = new ArrayList<>();
        for (int t = 0; t < 3; t++) f.add(new PredictEachTest.RowLinear(PredictEachTest.random(DP, L * L, 30 + t, 2)));
        f.set(1, null);   // a type without a function scores 0
        double eps = 0.3;
        INDArray got = Potentials.pairwise(b, f, eps);

        // before: the type blocks' rows back in edge order by pullRows from the Java positions
        int E = b.graph().numEdges();
        int[] position = new int[E];
        INDArray[] parts = new INDArray[3];
        int pos = 0;
        for (int t = 0; t < 3; t++) {
            for (int e : b.edgesOfType(t)) position[e] = pos++;
            int rows = (int) b.pairFeatures(t).size(0);
            parts[t] = f.get(t) == null ? Nd4j.zeros(DataType.FLOAT, rows, L * L) : f.get(t).scores(b.pairFeatures(t)).castTo(DataType.FLOAT).muli(eps);
        }
        assertEquals(E, pos);
        INDArray concat = Nd4j.concat(0, parts);
        INDArray before = Nd4j.pullRows(concat, 1, position);
        assertArrayEquals(before.data().asFloat(), got.dup('c').data().asFloat(), 0);
        assertArrayEquals(before.data().asFloat(), b.edgeOrder().from(concat, false).dup('c').data().asFloat(), 0, "the device's way");
        assertArrayEquals(before.data().asFloat(), b.edgeOrder().from(concat, true).dup('c').data().asFloat(), 0, "the CPU's way");

        // the definition: edge e's row is eps g_t(phi_e) of its own type, its own features
        int[] typeOf = new int[E];
        for (int t = 0; t < 3; t++) for (int e : b.edgesOfType(t)) typeOf[e] = t;
        float[][] phi = new float[E][];
        int e0 = 0;
        for (Example x : xs) for (int k = 0; k < x.numEdges(); k++) phi[e0++] = x.pairwiseMatrix().castTo(DataType.FLOAT).getRow(k).toFloatVector();
        for (int e = 0; e < E; e++) {
            float[] want = f.get(typeOf[e]) == null ? new float[L * L]
                    : f.get(typeOf[e]).scores(Nd4j.create(new float[][] {phi[e]})).castTo(DataType.FLOAT).muli(eps).toFloatVector();
            assertArrayEquals(want, got.getRow(e).toFloatVector(), 0, "edge " + e + " of type " + typeOf[e]);
        }
    }

    /** Each type's feature rows are its edges' features in the type's order, both ways of the gather. */
    @Test
    void pairFeaturesOfATypeAreItsEdgesRows() {
        List<Example> xs = typedExamples(2, 3, 23);
        ExampleBatch b = new ExampleBatch(xs, L, List.of("a", "b", "c"));
        List<INDArray> all = new ArrayList<>();
        for (Example x : xs) all.add(x.pairwiseMatrix().castTo(DataType.FLOAT));
        INDArray phi = Nd4j.concat(0, all.toArray(new INDArray[0]));
        for (int t = 0; t < 3; t++) {
            int[] edges = b.edgesOfType(t);
            INDArray want = Nd4j.pullRows(phi, 1, edges);
            assertArrayEquals(want.data().asFloat(), b.pairFeatures(t).dup('c').data().asFloat(), 0, "type " + t);
            assertArrayEquals(want.data().asFloat(), b.typeRows(t).from(phi, false).dup('c').data().asFloat(), 0, "type " + t + ", the device's way");
            for (int k = 0; k < edges.length; k++) {
                assertArrayEquals(phi.getRow(edges[k]).toFloatVector(), b.pairFeatures(t).getRow(k).toFloatVector(), 0, Arrays.toString(new int[] {t, k}));
            }
        }
    }
}
