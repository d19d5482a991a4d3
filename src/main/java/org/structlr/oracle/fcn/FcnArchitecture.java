package org.structlr.oracle.fcn;

import java.io.Serializable;
import org.deeplearning4j.nn.conf.CacheMode;
import org.deeplearning4j.nn.conf.ComputationGraphConfiguration;
import org.deeplearning4j.nn.conf.ConvolutionMode;
import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.deeplearning4j.nn.weights.WeightInit;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.learning.config.IUpdater;

/**
 * The network an {@link FcnOracle} trains: the replaceable part of the fcn class. It makes a fresh
 * trainable ComputationGraph with the layout {@link FcnGraph} names: a first input, the image
 * {@code [B, D, H, W]}, a second, {@value FcnGraph#BIAS} {@code [B, K*C, H, W]}, a layer with an
 * {@code nOut} giving the scores g {@code [B, K*C, H, W]}, and the biased loss attached by
 * {@link FcnGraph#addHead} on top of it. The oracle owns the training (epochs, mini-batches, the
 * descent check); the architecture only the layers. {@link DilatedConvolutions} is the built-in one,
 * {@link OwnNetwork} a user's file; {@link FcnSettings.Builder#architecture} plugs in another. The
 * scores, their export and the step policy read any such graph. {@link UNet} is the second built-in one;
 * a network with pooling layers gets images padded to multiples of the product of their strides
 * ({@link FcnGraph#sizeMultiple}).
 */
public interface FcnArchitecture extends Serializable {

    /** How the network is optimised: set on its configuration (seed of the initial weights, precision, Adam, weight decay). */
    record Optimisation(long seed, DataType dataType, IUpdater updater, double weightDecay) {
        /**
         * The start every built-in architecture shares: these settings, ReLU initialisation, same
         * padding, and the two inputs (image, bias) added; the layers come next.
         */
        public ComputationGraphConfiguration.GraphBuilder graphBuilder() {
            NeuralNetConfiguration.Builder base = new NeuralNetConfiguration.Builder();
            if (weightDecay > 0) base.weightDecay(weightDecay, true);
            return base
                    .seed(seed)
                    .dataType(dataType)
                    .updater(updater)
                    .weightInit(WeightInit.RELU)
                    .convolutionMode(ConvolutionMode.Same)
                    // keep each convolution's im2col from the forward pass for its backward pass: without it
                    // DL4J recomputes every convolution's forward pass during backprop
                    .cacheMode(CacheMode.DEVICE)
                    .graphBuilder()
                    .addInputs(FcnGraph.IMAGE, FcnGraph.BIAS);
        }
    }

    /** A fresh network for {@code numFeatures} pixel features and {@code groups} groups of {@code numClasses} scores per pixel. */
    ComputationGraph newNetwork(int numFeatures, int numClasses, int groups, Optimisation optimisation);

    /** The layers in words, for {@link FcnOracle#describe()}. */
    String describe();
}
