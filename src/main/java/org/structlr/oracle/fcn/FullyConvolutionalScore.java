package org.structlr.oracle.fcn;

import org.structlr.oracle.ImageScoreFunction;
import org.structlr.oracle.ScoreFunctions;
import org.structlr.oracle.nn.NetworkCopies;
import org.structlr.oracle.nn.NetworkFiles;
import org.structlr.oracle.nn.Nets;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.deeplearning4j.nn.conf.layers.ConvolutionLayer;
import org.deeplearning4j.nn.conf.ComputationGraphConfiguration;
import org.deeplearning4j.nn.conf.layers.FeedForwardLayer;
import org.deeplearning4j.nn.conf.layers.Layer;
import org.deeplearning4j.nn.transferlearning.FineTuneConfiguration;
import org.deeplearning4j.nn.transferlearning.TransferLearning;
import org.deeplearning4j.nn.conf.graph.LayerVertex;
import org.deeplearning4j.nn.conf.layers.CnnLossLayer;
import org.nd4j.linalg.activations.Activation;
import org.nd4j.linalg.learning.config.NoOp;
import org.nd4j.linalg.lossfunctions.impl.LossMSE;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.indexing.NDArrayIndex;
import org.structlr.graph.GridBatch;

/**
 * A fully convolutional DL4J network over whole images ({@link FcnOracle}): input {@code [1, D, H, W]}
 * (channel j = pixel feature j), same-padded convolutions, scores {@code [1, K*C, H, W]} of K groups of
 * C scores per pixel (see {@link ImageTensors}); a ComputationGraph whose second input, the message
 * bias, is added before its {@link FcnLoss} layer, so its output with a zero bias is g itself. Saved with ModelSerializer including the updater state;
 * {@code fits} counts the oracle calls that produced it (it seeds the next call's image order).
 */
public abstract sealed class FullyConvolutionalScore implements ImageScoreFunction permits FcnScore, FcnPairScore {
    final ComputationGraph net;
    private final int numFeatures;
    private final int numClasses;
    private final int groups;
    private final int fits;
    private final int[] sizeMultiple;

    FullyConvolutionalScore(ComputationGraph net, int groups, int fits) {
        this.net = net;
        this.groups = groups;
        this.fits = fits;
        ComputationGraphConfiguration conf = net.getConfiguration();
        this.numFeatures = FcnGraph.inputChannels(conf);
        long out = FcnGraph.outputChannels(conf, FcnGraph.scoresVertex(net));
        if (out % groups != 0) throw new IllegalArgumentException("fcn: " + out + " output channels for " + groups + " groups");
        this.numClasses = (int) (out / groups);
        this.sizeMultiple = FcnGraph.sizeMultiple(net);
    }

    /** The configuration of convolution layer {@code name}; refuses a graph that has none of that name. */
    static ConvolutionLayer convolution(ComputationGraph net, String name) {
        if (!(FcnGraph.layer(net.getConfiguration(), name) instanceof ConvolutionLayer c)) {
            throw new IllegalArgumentException("fcn: the network has no convolution layer '" + name + "'");
        }
        return c;
    }

    int fits() {
        return fits;
    }

    /** Groups of C scores per pixel: 1 for unary, 2 (right edge, down edge) for pairwise. */
    public int groups() {
        return groups;
    }

    /** A private copy of the network (with structlr's loss on its last layer; {@link NetworkCopies}); used by the oracle and by export. */
    public ComputationGraph networkCopy() {
        return NetworkCopies.copy(net);
    }

    /** The network and its updater state as DL4J's own zip bytes (what the Spark learner ships). */
    static byte[] bytes(ComputationGraph net) {
        return NetworkFiles.bytes(net, true);
    }

    static ComputationGraph fromBytes(byte[] bytes) {
        try {
            return NetworkFiles.readGraph(bytes, "fcn network", true);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException("fcn: cannot restore the network", e);
        }
    }

    /**
     * The scores {@code [B, K*C, H, W]} for B images {@code [B, D, H, W]} of one size (the network fed a
     * zero bias; an image whose size the network's pools cannot take is padded and the scores cropped:
     * {@link ImageTensors#pad}).
     */
    public INDArray outputImage(INDArray image) {
        DataType t = net.params().dataType();
        INDArray x = ImageTensors.pad(image.castTo(t), sizeMultiple);
        INDArray zero = Nd4j.zeros(t, x.size(0), (long) groups * numClasses, x.size(2), x.size(3));
        INDArray out;
        synchronized (net) {                       // DL4J networks are not safe for concurrent use
            out = net.output(false, x, zero)[0];
        }
        return ImageTensors.crop(out, image.size(2), image.size(3));
    }

    /** H and W of the network's input must be multiples of these ({@link FcnGraph#sizeMultiple}; {1, 1} without pools). */
    public int[] sizeMultiple() {
        return sizeMultiple.clone();
    }

    /** The output of the network {@link #plainNetwork()}. */
    public static final String PLAIN_OUTPUT = "out";

    /**
     * The function as a ComputationGraph of DL4J's own classes, for export: input {@code image
     * [1, D, H, W]}, the same layers and parameters (DL4J's transfer learning removes the bias input and the loss head), and a {@code CnnLossLayer} with the built-in
     * {@code LossMSE} and IDENTITY activation as output {@value #PLAIN_OUTPUT}, so that
     * {@code output(image)[0]} is the scores {@code [1, K*C, H, W]} (no bias input: it is zero at
     * prediction time; the loss never enters {@code output}).
     */
    public ComputationGraph plainNetwork() {
        ComputationGraph src = networkCopy();
        String image = src.getConfiguration().getNetworkInputs().get(0), scores = FcnGraph.scoresVertex(src);
        // DL4J's transfer learning keeps every other layer and its parameters; a frozen layer stays DL4J's FrozenLayer
        ComputationGraph plain = new TransferLearning.GraphBuilder(src)
                .fineTuneConfiguration(new FineTuneConfiguration.Builder().updater(new NoOp()).build())
                .removeVertexAndConnections(FcnGraph.LOSS)
                .removeVertexAndConnections(FcnGraph.BIASED)
                .setInputs(image)
                .addLayer(PLAIN_OUTPUT, new CnnLossLayer.Builder(new LossMSE()).activation(Activation.IDENTITY).build(), scores)
                .setOutputs(PLAIN_OUTPUT)
                .build();
        // the training's im2col cache (DilatedConvolutions) is of no use to an export's user: DL4J's default
        for (var v : plain.getConfiguration().getVertices().values()) {
            if (v instanceof LayerVertex lv) lv.getLayerConf().setCacheMode(org.deeplearning4j.nn.conf.CacheMode.NONE);
        }
        return plain;
    }

    /**
     * Pixels per forward pass when scoring: same-size images are stacked up to this many pixels (the
     * first convolution's im2col buffer is 9 D floats per pixel: 48 MB at D = 42).
     */
    static final int SCORE_PIXELS = 32_768;

    /**
     * All groups of all pixels as rows {@code [V*K, C]} (pixel-major), in the features' data type.
     * Same-size images go through the network together (one forward pass per stack of up to
     * {@link #SCORE_PIXELS} pixels): convolutions treat the images of a mini-batch independently, so
     * the scores are those of one image at a time.
     */
    INDArray groupRows(INDArray pixelFeatures, GridBatch layout) {
        ScoreFunctions.checkFeatures(pixelFeatures, numFeatures, kind() + " score");
        if (pixelFeatures.size(0) != layout.numVariables()) {
            throw new IllegalArgumentException(kind() + " score: " + pixelFeatures.size(0) + " pixel rows for " + layout
                    + " (" + layout.numVariables() + " pixels)");
        }
        DataType t = net.params().dataType();
        int count = layout.count();
        int[] order = new int[count];
        for (int k = 0; k < count; k++) order[k] = k;
        INDArray[] perImage = new INDArray[count];
        for (int[] batch : FcnEpochs.batches(layout, order, Integer.MAX_VALUE)) {
            int h = layout.height(batch[0]), w = layout.width(batch[0]);
            int step = Math.max(1, SCORE_PIXELS / Math.max(1, h * w));
            for (int from = 0; from < batch.length; from += step) {
                int[] part = Arrays.copyOfRange(batch, from, Math.min(batch.length, from + step));
                INDArray[] x = new INDArray[part.length];
                for (int i = 0; i < part.length; i++) x[i] = ImageTensors.image(pixelFeatures, layout, part[i], t);
                INDArray out = outputImage(x.length == 1 ? x[0] : Nd4j.concat(0, x));
                for (int i = 0; i < part.length; i++) {
                    perImage[part[i]] = ImageTensors.toRows(out.get(NDArrayIndex.interval(i, i + 1)), groups);
                }
            }
        }
        INDArray all = count == 1 ? perImage[0] : Nd4j.concat(0, perImage);
        return all.castTo(pixelFeatures.dataType());
    }

    /** Refused: rows carry no image boundaries (see {@link ImageScoreFunction}). */
    @Override
    public INDArray scores(INDArray features) {
        throw new IllegalArgumentException(kind() + " score: a fully convolutional function scores whole images;"
                + " it needs the images' layout (every example an image: a grid batch)");
    }

    @Override
    public int numClasses() {
        return numClasses;
    }

    @Override
    public int numFeatures() {
        return numFeatures;
    }

    /** The layers in topological order as text, e.g. "conv3x3x16 conv3x3x16d2 conv1x1x2" (the loss head left out). */
    String layers() {
        StringBuilder s = new StringBuilder();
        for (String name : FcnGraph.layerOrder(net)) {
            if (name.equals(FcnGraph.LOSS)) continue;
            var v = net.getConfiguration().getVertices().get(name);
            Layer wrapped = ((LayerVertex) v).getLayerConf().getLayer(), l = FcnGraph.unwrapped(wrapped);
            if (s.length() > 0) s.append(' ');
            if (wrapped != l) s.append("frozen:");
            if (l instanceof ConvolutionLayer c && c.getClass() == ConvolutionLayer.class) {
                s.append("conv").append(c.getKernelSize()[0]).append('x').append(c.getKernelSize()[1]).append('x').append(c.getNOut());
                if (c.getDilation()[0] > 1) s.append('d').append(c.getDilation()[0]);
            } else {
                s.append(l.getClass().getSimpleName());
                if (l instanceof FeedForwardLayer f && f.getNOut() > 0) s.append('x').append(f.getNOut());
            }
        }
        return s.toString();
    }

    @Override
    public String describe() {
        return kind() + ": " + numFeatures + " pixel features -> " + layers() + " (" + groups + " x " + numClasses
                + " scores per pixel), " + net.numParams() + " parameters, " + fits + " fits, " + net.params().dataType();
    }

    @Override
    public void save(Path dir) throws IOException {
        java.nio.file.Files.createDirectories(dir);
        NetworkFiles.write(net, dir.resolve(Nets.MODEL_FILE), true);
        ObjectNode meta = ScoreFunctions.meta(this);
        meta.put("fits", fits);
        meta.put("groups", groups);
        meta.put("layers", layers());
        ScoreFunctions.writeMeta(dir, meta);
    }

    static ComputationGraph loadNet(Path dir, JsonNode meta, int groups) throws IOException {
        ComputationGraph net = NetworkFiles.readGraph(dir.resolve(Nets.MODEL_FILE), true);
        if (meta.path("groups").asInt(-1) != groups) {
            throw new IOException(dir + ": " + ScoreFunctions.META_FILE + " says " + meta.path("groups") + " groups, expected " + groups);
        }
        return net;
    }

    static <S extends FullyConvolutionalScore> S checkShape(S s, Path dir, JsonNode meta) throws IOException {
        if (s.numClasses() != meta.path("numClasses").asInt() || s.numFeatures() != meta.path("numFeatures").asInt()) {
            throw new IOException(dir + ": network shape does not match " + ScoreFunctions.META_FILE);
        }
        return s;
    }

    @Override
    public String toString() {
        return describe();
    }
}
