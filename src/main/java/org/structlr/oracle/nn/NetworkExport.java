package org.structlr.oracle.nn;

import static org.structlr.oracle.FunctionExport.JSON;
import static org.structlr.oracle.FunctionExport.check;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.file.Path;
import org.deeplearning4j.nn.conf.MultiLayerConfiguration;
import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.nn.conf.layers.BaseOutputLayer;
import org.deeplearning4j.nn.conf.layers.Layer;
import org.deeplearning4j.nn.conf.layers.OutputLayer;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.deeplearning4j.util.ModelSerializer;
import org.nd4j.linalg.activations.Activation;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.learning.config.NoOp;
import org.nd4j.linalg.lossfunctions.impl.LossMSE;
import org.structlr.oracle.FunctionClass;
import org.structlr.oracle.ScoreFunction;

/**
 * Writing a function as a DL4J MultiLayerNetwork zip (ModelSerializer) of DL4J's own classes,
 * checked by {@link org.structlr.oracle.FunctionExport#check}. structlr's training loss on the
 * output layer ({@code BiasedSoftmaxLoss}) is replaced by {@link LossMSE} with the IDENTITY
 * activation, so {@code net.output(features)} is g itself ({@code LossMCXENT} with IDENTITY is
 * refused by DL4J's output layer validation; the loss never enters {@code output}).
 */
public final class NetworkExport {
    private NetworkExport() {}

    /**
     * Writes {@code net} (which must compute g = f.scores) as {@code <stem>.zip}, checks it after
     * reloading it from the file, and returns the manifest fields.
     */
    public static ObjectNode network(ScoreFunction f, MultiLayerNetwork net, int in, FunctionClass.ExportTarget t) throws IOException {
        String file = t.stem() + ".zip";
        Path path = t.dir().resolve(file);
        ModelSerializer.writeModel(net, path.toFile(), false);
        MultiLayerNetwork back = NetworkFiles.readMultiLayer(path, false);
        check(f, t.name(), in, back.params().dataType(), x -> back.output(x, false));
        ObjectNode o = JSON.createObjectNode();
        o.put("file", file);
        o.put("format", "dl4j-multilayernetwork");
        o.put("features", in);
        if (f.numFeatures() < 0) o.put("featuresIgnored", true);
        o.put("dataType", back.params().dataType().toString());
        o.put("output", "net.output(features [N, " + in + "]) = g [N, " + f.numClasses() + "]");
        return o;
    }

    /** One IDENTITY OutputLayer of DL4J: g = x W + b, W [in, C], b [C] (double precision). */
    public static MultiLayerNetwork affineNetwork(double[][] w, double[] b) {
        int in = w.length, c = b.length;
        MultiLayerConfiguration conf = new NeuralNetConfiguration.Builder()
                .dataType(DataType.DOUBLE)
                .updater(new NoOp())
                .list()
                .layer(new OutputLayer.Builder(new LossMSE()).nIn(in).nOut(c).activation(Activation.IDENTITY).build())
                .build();
        MultiLayerNetwork net = new MultiLayerNetwork(conf);
        net.init();
        double[] flat = new double[in * c];
        for (int k = 0; k < in; k++) {
            if (w[k].length != c) throw new IllegalArgumentException("W row " + k + " has " + w[k].length + " columns, b " + c);
            System.arraycopy(w[k], 0, flat, k * c, c);
        }
        net.getLayer(0).setParam("W", Nd4j.create(flat, new long[]{in, c}, DataType.DOUBLE));
        net.getLayer(0).setParam("b", Nd4j.create(b, new long[]{1, c}, DataType.DOUBLE));
        return net;
    }

    /** A constant function (zero or constant class) as {@link #affineNetwork} with W = 0. */
    public static MultiLayerNetwork constantNetwork(double[] b, int in) {
        return affineNetwork(new double[in][b.length], b);
    }

    /**
     * A network-backed function as a MultiLayerNetwork of DL4J's own classes: the same layers (and
     * input preprocessors) and parameters, the output layer's loss replaced by {@link LossMSE}.
     */
    public static MultiLayerNetwork plainNetwork(NetworkScore ns) {
        MultiLayerNetwork src = ns.networkCopy();
        MultiLayerConfiguration conf = src.getLayerWiseConfigurations().clone();
        Layer out = conf.getConf(conf.getConfs().size() - 1).getLayer();
        if (!(out instanceof BaseOutputLayer ol)) {
            throw new IllegalArgumentException(ns.kind() + " network: last layer is a " + out.getClass().getSimpleName()
                    + ", expected an output layer");
        }
        ol.setLossFn(new LossMSE());
        String json = conf.toJson();
        if (json.contains("org.structlr")) {
            throw new IllegalStateException(ns.kind() + " network: configuration still names structlr classes after the rebuild");
        }
        MultiLayerNetwork net = new MultiLayerNetwork(conf);
        net.init(src.params().dup(), false);
        return net;
    }

    /** Exports a network-backed function as a DL4J network. */
    public static ObjectNode export(ScoreFunction f, FunctionClass.ExportTarget t) throws IOException {
        if (!(f instanceof NetworkScore ns)) throw new IllegalArgumentException("cannot export a '" + f.kind() + "' function as a DL4J network");
        int in = f.numFeatures() >= 0 ? f.numFeatures() : Math.max(1, t.featureWidth());
        return network(f, plainNetwork(ns), in, t);
    }

    /** Exports a function that ignores its features (g = b for every row) as a DL4J network. */
    public static ObjectNode exportConstant(ScoreFunction f, double[] b, FunctionClass.ExportTarget t) throws IOException {
        int in = Math.max(1, t.featureWidth());
        return network(f, constantNetwork(b, in), in, t);
    }
}
