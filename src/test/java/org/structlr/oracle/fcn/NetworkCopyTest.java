package org.structlr.oracle.fcn;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.structlr.oracle.BiasedLogisticProblem;
import org.structlr.oracle.ImageRows;
import org.structlr.oracle.nn.NetworkCopies;
import org.structlr.oracle.nn.NetworkSnapshot;

/**
 * The per-fit network copy ({@link NetworkCopies#copy(ComputationGraph)}, made with device copies) is the
 * network its zip round trip gives ({@link FullyConvolutionalScore#bytes} then {@code fromBytes}, the
 * copy it replaces): a network trained by a few fits, given a new learning rate (all layers, then one
 * layer another) and an epoch count, copied both ways; the two copies have the same configuration,
 * parameters, Adam state, learning rate per layer, iteration and epoch counts and layer kinds
 * (frozen layers; {@link NetworkSnapshot}), and after more fits the same parameters and scores, bit
 * for bit (the CPU backend is deterministic). Training the copy, or changing its learning rate, leaves the original as it was
 * (the step policy retries from the original). Over the built-in network, a U-Net (batch
 * normalisation, pools) and a user's own network with frozen layers, in float and double.
 */
class NetworkCopyTest {

    @TempDir
    Path tmp;

    @Test
    void builtInNetworkCopyIsItsZipRoundTrip() {
        for (DataType t : new DataType[]{DataType.FLOAT, DataType.DOUBLE}) {
            check(FcnOracleTest.oracle(false, 8, new int[]{1, 2}, 2, 1e-2, 7), false, t, "conv1");
        }
    }

    @Test
    void pairwiseUNetCopyIsItsZipRoundTrip() {
        check(new FcnOracle(FcnSettings.builder(true).architecture(new UNet(4, 1)).epochs(2).learningRate(1e-2).seed(5).batch(2).build()),
                true, DataType.FLOAT, FcnGraph.SCORES);
    }

    @Test
    void ownNetworkWithFrozenLayersCopyIsItsZipRoundTrip() throws IOException {
        Path file = tmp.resolve("net.json");
        Files.writeString(file, OwnNetworkTest.config(3, 2, true).toJson());
        // no rate for one layer alone: DL4J's setLearningRate(layer, rate) fails on a network with a frozen layer
        // (a NullPointerException in NetworkUtils.rebuildUpdaterStateArray); the step policy sets all layers' rate
        check(OwnNetworkTest.oracle(false, file, 1), false, DataType.FLOAT, null);
    }

    /**
     * Trains a network by two fits of {@code oracle}, sets learning rates (all layers 2.5e-3, then
     * layer {@code oneLayer} 7e-3 unless null) and epoch count 3, and compares its device copy with its zip round trip.
     */
    private static void check(FcnOracle oracle, boolean pairwise, DataType t, String oneLayer) {
        var layout = FcnOracleTest.RAGGED;
        INDArray px = FcnOracleTest.pixels(layout, 3, 21, t);
        ImageRows im = pairwise ? ImageRows.edges(px, layout, FcnOracleTest.allEdges(layout)) : ImageRows.pixels(px, layout);
        BiasedLogisticProblem p = FcnOracleTest.problem(px, im, pairwise ? 4 : 2, 23);
        String what = oracle.describe() + ", " + t;

        ComputationGraph net = ((FullyConvolutionalScore) oracle.fit(p, oracle.fit(p, null))).net;
        net.setLearningRate(2.5e-3);
        if (oneLayer != null) net.setLearningRate(oneLayer, 7e-3);
        net.getConfiguration().setEpochCount(3);
        NetworkSnapshot original = NetworkSnapshot.of(net);
        assertTrue(original.iterations() > 0, what + ": the fits counted iterations");
        if (oneLayer != null) assertEquals(7e-3, original.rates().get(oneLayer), what + ": the layer's own rate is set");
        assertTrue(original.rates().containsValue(2.5e-3), what + ": the other layers' rate is set " + original.rates());

        ComputationGraph copy = NetworkCopies.copy(net);
        ComputationGraph zip = FullyConvolutionalScore.fromBytes(FullyConvolutionalScore.bytes(net));
        NetworkSnapshot.of(zip).assertSame(original, what + ": the zip round trip against the original");
        NetworkSnapshot.of(copy).assertSame(NetworkSnapshot.of(zip), what + ": the device copy against the zip round trip");

        // more fits continue both the same way: Adam's bias correction (iteration count), its moments and the rates
        long shuffle = oracle.shuffleSeed(2, 0);
        oracle.train(copy, p, im, shuffle, 2, 0, 3);
        oracle.train(zip, p, im, shuffle, 2, 0, 3);
        NetworkSnapshot afterCopy = NetworkSnapshot.of(copy);
        afterCopy.assertSame(NetworkSnapshot.of(zip), what + ": after three more epochs on both");
        assertFalse(java.util.Arrays.equals(original.params(), afterCopy.params()), what + ": the epochs moved the parameters");
        FullyConvolutionalScore a = (FullyConvolutionalScore) oracle.score(copy, 3), b = (FullyConvolutionalScore) oracle.score(zip, 3);
        assertArrayEquals(NetworkSnapshot.values(b.groupRows(px, layout)), NetworkSnapshot.values(a.groupRows(px, layout)), what + ": the scores after the epochs");

        // the copy is the copy's own: training it and changing its rate left the original as it was
        copy.setLearningRate(1e-4);
        NetworkSnapshot.of(net).assertSame(original, what + ": the original after the copy was trained and given a rate");
        assertNotEquals(NetworkSnapshot.of(net).rates(), NetworkSnapshot.of(copy).rates(), what + ": rates are not shared");
    }
}
