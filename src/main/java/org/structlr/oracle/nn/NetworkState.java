package org.structlr.oracle.nn;

import java.io.Serializable;
import org.deeplearning4j.nn.conf.MultiLayerConfiguration;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.deeplearning4j.nn.updater.MultiLayerUpdater;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;

/**
 * A DL4J network as plain arrays (what parameter averaging moves between machines): its
 * configuration as JSON, its flat parameters, its flat updater state (the momentum) and how many
 * fits it has had. Parameters travel as float (the networks are FLOAT, see {@link MlpOracle}).
 */
public record NetworkState(String configJson, float[] params, float[] updater, int fits) implements Serializable {

    static NetworkState of(MultiLayerNetwork net, int fits) {
        synchronized (net) {
            INDArray u = updaterView(net);
            return new NetworkState(net.getLayerWiseConfigurations().toJson(), floats(net.params()), u == null ? new float[0] : floats(u), fits);
        }
    }

    /** A fresh network object with these parameters and this updater state. */
    MultiLayerNetwork network() {
        MultiLayerConfiguration conf = MultiLayerConfiguration.fromJson(configJson);
        MultiLayerNetwork net = new MultiLayerNetwork(conf);
        DataType dt = conf.getDataType();
        net.init(Nd4j.create(params, new long[] {1, params.length}, 'c').castTo(dt), false);
        INDArray u = updaterView(net);
        if (u != null && updater.length > 0) {
            if (u.length() != updater.length) throw new IllegalStateException("updater state of " + updater.length + " values for " + u.length());
            u.assign(Nd4j.create(updater, new long[] {1, updater.length}, 'c').castTo(u.dataType()).reshape(u.shape()));
        }
        return net;
    }

    /** The same network with other parameters and updater state (an average). */
    public NetworkState with(float[] params, float[] updater) {
        if (params.length != this.params.length || updater.length != this.updater.length) {
            throw new IllegalArgumentException("parameters " + params.length + " / " + this.params.length + ", updater " + updater.length + " / " + this.updater.length);
        }
        return new NetworkState(configJson, params, updater, fits);
    }

    private static INDArray updaterView(MultiLayerNetwork net) {
        MultiLayerUpdater up = (MultiLayerUpdater) net.getUpdater();
        return up == null ? null : up.getStateViewArray();
    }

    private static float[] floats(INDArray a) {
        return a.castTo(DataType.FLOAT).dup('c').reshape(-1).toFloatVector();
    }
}
