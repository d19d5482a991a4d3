package org.structlr.oracle.fcn;

import java.io.Serializable;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.learning.config.IUpdater;

/**
 * The network an {@link FcnOracle} trains: the replaceable part of the fcn class. It makes a fresh
 * trainable ComputationGraph with the layout {@link FcnGraph} names: inputs {@code image [B, D, H, W]}
 * and {@code bias [B, K*C, H, W]}, the scores g {@code [B, K*C, H, W]} from a layer named
 * {@link FcnGraph#SCORES}, and the biased loss attached by {@link FcnGraph#addHead}. The oracle owns
 * the training (epochs, mini-batches, the descent check); the architecture only the layers.
 * {@link DilatedConvolutions} is the default; {@link FcnSettings.Builder#architecture} plugs in another.
 *
 * <p>The scores ({@link FullyConvolutionalScore}) read the number of pixel features from a
 * convolution layer named {@code conv0} ({@link FcnGraph#conv}) that reads the image, and the export
 * copies every vertex between the image and {@value FcnGraph#SCORES}. A network with pooling layers
 * gets images padded to multiples of the product of their strides ({@link FcnGraph#sizeMultiple}).
 * {@link UNet} is the second built-in one.
 */
public interface FcnArchitecture extends Serializable {

    /** How the network is optimised: set on its configuration (seed of the initial weights, precision, Adam, weight decay). */
    record Optimisation(long seed, DataType dataType, IUpdater updater, double weightDecay) {}

    /** A fresh network for {@code numFeatures} pixel features and {@code groups} groups of {@code numClasses} scores per pixel. */
    ComputationGraph newNetwork(int numFeatures, int numClasses, int groups, Optimisation optimisation);

    /** The layers in words, for {@link FcnOracle#describe()}. */
    String describe();
}
