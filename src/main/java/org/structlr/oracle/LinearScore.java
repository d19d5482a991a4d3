package org.structlr.oracle;

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
public final class LinearScore implements ScoreFunction {

    static final String KIND = "linear";
    private final MultiLayerNetwork net;
    private final int numFeatures;
    private final int numClasses;

    LinearScore(MultiLayerNetwork net) {
        this.net = net;
        INDArray w = net.getLayer(0).getParam("W");
        this.numFeatures = (int) w.size(0);
        this.numClasses = (int) w.size(1);
    }

    /** W as {@code [D, C]} (DL4J layout: g = X . W), a copy. */
    public INDArray weights() {
        synchronized (net) {
            return net.getLayer(0).getParam("W").dup();
        }
    }

    /** A private copy of the network (with structlr's loss on its output layer); used by the oracle and by export. */
    public MultiLayerNetwork networkCopy() {
        return Nets.copy(net);
    }

    @Override
    public INDArray scores(INDArray features) {
        ScoreFunctions.checkFeatures(features, numFeatures, "linear score");
        return Nets.output(net, features);
    }

    @Override
    public int numClasses() {
        return numClasses;
    }

    @Override
    public int numFeatures() {
        return numFeatures;
    }

    @Override
    public String kind() {
        return KIND;
    }

    @Override
    public String describe() {
        return "linear: g = W phi, W [" + numFeatures + " x " + numClasses + "], " + net.params().dataType();
    }

    @Override
    public void save(Path dir) throws IOException {
        Nets.save(net, dir);
        ScoreFunctions.writeMeta(dir, ScoreFunctions.meta(this));
    }

    static LinearScore load(Path dir, JsonNode meta) throws IOException {
        LinearScore s = new LinearScore(Nets.load(dir));
        if (s.numClasses != meta.path("numClasses").asInt() || s.numFeatures != meta.path("numFeatures").asInt()) {
            throw new IOException(dir + ": network shape does not match " + ScoreFunctions.META_FILE);
        }
        return s;
    }

    @Override
    public String toString() {
        return describe();
    }
}
