package org.structlr.model;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

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
 * Rows moved on the host ({@link HostRows}, the CPU backend's path) are bit for bit the ND4J gathers
 * they replace (the device path): the pairwise potentials of a batch with three pair types, and rows
 * of float, double and column-major arrays.
 */
public class HostRowsTest {

    /** Random general graphs (about 3 edges a variable) whose edges have one of {@code types} types at random, labelled. */
    public static List<Example> typedExamples(int n, int types, int labels, long seed) {
        Random r = new Random(seed);
        List<Example> xs = new ArrayList<>();
        for (int k = 0; k < n; k++) {
            int v = 20 + r.nextInt(20);
            List<Integer> edges = new ArrayList<>();
            for (int i = 0; i < v; i++) for (int j = i + 1; j < v; j++) if (r.nextDouble() < 3.0 / v) { edges.add(i); edges.add(j); }
            int[] type = new int[edges.size() / 2], y = new int[v];
            for (int e = 0; e < type.length; e++) type[e] = r.nextInt(types);
            for (int i = 0; i < v; i++) y[i] = r.nextInt(labels);
            xs.add(PredictEachTest.general(v, edges, 3, 2, r).edgeType(type).labels(y).numLabels(labels).build());
        }
        return xs;
    }

    public static List<String> names(int types) {
        List<String> names = new ArrayList<>();
        for (int t = 0; t < types; t++) names.add("type" + t);
        return names;
    }

    @Test
    void pairwisePotentialsWithSeveralTypesAreTheGatherBitForBit() {
        int L = 3;
        ExampleBatch b = new ExampleBatch(typedExamples(4, 3, L, 7), L, names(3));
        assertTrue(b.numPairTypes() == 3 && b.edgesOfType(1).length > 0 && b.edgesOfType(2).length > 0);
        List<ScoreFunction> fs = Arrays.asList(new PredictEachTest.RowLinear(PredictEachTest.random(2, L * L, 1, 3)), null,
                new PredictEachTest.RowLinear(PredictEachTest.random(2, L * L, 2, 3)));
        INDArray host = Potentials.pairwise(b, fs, 0.1, true), device = Potentials.pairwise(b, fs, 0.1, false);
        assertArrayEquals(device.shape(), host.shape());
        float[] h = host.data().asFloat(), d = device.data().asFloat();
        assertArrayEquals(d, h);
        // type 1's rows (no function) are zero, the others are not
        int e1 = b.edgesOfType(1)[0], e2 = b.edgesOfType(2)[0];
        assertTrue(host.getRow(e1).sumNumber().doubleValue() == 0 && host.getRow(e2).norm1Number().doubleValue() > 0);
    }

    @Test
    void rowsPickedOnTheHostAreTheGather() {
        Nd4j.getRandom().setSeed(3);
        int[] rows = {4, 0, 9, 4, 2};
        for (DataType type : new DataType[] {DataType.FLOAT, DataType.DOUBLE}) {
            INDArray a = Nd4j.randn(type, 10, 7);
            for (INDArray in : new INDArray[] {a, a.dup('f'), Nd4j.randn(type, 12, 9).get(org.nd4j.linalg.indexing.NDArrayIndex.interval(1, 11),
                    org.nd4j.linalg.indexing.NDArrayIndex.interval(2, 9))}) {
                INDArray want = Nd4j.pullRows(in, 1, rows), got = HostRows.pick(in, rows);
                assertArrayEquals(want.shape(), got.shape());
                assertTrue(got.dataType() == type);
                assertArrayEquals(want.dup('c').data().asDouble(), got.data().asDouble(), 0);
            }
        }
    }
}
