package org.structlr.oracle.nn;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.Arrays;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.deeplearning4j.nn.transferlearning.TransferLearning;
import org.junit.jupiter.api.Test;
import org.nd4j.linalg.api.buffer.DataType;
import org.structlr.oracle.BiasedLogisticProblem;
import org.structlr.oracle.ScoreFunction;
import org.structlr.oracle.TestProblems;

/**
 * The per-fit copy of a MultiLayerNetwork ({@link NetworkCopies#copy(MultiLayerNetwork)}, the warm
 * start of the mlp and cnn oracles, {@link NetworkScore#networkCopy}) is the network its zip round
 * trip gives ({@link NetworkFiles#bytes} then {@link NetworkFiles#readMultiLayer}): a network trained
 * by two fits, given a learning rate (all layers, then one layer another) and an epoch count, copied
 * both ways; the two have the same configuration, parameters, momentum, learning rate per layer,
 * iteration and epoch counts and layer kinds ({@link NetworkSnapshot}), and after three more epochs
 * on both the same parameters and scores, bit for bit (the CPU backend is deterministic). Training the
 * copy and changing its learning rate leave the original as it was. DL4J's {@code clone()}, the copy
 * before, failed here: it shares each layer's updater configuration (the copy's new rate was the
 * original's too: mlp and cnn red), and the clone of the network with a frozen layer threw a
 * NullPointerException in {@code setLearningRate}; everything else was equal. Over the mlp in float and double, the cnn, and an mlp network with a frozen layer (the mlp and cnn
 * classes take no network file of a user's; DL4J's transfer learning freezes the layer).
 */
class NetworkCopiesTest {

    @Test
    void mlpCopyIsItsZipRoundTrip() throws IOException {
        for (DataType t : new DataType[]{DataType.FLOAT, DataType.DOUBLE}) {
            BiasedLogisticProblem p = TestProblems.random(600, 3, 3, 1.0, 31, t);
            MlpOracle o = new MlpOracle(0.25, 8, 2, 100, 0.9, 7);
            check(network(o.fit(p, o.fit(p, null))), p, 1, "mlp, " + t);
        }
    }

    @Test
    void cnnCopyIsItsZipRoundTrip() throws IOException {
        BiasedLogisticProblem p = CnnOracleTest.patches(300, 7, 8, 1.0, 41, DataType.FLOAT);
        CnnOracle o = new CnnOracle(0.25, 2, 4, 8, 1, 100, 0.9, 7);
        // layer 2 is the convolution after the pool
        check(network(o.fit(p, o.fit(p, null))), p, 2, "cnn");
    }

    @Test
    void networkWithAFrozenLayerCopyIsItsZipRoundTrip() throws IOException {
        BiasedLogisticProblem p = TestProblems.random(600, 3, 3, 1.0, 33, DataType.FLOAT);
        MlpOracle o = new MlpOracle(0.25, 8, 2, 100, 0.9, 7);
        MultiLayerNetwork net = new TransferLearning.Builder(network(o.fit(p, null))).setFeatureExtractor(0).build();
        double[] hidden = NetworkSnapshot.values(net.getLayer(0).params());
        Nets.trainMinibatches(net, p, 5, 2, 100);
        assertArrayEquals(hidden, NetworkSnapshot.values(net.getLayer(0).params()), "the frozen layer kept its parameters");
        assertEquals(org.deeplearning4j.nn.layers.FrozenLayer.class, net.getLayer(0).getClass());
        // no rate for one layer alone: DL4J's setLearningRate(layer, rate) fails on a network with a frozen layer
        check(net, p, -1, "mlp with a frozen layer");
    }

    /** A network never trained has no updater yet: its copy makes none on the original, and both train alike. */
    @Test
    void neverTrainedNetworkCopyTrainsAsTheOriginal() {
        BiasedLogisticProblem p = TestProblems.random(600, 3, 3, 1.0, 35, DataType.FLOAT);
        MultiLayerNetwork net = new MlpOracle(0.25, 8, 2, 100, 0.9, 7).newNetwork(3, 3, DataType.FLOAT);
        MultiLayerNetwork copy = NetworkCopies.copy(net);
        assertNull(net.getUpdater(false), "copying made no updater on the original");
        Nets.trainMinibatches(copy, p, 5, 2, 100);
        Nets.trainMinibatches(net, p, 5, 2, 100);
        NetworkSnapshot.of(copy).assertSame(NetworkSnapshot.of(net), "after two epochs on both");
    }

    private static MultiLayerNetwork network(ScoreFunction f) {
        return ((NetworkScore) f).net;
    }

    /**
     * Sets learning rates (all layers 2.5e-3, then layer {@code oneLayer} 7e-3 unless negative) and
     * epoch count 3 on {@code net}, and compares its copy with its zip round trip, before and after
     * three more epochs on both.
     */
    private static void check(MultiLayerNetwork net, BiasedLogisticProblem p, int oneLayer, String what) throws IOException {
        net.setLearningRate(2.5e-3);
        if (oneLayer >= 0) net.setLearningRate(oneLayer, 7e-3);
        net.getLayerWiseConfigurations().setEpochCount(3);
        NetworkSnapshot original = NetworkSnapshot.of(net);
        assertTrue(original.iterations() > 0, what + ": the fits counted iterations");
        if (oneLayer >= 0) assertEquals(7e-3, original.rates().get(String.valueOf(oneLayer)), what + ": the layer's own rate is set");
        assertTrue(original.rates().containsValue(2.5e-3), what + ": the other layers' rate is set " + original.rates());

        MultiLayerNetwork copy = NetworkCopies.copy(net);
        MultiLayerNetwork zip = NetworkFiles.readMultiLayer(NetworkFiles.bytes(net, true), what, true);
        NetworkSnapshot.of(zip).assertSame(original, what + ": the zip round trip against the original");
        NetworkSnapshot.of(copy).assertSame(NetworkSnapshot.of(zip), what + ": the copy against the zip round trip");

        // more epochs continue both the same way: the momentum, the rates, the counts
        Nets.trainMinibatches(copy, p, 99, 3, 100);
        Nets.trainMinibatches(zip, p, 99, 3, 100);
        NetworkSnapshot afterCopy = NetworkSnapshot.of(copy);
        afterCopy.assertSame(NetworkSnapshot.of(zip), what + ": after three more epochs on both");
        assertFalse(Arrays.equals(original.params(), afterCopy.params()), what + ": the epochs moved the parameters");
        assertArrayEquals(NetworkSnapshot.values(Nets.output(zip, p.features())), NetworkSnapshot.values(Nets.output(copy, p.features())),
                what + ": the scores after the epochs");

        // the copy is the copy's own: training it and changing its rate left the original as it was
        copy.setLearningRate(1e-4);
        NetworkSnapshot.of(net).assertSame(original, what + ": the original after the copy was trained and given a rate");
        assertNotEquals(NetworkSnapshot.of(net).rates(), NetworkSnapshot.of(copy).rates(), what + ": rates are not shared");
    }
}
