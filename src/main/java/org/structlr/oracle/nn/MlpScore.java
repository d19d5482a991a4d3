package org.structlr.oracle.nn;

import java.io.IOException;
import java.nio.file.Path;

import com.fasterxml.jackson.databind.JsonNode;
import org.deeplearning4j.nn.conf.layers.BaseLayer;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;

/**
 * g(phi, .) = W2 sigma(W1 phi + c1) + c2, a DL4J MultiLayerNetwork (one hidden DenseLayer, an
 * IDENTITY OutputLayer with {@link BiasedSoftmaxLoss}). Saved with ModelSerializer including the
 * updater (momentum) state, so a loaded function can be continued exactly; {@code fits} counts the
 * oracle calls that produced it (it seeds the next call's shuffling).
 */
final class MlpScore extends NetworkScore {

    static final String KIND = "mlp";

    MlpScore(MultiLayerNetwork net, int fits) {
        super(net, (int) net.getLayer(0).getParam("W").size(0), fits);
    }

    public int hiddenWidth() {
        return (int) net.getLayer(0).getParam("W").size(1);
    }

    @Override
    public String kind() {
        return KIND;
    }

    @Override
    public String describe() {
        return "mlp: " + numFeatures() + " -> " + hiddenWidth() + " ("
                + ((BaseLayer) net.getLayerWiseConfigurations().getConf(0).getLayer()).getActivationFn()
                + ") -> " + numClasses() + ", " + fits() + " fits, " + net.params().dataType();
    }

    static MlpScore load(Path dir, JsonNode meta) throws IOException {
        return checkShape(new MlpScore(Nets.load(dir), meta.path("fits").asInt(0)), dir, meta);
    }

}
