package org.structlr.oracle.fcn;

import org.deeplearning4j.nn.conf.ComputationGraphConfiguration;
import org.deeplearning4j.nn.conf.graph.MergeVertex;
import org.deeplearning4j.nn.conf.layers.ActivationLayer;
import org.deeplearning4j.nn.conf.layers.BatchNormalization;
import org.deeplearning4j.nn.conf.layers.ConvolutionLayer;
import org.deeplearning4j.nn.conf.layers.PoolingType;
import org.deeplearning4j.nn.conf.layers.SubsamplingLayer;
import org.deeplearning4j.nn.conf.layers.Upsampling2D;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.deeplearning4j.nn.weights.WeightInit;
import org.nd4j.linalg.activations.Activation;

/**
 * An encoder-decoder with skip connections (U-Net-like) and batch normalisation, the second built-in
 * fcn architecture ({@code --unary-option arch=unet}). With width w and depth n:
 * <pre>
 *   conv0: 1x1, D -> w (a cheap stem: the 42 hand maps are already per-pixel descriptors)
 *   level 0 (full size):  3x3 w -> w                                   = skip 0
 *   level l = 1..n:       2x2 max pool, 3x3 -> w 2^l, 3x3 w 2^l -> w 2^l   (level n: the bottom)  = skip l
 *   decoder l = n-1..0:   2x up-sampling (nearest), concat with skip l, 3x3 -> w 2^l
 *   scores: 1x1 -> K*C
 * </pre>
 * every 3x3 convolution without bias, then batch normalisation, then ReLU. Why: the dilated
 * architecture sees 31 x 31 pixels at full size with 16 channels everywhere; down-sampling gives the
 * bottom a receptive field over the whole 36 x 48 image at a sixteenth of the pixels, so it can afford
 * 4w channels, and the skips bring back the full-size detail (outlines) the coarse levels lose.
 *
 * <p>Sizes: each pool halves, each up-sampling doubles, so the network needs H and W to be multiples
 * of 2^n ({@link FcnGraph#sizeMultiple}); {@link ImageTensors#pad} pads any other image with zero
 * features (and zero targets, which add nothing to the loss) and the scores are cropped back, so
 * every image size works. Batch normalisation uses the mini-batch's statistics in training and the
 * running averages (DL4J's decay 0.9) when scoring; the descent check scores with the latter.
 */
public final class UNet implements FcnArchitecture {

    private static final long serialVersionUID = 1L;

    public static final int DEFAULT_WIDTH = 16;
    public static final int DEFAULT_DEPTH = 2;

    private final int width;
    private final int depth;
    private final Activation activation;

    public UNet(int width, int depth) {
        this(width, depth, Activation.RELU);
    }

    /** With another activation than ReLU: the gradient check uses TANH (ReLU's kink and max-pool ties at 0 defeat finite differences). */
    UNet(int width, int depth, Activation activation) {
        if (width < 1 || depth < 1 || depth > 6) {
            throw new IllegalArgumentException("fcn unet: need width >= 1 and depth 1..6, got width " + width + ", depth " + depth);
        }
        this.width = width;
        this.depth = depth;
        this.activation = activation;
    }

    public int width() {
        return width;
    }

    public int depth() {
        return depth;
    }

    /** H and W must be multiples of this (2^depth): the pools halve the size depth times. */
    public int sizeMultiple() {
        return 1 << depth;
    }

    @Override
    public ComputationGraph newNetwork(int numFeatures, int numClasses, int groups, Optimisation o) {
        ComputationGraphConfiguration.GraphBuilder b = o.graphBuilder();
        // conv0 reads the image: FullyConvolutionalScore takes the number of pixel features from it
        b.addLayer(FcnGraph.conv(0), new ConvolutionLayer.Builder(1, 1).nIn(numFeatures).nOut(width).hasBias(false)
                .activation(Activation.IDENTITY).build(), FcnGraph.IMAGE);
        String x = normRelu(b, "stem", width, FcnGraph.conv(0));
        String[] skip = new String[depth + 1];
        x = convNormRelu(b, "down0", width, width, x);
        skip[0] = x;
        for (int l = 1; l <= depth; l++) {
            int c = width << l;
            b.addLayer("pool" + l, new SubsamplingLayer.Builder(PoolingType.MAX).kernelSize(2, 2).stride(2, 2).build(), x);
            x = convNormRelu(b, "down" + l + "a", c / 2, c, "pool" + l);
            x = convNormRelu(b, "down" + l + "b", c, c, x);
            skip[l] = x;
        }
        int channels = width << depth;
        for (int l = depth - 1; l >= 0; l--) {
            int c = width << l;
            b.addLayer("up" + l, new Upsampling2D.Builder(2).build(), x);
            b.addVertex("concat" + l, new MergeVertex(), "up" + l, skip[l]);
            x = convNormRelu(b, "dec" + l, channels + c, c, "concat" + l);
            channels = c;
        }
        b.addLayer(FcnGraph.SCORES, new ConvolutionLayer.Builder(1, 1).nIn(width).nOut((long) groups * numClasses)
                .activation(Activation.IDENTITY).weightInit(WeightInit.XAVIER).build(), x);
        FcnGraph.addHead(b, groups);
        ComputationGraph net = new ComputationGraph(b.build());
        net.init();
        return net;
    }

    /** A 3x3 convolution without bias (batch normalisation's beta is the bias), then batch normalisation and ReLU. */
    private String convNormRelu(ComputationGraphConfiguration.GraphBuilder b, String name, int in, int out, String input) {
        b.addLayer(name, new ConvolutionLayer.Builder(3, 3).nIn(in).nOut(out).hasBias(false).activation(Activation.IDENTITY).build(), input);
        return normRelu(b, name, out, name);
    }

    private String normRelu(ComputationGraphConfiguration.GraphBuilder b, String name, int channels, String input) {
        b.addLayer(name + "-bn", new BatchNormalization.Builder().nIn(channels).nOut(channels).build(), input);
        b.addLayer(name + "-relu", new ActivationLayer.Builder().activation(activation).build(), name + "-bn");
        return name + "-relu";
    }

    @Override
    public String describe() {
        return "unet width " + width + ", depth " + depth + (activation == Activation.RELU ? "" : ", " + activation) + " (1x1 stem, 3x3 convolutions, batch normalisation, ReLU, 2x2 max pools,"
                + " nearest up-sampling, skip concatenations), conv 1x1";
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof UNet u && u.width == width && u.depth == depth && u.activation == activation;
    }

    @Override
    public int hashCode() {
        return (31 * width + depth) * 31 + activation.hashCode();
    }
}
