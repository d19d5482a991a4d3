package org.structlr.learn;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.structlr.data.Dataset;
import org.structlr.data.DenoisingGenerator;
import org.structlr.data.Example;
import org.structlr.model.ExampleBatch;

/**
 * F(x, y), the potentials at the true labels ({@link Targets#score}), equals the sum written out over
 * the labels and the edges' joint labels, void variables and the edges touching them left out:
 * for potentials ND4J laid out row-major and for column-major ones (read through a copy).
 */
class TargetsScoreTest {
    @Test
    void scoreIsTheSumOfThePotentialsAtTheTruth() {
        Dataset d = new DenoisingGenerator().generate(2, 1, 9, 7, 3);
        for (boolean withVoid : new boolean[] {false, true}) {
            List<Example> ex = withVoid ? d.train().stream().map(e -> VoidLabelsLearnerTest.partial(e, false, 1)).toList() : d.train();
            ExampleBatch b = new ExampleBatch(ex, 2, Training.pairTypeNames(d.numPairTypes()));
            Targets t = Targets.of(b);
            Nd4j.getRandom().setSeed(5);
            INDArray u = Nd4j.randn(DataType.FLOAT, b.graph().numVariables(), 2), p = Nd4j.randn(DataType.FLOAT, b.graph().numEdges(), 4);
            int[] y = b.labels(), joint = b.jointLabels();
            double want = 0;
            for (int v = 0; v < y.length; v++) if (y[v] != Example.VOID) want += u.getFloat(v, y[v]);
            for (int e = 0; e < joint.length; e++) if (joint[e] != Example.VOID) want += p.getFloat(e, joint[e]);
            assertEquals(want, t.score(u, p), 1e-9 * Math.abs(want), "row-major, void " + withVoid);
            assertEquals(want, t.score(u.dup('f'), p.dup('f')), 1e-9 * Math.abs(want), "column-major, void " + withVoid);
            if (withVoid) assertEquals(true, t.hasVoid());
        }
    }

    /** Random general graphs (about 3 edges a variable) whose edges have one of {@code types} types at random, labelled. */
    private static List<Example> typedExamples(int n, int types, int labels, long seed) {
        java.util.Random r = new java.util.Random(seed);
        List<Example> xs = new java.util.ArrayList<>();
        for (int k = 0; k < n; k++) {
            int v = 20 + r.nextInt(20);
            List<Integer> edges = new java.util.ArrayList<>();
            for (int i = 0; i < v; i++) for (int j = i + 1; j < v; j++) if (r.nextDouble() < 3.0 / v) { edges.add(i); edges.add(j); }
            int[] type = new int[edges.size() / 2], y = new int[v];
            float[] u = new float[v * 3], p = new float[type.length * 2];
            for (int e = 0; e < type.length; e++) type[e] = r.nextInt(types);
            for (int i = 0; i < v; i++) y[i] = r.nextInt(labels);
            for (int q = 0; q < u.length; q++) u[q] = (float) r.nextGaussian();
            for (int q = 0; q < p.length; q++) p[q] = (float) r.nextGaussian();
            xs.add(Example.builder(u, 3, edges.stream().mapToInt(Integer::intValue).toArray(), p, 2).edgeType(type).labels(y).numLabels(labels).build());
        }
        return xs;
    }

    /**
     * A pairwise type's rows of an edge-order array ({@link Targets#ofType}: the batch's
     * {@link ExampleBatch#typeRows}) taken on the CPU backend's way (pullRows from host indices) are bit
     * for bit the device gather's, for the float bias and double beliefs, row- and column-major, on a
     * batch with three pair types; {@code ofType} is the backend's way.
     */
    @Test
    void ofTypeOnTheHostIsTheDeviceGatherBitForBit() {
        ExampleBatch b = new ExampleBatch(typedExamples(3, 3, 2, 11), 2, List.of("a", "b", "c"));
        Targets t = Targets.of(b);
        Nd4j.getRandom().setSeed(9);
        for (DataType type : new DataType[] {DataType.FLOAT, DataType.DOUBLE}) {
            INDArray all = Nd4j.randn(type, b.graph().numEdges(), 4);
            for (INDArray in : new INDArray[] {all, all.dup('f')}) {
                for (int k = 0; k < 3; k++) {
                    INDArray host = b.typeRows(k).from(in, true), device = b.typeRows(k).from(in, false);
                    org.junit.jupiter.api.Assertions.assertArrayEquals(host.dup('c').data().asDouble(), t.ofType(in, k).dup('c').data().asDouble(), 0);
                    org.junit.jupiter.api.Assertions.assertArrayEquals(device.shape(), host.shape());
                    org.junit.jupiter.api.Assertions.assertTrue(host.size(0) > 0 && host.dataType() == type);
                    org.junit.jupiter.api.Assertions.assertArrayEquals(device.dup('c').data().asDouble(), host.dup('c').data().asDouble(), 0);
                    // and they are the type's edges' rows
                    int[] edges = b.edgesOfType(k);
                    org.junit.jupiter.api.Assertions.assertEquals(in.getDouble(edges[edges.length - 1], 3), host.getDouble(edges.length - 1, 3), 0);
                }
            }
        }
    }
}
