package org.structlr.oracle.fcn;

import java.io.IOException;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.deeplearning4j.nn.conf.ComputationGraphConfiguration;
import org.deeplearning4j.nn.conf.graph.ElementWiseVertex;
import org.deeplearning4j.nn.conf.layers.CnnLossLayer;
import org.deeplearning4j.nn.conf.layers.Layer;
import org.deeplearning4j.nn.conf.layers.LossLayer;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.deeplearning4j.nn.transferlearning.FineTuneConfiguration;
import org.deeplearning4j.nn.transferlearning.TransferLearning;
import org.nd4j.linalg.activations.Activation;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;

/**
 * A user's own network as the fcn architecture ({@code --unary-net FILE}, {@link NetworkSource}): a
 * DL4J ComputationGraph with one input {@code [B, D, H, W]} whose output scores every pixel,
 * {@code [B, K*C, H, W]}. structlr makes it trainable with DL4J's transfer-learning API: an output
 * loss layer of the file (CnnLossLayer, LossLayer or an output layer without parameters) is removed
 * and the layer that fed it is the scores; the bias input and the biased loss are attached as in
 * every fcn network ({@link FcnGraph#addHead}); the oracle's Adam, seed and weight decay replace the
 * file's training settings ({@link FineTuneConfiguration}); the first {@code freeze} layers in
 * topological order (inputs first) are frozen ({@code setFeatureExtractor}: DL4J's FrozenLayer, whose
 * parameters no fit changes). A zip brings its parameters (fine-tuning); a configuration is
 * initialised from the oracle's seed.
 */
public final class OwnNetwork implements FcnArchitecture {

    private static final long serialVersionUID = 1L;

    /** The image size every own network is checked on when it is made: the output must have it too. */
    static final int CHECK_HEIGHT = 16, CHECK_WIDTH = 24;

    private final NetworkSource source;
    private final int freeze;

    public OwnNetwork(NetworkSource source, int freeze) {
        if (source == null || !source.present()) throw new IllegalArgumentException("fcn: an own network needs a network file");
        if (freeze < 0) throw new IllegalArgumentException("fcn: freeze must be at least 0, got " + freeze);
        this.source = source;
        this.freeze = freeze;
    }

    public NetworkSource source() {
        return source;
    }

    /** Layers kept fixed, counted in topological order. */
    public int freeze() {
        return freeze;
    }

    /**
     * @throws IllegalArgumentException naming the file and the problem: unreadable; not one input and
     *         one output; an input of other than {@code numFeatures} channels; a freeze that leaves no
     *         layer to train; an output that is not {@code groups * numClasses} scores per pixel
     */
    @Override
    public ComputationGraph newNetwork(int numFeatures, int numClasses, int groups, Optimisation o) {
        String name = source.name();
        ComputationGraph user;
        try {
            user = source.graph(o.seed());
        } catch (IOException e) {
            throw new IllegalArgumentException(e.getMessage(), e);
        }
        try {
            return build(user, numFeatures, numClasses, groups, o);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(name + ": " + e.getMessage(), e);
        }
    }

    private ComputationGraph build(ComputationGraph user, int d, int c, int groups, Optimisation o) {
        ComputationGraphConfiguration conf = user.getConfiguration();
        if (conf.getNetworkInputs().size() != 1 || conf.getNetworkOutputs().size() != 1) {
            throw new IllegalArgumentException("structlr needs one input (the image) and one output (the scores); this network has inputs "
                    + conf.getNetworkInputs() + " and outputs " + conf.getNetworkOutputs());
        }
        String input = conf.getNetworkInputs().get(0), output = conf.getNetworkOutputs().get(0);
        int channels = FcnGraph.inputChannels(conf);
        if (channels != d) {
            throw new IllegalArgumentException("the network takes " + channels + " input channels, the data has " + d
                    + " pixel features (its input must be [B, " + d + ", H, W])");
        }
        // the file's loss head goes: structlr's biased loss replaces it
        boolean lossHead = isLossHead(FcnGraph.layer(conf, output));
        String scores = lossHead ? single(conf.getVertexInputs().get(output), output) : output;
        long out = FcnGraph.outputChannels(conf, scores);
        if (out != (long) groups * c) {
            throw new IllegalArgumentException("the scores ('" + scores + "') have " + out + " channels; structlr needs one score per class per"
                    + " pixel: " + (groups * c) + (groups == 1 ? " (the " + c + " labels)" : " (" + groups + " edges x " + c + " joint labels)"));
        }
        checkOutput(user, scores, d, groups * c);
        for (String taken : List.of(FcnGraph.BIAS, FcnGraph.BIASED, FcnGraph.LOSS)) {
            if ((conf.getVertices().containsKey(taken) && !(lossHead && taken.equals(output))) || input.equals(taken)) {
                throw new IllegalArgumentException("the network has a vertex named '" + taken + "', a name structlr's loss head uses; rename it");
            }
        }
        List<String> layers = FcnGraph.layerOrder(user);
        if (lossHead) layers.remove(output);
        int trainable = 0;
        for (int i = freeze; i < layers.size(); i++) trainable += user.getLayer(layers.get(i)).numParams() > 0 ? 1 : 0;
        if (freeze > layers.size() || trainable == 0) {
            throw new IllegalArgumentException("freeze " + freeze + " leaves no layer with parameters to train (the network has "
                    + layers.size() + " layers: " + String.join(", ", layers) + ")");
        }
        FineTuneConfiguration.Builder tune = new FineTuneConfiguration.Builder().updater(o.updater()).seed(o.seed());
        if (o.weightDecay() > 0) tune.weightDecay(o.weightDecay(), true);
        TransferLearning.GraphBuilder b = new TransferLearning.GraphBuilder(user).fineTuneConfiguration(tune.build());
        if (freeze > 0) b.setFeatureExtractor(layers.subList(0, freeze).toArray(new String[0]));
        if (lossHead) b.removeVertexAndConnections(output);
        b.addInputs(FcnGraph.BIAS)
                .addVertex(FcnGraph.BIASED, new ElementWiseVertex(ElementWiseVertex.Op.Add), scores, FcnGraph.BIAS)
                .addLayer(FcnGraph.LOSS, new CnnLossLayer.Builder(new FcnLoss(groups)).activation(Activation.IDENTITY).build(), FcnGraph.BIASED)
                .setOutputs(FcnGraph.LOSS);
        ComputationGraph net = b.build();
        if (net.params().dataType() != o.dataType()) net = net.convertDataType(o.dataType());
        return net;
    }

    /** A layer that only computes a loss (no parameters of its own): structlr's loss takes its place. */
    private static boolean isLossHead(Layer l) {
        return l instanceof CnnLossLayer || l instanceof LossLayer;
    }

    private static String single(List<String> inputs, String output) {
        if (inputs == null || inputs.size() != 1) throw new IllegalArgumentException("the output layer '" + output + "' has " + inputs + " inputs, expected one");
        return inputs.get(0);
    }

    /** The scores (vertex {@code scores}) of a random image of {@link #CHECK_HEIGHT} x {@link #CHECK_WIDTH} must be {@code [1, channels, H, W]}. */
    static void checkOutput(ComputationGraph user, String scores, int d, int channels) {
        Random r = new Random(1);
        double[] v = new double[d * CHECK_HEIGHT * CHECK_WIDTH];
        for (int i = 0; i < v.length; i++) v[i] = r.nextDouble();
        INDArray x = Nd4j.create(v, new long[]{1, d, CHECK_HEIGHT, CHECK_WIDTH}, 'c').castTo(user.params().dataType());
        long[] shape;
        try {
            shape = user.feedForward(new INDArray[]{x}, false).get(scores).shape();
        } catch (RuntimeException e) {
            String m = String.valueOf(e.getMessage());
            throw new IllegalArgumentException("DL4J cannot run the network on an image [1, " + d + ", " + CHECK_HEIGHT + ", " + CHECK_WIDTH
                    + "]: " + (m.indexOf('\n') < 0 ? m : m.substring(0, m.indexOf('\n'))), e);
        }
        long[] want = {1, channels, CHECK_HEIGHT, CHECK_WIDTH};
        if (!Arrays.equals(shape, want)) {
            throw new IllegalArgumentException("the network's scores for an image [1, " + d + ", " + CHECK_HEIGHT + ", " + CHECK_WIDTH + "] are "
                    + Arrays.toString(shape) + "; structlr needs one score per class per pixel at the image's size, " + Arrays.toString(want));
        }
    }

    @Override
    public String describe() {
        // the content's digest, not the file's name: a resume compares descriptions, and may run without the file
        return "own network (" + source + ")" + (freeze > 0 ? ", first " + freeze + " layers frozen" : "");
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof OwnNetwork n && n.source.equals(source) && n.freeze == freeze;
    }

    @Override
    public int hashCode() {
        return 31 * source.hashCode() + freeze;
    }
}
