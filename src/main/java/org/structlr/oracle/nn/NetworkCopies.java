package org.structlr.oracle.nn;

import org.deeplearning4j.nn.api.Updater;
import org.deeplearning4j.nn.conf.ComputationGraphConfiguration;
import org.deeplearning4j.nn.conf.MultiLayerConfiguration;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.deeplearning4j.nn.updater.graph.ComputationGraphUpdater;
import org.nd4j.linalg.api.ndarray.INDArray;

/**
 * Private copies of DL4J networks with their updater state, for every network function class (the
 * warm start of each mlp, cnn and fcn fit, the fcn step policy's retries, export), made where the
 * arrays are (on a GPU, device copies): the network its zip round trip gives ({@link NetworkFiles#bytes}
 * and back), which would move the parameters and the updater state through the host.
 *
 * <p>Not DL4J's {@code clone()}: for both network kinds it shares each layer's updater configuration
 * between copy and original ({@code BaseLayer.clone()} copies the reference to the {@code IUpdater},
 * which holds the learning rate, so {@code setLearningRate} on the copy changes the original), and
 * {@code ComputationGraphConfiguration.clone()} also drops the iteration and epoch counts (Adam's bias
 * correction reads the iteration; a MultiLayerConfiguration's clone keeps them), and the clone of a
 * MultiLayerNetwork with a frozen layer throws a NullPointerException on {@code setLearningRate}
 * (in {@code NetworkUtils.rebuildUpdaterStateArray}; {@code NetworkCopiesTest}). The configuration goes through its JSON instead, as in the zip,
 * which carries the rates, the counts, frozen layers and everything else the file keeps; the
 * parameters are duplicated and the updater state assigned, on the device. A network without an
 * updater yet (never trained) gets none here either, and the original is not given one: the copy's
 * first fit makes it, zeroed, as the original's would.
 */
public final class NetworkCopies {

    private NetworkCopies() {}

    /** A private copy of {@code net}: configuration, parameters, updater state. */
    public static MultiLayerNetwork copy(MultiLayerNetwork net) {
        synchronized (net) {                       // DL4J networks are not safe for concurrent use
            MultiLayerNetwork c = new MultiLayerNetwork(MultiLayerConfiguration.fromJson(net.getLayerWiseConfigurations().toJson()));
            c.init(net.params().dup(), false);
            INDArray state = state(net.getUpdater(false));
            if (state != null) c.getUpdater().setStateViewArray(c, state, false);   // assigns: a copy
            return c;
        }
    }

    /** A private copy of {@code net}: configuration, parameters, updater state. */
    public static ComputationGraph copy(ComputationGraph net) {
        synchronized (net) {
            ComputationGraph c = new ComputationGraph(ComputationGraphConfiguration.fromJson(net.getConfiguration().toJson()));
            c.init(net.params().dup(), false);
            ComputationGraphUpdater u = net.getUpdater(false);
            INDArray state = u == null ? null : u.getStateViewArray();
            if (state != null && state.length() > 0) c.getUpdater().setStateViewArray(state);   // assigns: a copy
            return c;
        }
    }

    private static INDArray state(Updater u) {
        INDArray s = u == null ? null : u.getStateViewArray();
        return s == null || s.length() == 0 ? null : s;
    }
}
