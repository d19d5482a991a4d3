package org.structlr.oracle.linear;

import org.structlr.oracle.ParametricScore;
import org.structlr.oracle.nn.BiasedSoftmaxLoss;
import org.structlr.oracle.nn.Nets;
import org.structlr.oracle.nn.NetworkScore;

import java.io.IOException;
import java.nio.file.Path;

import com.fasterxml.jackson.databind.JsonNode;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.nd4j.linalg.api.ndarray.INDArray;

/**
 * g(phi, c) = (W phi)_c, no separate bias (the features carry a constant 1 where one is wanted).
 * Held as a one-layer DL4J network (an IDENTITY OutputLayer without bias, {@link BiasedSoftmaxLoss})
 * so that {@link LinearOracle} can continue it; saved with ModelSerializer. The oracle hands out a
 * private copy, never a network it trains further.
 */
final class LinearScore extends NetworkScore implements ParametricScore {

    static final String KIND = "linear";

    LinearScore(MultiLayerNetwork net) {
        super(net, (int) net.getLayer(0).getParam("W").size(0), 0);
    }

    /** W as {@code [D, C]} (DL4J layout: g = X . W), a copy. */
    public INDArray weights() {
        synchronized (net) {
            return net.getLayer(0).getParam("W").dup();
        }
    }

    /** W flattened row-major ([D, C]). */
    @Override
    public double[] parameters() {
        return weights().castTo(org.nd4j.linalg.api.buffer.DataType.DOUBLE).dup('c').data().asDouble();
    }

    @Override
    public LinearScore withParameters(double[] parameters) {
        MultiLayerNetwork copy = networkCopy();
        INDArray w = copy.getLayer(0).getParam("W");
        if (parameters.length != w.length()) {
            throw new IllegalArgumentException("linear function has " + w.length() + " parameters, got " + parameters.length);
        }
        copy.getLayer(0).setParam("W", org.nd4j.linalg.factory.Nd4j.create(parameters, w.shape(), org.nd4j.linalg.api.buffer.DataType.DOUBLE).castTo(w.dataType()));
        return new LinearScore(copy);
    }

    @Override
    public String kind() {
        return KIND;
    }

    @Override
    public String describe() {
        return "linear: g = W phi, W [" + numFeatures() + " x " + numClasses() + "], " + net.params().dataType();
    }

    static LinearScore load(Path dir, JsonNode meta) throws IOException {
        return checkShape(new LinearScore(Nets.load(dir)), dir, meta);
    }

}
