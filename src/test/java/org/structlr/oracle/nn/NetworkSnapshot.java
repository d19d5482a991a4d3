package org.structlr.oracle.nn;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.LinkedHashMap;
import java.util.Map;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.deeplearning4j.nn.graph.vertex.GraphVertex;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.nd4j.linalg.api.ndarray.INDArray;

/**
 * Everything of a DL4J network that a continued fit reads, as plain values: the configuration's
 * JSON, the parameters, the updater state (momentum, Adam's moments), the learning rate and the
 * runtime class of each layer (a frozen layer is DL4J's FrozenLayer), the iteration and epoch
 * counts. What the network copy tests ({@code NetworkCopiesTest}, fcn's {@code NetworkCopyTest})
 * compare between a copy and the zip round trip.
 */
public record NetworkSnapshot(String configuration, double[] params, double[] updater, Map<String, Double> rates,
                              Map<String, String> layerKinds, int iterations, int epochs) {

    public static NetworkSnapshot of(MultiLayerNetwork net) {
        Map<String, Double> rates = new LinkedHashMap<>();
        Map<String, String> kinds = new LinkedHashMap<>();
        for (int i = 0; i < net.getnLayers(); i++) {
            rates.put(String.valueOf(i), net.getLearningRate(i));
            kinds.put(String.valueOf(i), net.getLayer(i).getClass().getName());
        }
        INDArray u = net.getUpdater().getStateViewArray();
        var conf = net.getLayerWiseConfigurations();
        return new NetworkSnapshot(conf.toJson(), values(net.params()), u == null ? new double[0] : values(u), rates, kinds,
                conf.getIterationCount(), conf.getEpochCount());
    }

    public static NetworkSnapshot of(ComputationGraph net) {
        Map<String, Double> rates = new LinkedHashMap<>();
        Map<String, String> kinds = new LinkedHashMap<>();
        GraphVertex[] v = net.getVertices();
        for (int i : net.topologicalSortOrder()) {
            if (!v[i].hasLayer()) continue;
            String l = v[i].getVertexName();
            rates.put(l, net.getLearningRate(l));
            kinds.put(l, net.getLayer(l).getClass().getName());
        }
        INDArray u = net.getUpdater().getStateViewArray();
        var conf = net.getConfiguration();
        return new NetworkSnapshot(conf.toJson(), values(net.params()), u == null ? new double[0] : values(u), rates, kinds,
                conf.getIterationCount(), conf.getEpochCount());
    }

    /** Equal to {@code want} in everything, bit for bit. */
    public void assertSame(NetworkSnapshot want, String what) {
        assertArrayEquals(want.params, params, what + ": parameters");
        assertTrue(updater.length > 0, what + ": an updater state");
        assertArrayEquals(want.updater, updater, what + ": updater state");
        assertEquals(want.rates, rates, what + ": learning rate per layer");
        assertEquals(want.layerKinds, layerKinds, what + ": layer kinds (frozen or not)");
        assertEquals(want.iterations, iterations, what + ": iteration count");
        assertEquals(want.epochs, epochs, what + ": epoch count");
        assertEquals(want.configuration, configuration, what + ": configuration JSON");
    }

    /** The values exactly (a float widens to double without rounding). */
    public static double[] values(INDArray a) {
        return a.dup().reshape(-1).toDoubleVector();
    }
}
