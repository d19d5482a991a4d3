package org.structlr.oracle;

import java.io.IOException;
import java.nio.file.Path;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.deeplearning4j.nn.conf.layers.BaseLayer;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.nd4j.linalg.api.ndarray.INDArray;

/**
 * g(phi, .) = W2 sigma(W1 phi + c1) + c2, a DL4J MultiLayerNetwork (one hidden DenseLayer, an
 * IDENTITY OutputLayer with {@link BiasedSoftmaxLoss}). Saved with ModelSerializer including the
 * updater (momentum) state, so a loaded function can be continued exactly; {@code fits} counts the
 * oracle calls that produced it (it seeds the next call's shuffling).
 */
public final class MlpScore implements ScoreFunction {

    static final String KIND = "mlp";
    private final MultiLayerNetwork net;
    private final int numFeatures;
    private final int numClasses;
    private final int fits;

    MlpScore(MultiLayerNetwork net, int fits) {
        this.net = net;
        this.fits = fits;
        this.numFeatures = (int) net.getLayer(0).getParam("W").size(0);
        this.numClasses = (int) net.getLayer(net.getnLayers() - 1).getParam("W").size(1);
    }

    int fits() {
        return fits;
    }

    /** A private copy of the network (with structlr's loss on its output layer); used by the oracle and by export. */
    public MultiLayerNetwork networkCopy() {
        return Nets.copy(net);
    }

    public int hiddenWidth() {
        return (int) net.getLayer(0).getParam("W").size(1);
    }

    @Override
    public INDArray scores(INDArray features) {
        ScoreFunctions.checkFeatures(features, numFeatures, "mlp score");
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
        return "mlp: " + numFeatures + " -> " + hiddenWidth() + " ("
                + ((BaseLayer) net.getLayerWiseConfigurations().getConf(0).getLayer()).getActivationFn()
                + ") -> " + numClasses + ", " + fits + " fits, " + net.params().dataType();
    }

    @Override
    public void save(Path dir) throws IOException {
        Nets.save(net, dir);
        ObjectNode meta = ScoreFunctions.meta(this);
        meta.put("fits", fits);
        ScoreFunctions.writeMeta(dir, meta);
    }

    static MlpScore load(Path dir, JsonNode meta) throws IOException {
        MlpScore s = new MlpScore(Nets.load(dir), meta.path("fits").asInt(0));
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
