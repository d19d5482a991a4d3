package org.structlr.oracle.fcn;

import java.util.Arrays;
import org.deeplearning4j.nn.conf.ComputationGraphConfiguration;
import org.deeplearning4j.nn.conf.layers.ConvolutionLayer;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.deeplearning4j.nn.weights.WeightInit;
import org.nd4j.linalg.activations.Activation;

/**
 * The built-in fcn architecture: same-padded 3 x 3 convolutions of {@code width} channels, ReLU, one
 * per dilation ({@code 1, 2, 4, 8} by default: a receptive field of 1 + 2 * sum = 31 x 31 pixels, most
 * of a 36 x 48 image, at the cost of four layers and no down-sampling, so every image size works and
 * outputs align with pixels), then a 1 x 1 convolution to {@code K*C} channels (IDENTITY): the scores.
 */
public final class DilatedConvolutions implements FcnArchitecture {

    private static final long serialVersionUID = 1L;

    public static final int DEFAULT_WIDTH = 16;
    static final int[] DEFAULT_DILATIONS = {1, 2, 4, 8};

    private final int width;
    private final int[] dilations;

    public DilatedConvolutions(int width, int... dilations) {
        if (width < 1 || dilations.length < 1) {
            throw new IllegalArgumentException("fcn oracle: need width >= 1 and at least one layer");
        }
        for (int d : dilations) if (d < 1) throw new IllegalArgumentException("fcn oracle: dilations must be >= 1");
        this.width = width;
        this.dilations = dilations.clone();
    }

    /** The defaults: 16 channels, dilations 1, 2, 4, 8. */
    public static DilatedConvolutions defaults() {
        return new DilatedConvolutions(DEFAULT_WIDTH, DEFAULT_DILATIONS);
    }

    public int width() {
        return width;
    }

    public int[] dilations() {
        return dilations.clone();
    }

    @Override
    public ComputationGraph newNetwork(int numFeatures, int numClasses, int groups, Optimisation o) {
        ComputationGraphConfiguration.GraphBuilder b = o.graphBuilder();
        int in = numFeatures;
        String prev = FcnGraph.IMAGE;
        for (int i = 0; i < dilations.length; i++) {
            b.addLayer(FcnGraph.conv(i), new ConvolutionLayer.Builder(3, 3).dilation(dilations[i], dilations[i]).nIn(in).nOut(width)
                    .activation(Activation.RELU).build(), prev);
            in = width;
            prev = FcnGraph.conv(i);
        }
        b.addLayer(FcnGraph.SCORES, new ConvolutionLayer.Builder(1, 1).nIn(in).nOut((long) groups * numClasses)
                .activation(Activation.IDENTITY).weightInit(WeightInit.XAVIER).build(), prev);
        FcnGraph.addHead(b, groups);
        ComputationGraph net = new ComputationGraph(b.build());
        net.init();
        return net;
    }

    @Override
    public String describe() {
        return "conv 3x3x" + width + " relu, dilations " + Arrays.toString(dilations) + ", conv 1x1";
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof DilatedConvolutions d && d.width == width && Arrays.equals(d.dilations, dilations);
    }

    @Override
    public int hashCode() {
        return 31 * width + Arrays.hashCode(dilations);
    }
}
