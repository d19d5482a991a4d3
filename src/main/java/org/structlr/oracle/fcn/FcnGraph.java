package org.structlr.oracle.fcn;

import org.deeplearning4j.nn.conf.ComputationGraphConfiguration;
import org.deeplearning4j.nn.conf.graph.ElementWiseVertex;
import org.deeplearning4j.nn.conf.graph.LayerVertex;
import org.deeplearning4j.nn.conf.layers.CnnLossLayer;
import org.deeplearning4j.nn.conf.layers.SubsamplingLayer;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.nd4j.linalg.activations.Activation;

/**
 * The names and the loss head every fcn network has ({@link FcnArchitecture}), which the oracle, the
 * scores and the export read: inputs {@value #IMAGE} {@code [B, D, H, W]} and {@value #BIAS}
 * {@code [B, K*C, H, W]}; the layer {@value #SCORES} = g; the vertex {@value #BIASED} = scores + bias
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
            if (v instanceof LayerVertex lv && lv.getLayerConf().getLayer() instanceof SubsamplingLayer s) {
                mh = Math.multiplyExact(mh, s.getStride()[0]);
                mw = Math.multiplyExact(mw, s.getStride()[1]);
            }
        }
        return new int[] {mh, mw};
    }

    /** The learning rate the network's Adam uses now (the scores layer's: all layers share it). */
    static double learningRate(ComputationGraph net) {
        Double r = net.getLearningRate(SCORES);
        if (r == null) throw new IllegalStateException("fcn: the network has no learning rate");
        return r;
    }
}
