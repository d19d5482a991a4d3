package org.structlr.oracle.fcn;

import org.deeplearning4j.nn.conf.ComputationGraphConfiguration;
import org.deeplearning4j.nn.conf.graph.ElementWiseVertex;
import java.util.List;
import java.util.Map;
import org.deeplearning4j.nn.conf.graph.LayerVertex;
import org.deeplearning4j.nn.conf.layers.CnnLossLayer;
import org.deeplearning4j.nn.conf.layers.FeedForwardLayer;
import org.deeplearning4j.nn.conf.layers.Layer;
import org.deeplearning4j.nn.conf.layers.misc.FrozenLayer;
import org.deeplearning4j.nn.conf.layers.misc.FrozenLayerWithBackprop;
import org.deeplearning4j.nn.conf.layers.wrapper.BaseWrapperLayer;
import org.deeplearning4j.nn.conf.layers.SubsamplingLayer;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.nd4j.linalg.activations.Activation;

/**
 * The names and the loss head every fcn network has ({@link FcnArchitecture}), which the oracle, the
 * scores and the export read: inputs {@code [B, D, H, W]} (the first, {@value #IMAGE} in the built-in
 * network) and {@value #BIAS} {@code [B, K*C, H, W]} (the second); a layer giving g (the scores:
 * {@value #SCORES} in the built-in network, any layer with an {@code nOut} in an own one); the vertex {@value #BIASED} = scores + bias
 * (an ElementWiseVertex, so the bias enters before the softmax, as in the biased loss); the output
 * {@value #LOSS}, a CnnLossLayer with {@link FcnLoss}, whose labels are the target rows
 * {@code [B, K*C, H, W]}. Scoring feeds a zero bias.
 */
public final class FcnGraph {
    public static final String IMAGE = "image", BIAS = "bias", SCORES = "scores", BIASED = "biased", LOSS = "loss";

    private FcnGraph() {}

    /** The layer name of hidden convolution i ({@link DilatedConvolutions}). */
    public static String conv(int i) {
        return "conv" + i;
    }

    /** Adds the biased loss on top of the layer {@code scores} (named {@value #SCORES}) and makes it the output. */
    public static void addHead(ComputationGraphConfiguration.GraphBuilder b, int groups) {
        b.addVertex(BIASED, new ElementWiseVertex(ElementWiseVertex.Op.Add), SCORES, BIAS);
        b.addLayer(LOSS, new CnnLossLayer.Builder(new FcnLoss(groups)).activation(Activation.IDENTITY).build(), BIASED);
        b.setOutputs(LOSS);
    }

    /**
     * The multiple that H and W of a network's input must be ({@code {mh, mw}}): the product of the
     * strides of its pooling layers ({@link UNet}: 2^depth; {@link DilatedConvolutions}: 1). Pools in
     * sequence multiply; this assumes every pool lies on one path (true of both built-in architectures).
     */
    static int[] sizeMultiple(ComputationGraph net) {
        int mh = 1, mw = 1;
        for (var v : net.getConfiguration().getVertices().values()) {
            if (v instanceof LayerVertex lv && unwrapped(lv.getLayerConf().getLayer()) instanceof SubsamplingLayer s) {
                mh = Math.multiplyExact(mh, s.getStride()[0]);
                mw = Math.multiplyExact(mw, s.getStride()[1]);
            }
        }
        return new int[] {mh, mw};
    }

    /**
     * The learning rate the network's Adam uses now: that of the first trainable layer (parameters,
     * not frozen; all trainable layers share it, {@link OwnNetwork} gives them the oracle's Adam).
     * Frozen layers are skipped: DL4J reports the rate of the layer a freezing wrapper holds, and in a
     * user's file frozen before structlr read it (DL4J's FrozenLayer or FrozenLayerWithBackprop) that
     * is the file's own updater, not the oracle's (an Sgd 0.1 there made the step policy halve 0.1).
     */
    static double learningRate(ComputationGraph net) {
        for (String name : layerOrder(net)) {
            if (frozen(net.getConfiguration(), name) || net.getLayer(name).numParams() == 0) continue;
            Double r = net.getLearningRate(name);
            if (r != null) return r;
        }
        throw new IllegalStateException("fcn: the network has no trainable layer with a learning rate");
    }

    /** Whether layer vertex {@code name} is frozen: DL4J's FrozenLayer or FrozenLayerWithBackprop around its layer. */
    static boolean frozen(ComputationGraphConfiguration conf, String name) {
        if (!(conf.getVertices().get(name) instanceof LayerVertex lv)) return false;
        for (Layer l = lv.getLayerConf().getLayer(); ; ) {
            if (l instanceof FrozenLayer || l instanceof FrozenLayerWithBackprop) return true;
            if (l instanceof BaseWrapperLayer w) l = w.getUnderlying();
            else return false;
        }
    }

    /** The names of the network's layers in topological order (inputs first). */
    static List<String> layerOrder(ComputationGraph net) {
        List<String> out = new java.util.ArrayList<>();
        org.deeplearning4j.nn.graph.vertex.GraphVertex[] v = net.getVertices();
        for (int i : net.topologicalSortOrder()) if (v[i].hasLayer()) out.add(v[i].getVertexName());
        return out;
    }

    /** The vertex whose output is the scores g: the first input of {@value #BIASED} ({@value #SCORES} in the built-in network). */
    static String scoresVertex(ComputationGraph net) {
        List<String> in = net.getConfiguration().getVertexInputs().get(BIASED);
        if (in == null || in.size() != 2 || !in.get(1).equals(BIAS)) {
            throw new IllegalArgumentException("fcn: the network has no '" + BIASED + "' vertex adding the bias to the scores");
        }
        return in.get(0);
    }

    /** A layer's configuration without DL4J's freezing wrappers. */
    static Layer unwrapped(Layer l) {
        while (true) {
            if (l instanceof FrozenLayer f) l = f.getLayer();
            else if (l instanceof BaseWrapperLayer w) l = w.getUnderlying();
            else return l;
        }
    }

    /** The configuration of layer vertex {@code name} (unwrapped), or null when {@code name} is not a layer. */
    static Layer layer(ComputationGraphConfiguration conf, String name) {
        return conf.getVertices().get(name) instanceof LayerVertex lv ? unwrapped(lv.getLayerConf().getLayer()) : null;
    }

    /**
     * The channels D the network's image input takes: the {@code nIn} of the layers that read the
     * input directly (they must agree).
     *
     * @throws IllegalArgumentException when no layer with an {@code nIn} reads the input, or they disagree
     */
    static int inputChannels(ComputationGraphConfiguration conf) {
        String input = conf.getNetworkInputs().get(0);
        long d = -1;
        for (Map.Entry<String, List<String>> e : conf.getVertexInputs().entrySet()) {
            if (!e.getValue().contains(input)) continue;
            if (!(layer(conf, e.getKey()) instanceof FeedForwardLayer f)) {
                throw new IllegalArgumentException("the input '" + input + "' goes to '" + e.getKey()
                        + "', which is not a layer with a number of input channels (nIn)");
            }
            if (d >= 0 && f.getNIn() != d) {
                throw new IllegalArgumentException("the layers reading the input '" + input + "' take " + d + " and " + f.getNIn() + " channels");
            }
            d = f.getNIn();
        }
        if (d < 0) throw new IllegalArgumentException("no layer reads the input '" + input + "'");
        return (int) d;
    }

    /** The channels of layer {@code name}'s output (its {@code nOut}). */
    static long outputChannels(ComputationGraphConfiguration conf, String name) {
        if (!(layer(conf, name) instanceof FeedForwardLayer f)) {
            throw new IllegalArgumentException("the scores come from '" + name + "', which is not a layer with a number of output channels"
                    + " (nOut); end the network with one, e.g. a 1x1 convolution");
        }
        return f.getNOut();
    }
}
