package org.structlr.oracle;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import ml.dmlc.xgboost4j.java.Booster;
import ml.dmlc.xgboost4j.java.DMatrix;
import ml.dmlc.xgboost4j.java.XGBoost;
import ml.dmlc.xgboost4j.java.XGBoostError;
import org.deeplearning4j.nn.conf.MultiLayerConfiguration;
import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.nn.conf.layers.BaseOutputLayer;
import org.deeplearning4j.nn.conf.layers.Layer;
import org.deeplearning4j.nn.conf.layers.OutputLayer;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.deeplearning4j.util.ModelSerializer;
import org.nd4j.linalg.activations.Activation;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.learning.config.NoOp;
import org.nd4j.linalg.lossfunctions.impl.LossMSE;

/**
 * Writing one function in its ecosystem's format, for {@link FunctionClass#export}: a DL4J
 * MultiLayerNetwork zip (ModelSerializer) of DL4J's own classes, or an XGBoost JSON model. Every
 * written function is read back and compared with {@link ScoreFunction#scores} on random features
 * ({@link #check}); a mismatch throws, and the caller (ModelExport) leaves nothing behind.
 *
 * <p>DL4J networks: structlr's training loss on the output layer ({@code BiasedSoftmaxLoss}) is
 * replaced by {@link LossMSE} with the IDENTITY activation, so {@code net.output(features)} is g
 * itself ({@code LossMCXENT} with IDENTITY is refused by DL4J's output layer validation; the loss
 * never enters {@code output}).
 */
public final class FunctionExport {
    /** Largest |exported - structlr| allowed, relative to max(1, |g|). */
    public static final double TOLERANCE = 1e-6;
    static final int CHECK_ROWS = 64;
    static final ObjectMapper JSON = ScoreFunctions.JSON;

    private FunctionExport() {}

    /** Evaluates an exported function on features [N, D]. */
    public interface Scorer {
        INDArray apply(INDArray x) throws Exception;
    }

    /**
     * Writes {@code net} (which must compute g = f.scores) as {@code <stem>.zip}, checks it after
     * reloading it from the file, and returns the manifest fields.
     */
    public static ObjectNode network(ScoreFunction f, MultiLayerNetwork net, int in, FunctionClass.ExportTarget t) throws IOException {
        String file = t.stem() + ".zip";
        Path path = t.dir().resolve(file);
        ModelSerializer.writeModel(net, path.toFile(), false);
        MultiLayerNetwork back = ModelSerializer.restoreMultiLayerNetwork(path.toFile(), false);
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
    static MultiLayerNetwork constantNetwork(double[] b, int in) {
        return affineNetwork(new double[in][b.length], b);
    }

    /**
     * A network-backed function as a MultiLayerNetwork of DL4J's own classes: the same layers (and
     * input preprocessors) and parameters, the output layer's loss replaced by {@link LossMSE}.
     */
    static MultiLayerNetwork plainNetwork(NetworkScore ns) {
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

    /** Compares {@code exported} with {@code f.scores} on random features in [0, 1) (seeded). */
    public static void check(ScoreFunction f, String name, int width, DataType type, Scorer exported) throws IOException {
        Random rng = new Random(0x5eed ^ name.hashCode());
        double[] v = new double[CHECK_ROWS * width];
        for (int i = 0; i < v.length; i++) v[i] = rng.nextDouble();
        INDArray x = Nd4j.create(v, new long[]{CHECK_ROWS, width}, DataType.DOUBLE).castTo(type);
        INDArray want = f.scores(x).castTo(DataType.DOUBLE);
        INDArray got;
        try {
            got = exported.apply(x).castTo(DataType.DOUBLE);
        } catch (Exception e) {
            throw new IOException(name + ": the exported function cannot be evaluated: " + e.getMessage(), e);
        }
        if (!Arrays.equals(want.shape(), got.shape())) {
            throw new IllegalStateException(name + ": exported function gives shape " + Arrays.toString(got.shape())
                    + ", structlr " + Arrays.toString(want.shape()));
        }
        double worst = 0;
        for (int i = 0; i < want.length(); i++) {
            double a = want.getDouble(i), b = got.getDouble(i);
            worst = Math.max(worst, Math.abs(a - b) / Math.max(1, Math.abs(a)));
        }
        if (!(worst <= TOLERANCE)) {
            throw new IllegalStateException(name + ": exported function differs from the model's by " + worst
                    + " (tolerance " + TOLERANCE + "); nothing exported");
        }
    }

    /** Writes a boosted function as {@code <stem>.xgb.json} (exactly its rounds), checked; returns the manifest fields. */
    static ObjectNode booster(BoostScore bs, FunctionClass.ExportTarget t) throws IOException {
        String file = t.stem() + ".xgb.json";
        int rounds = exportBooster(bs, t.dir().resolve(file), t.name());
        ObjectNode o = JSON.createObjectNode();
        o.put("file", file);
        o.put("format", "xgboost-json");
        o.put("features", bs.numFeatures());
        o.put("rounds", rounds);
        o.put("treesPerRound", bs.numClasses());
        o.put("output", "margin (output_margin / PredictionType.kMargin) = sum of leaf values, base_score 0: g [N, "
                + bs.numClasses() + "]");
        return o;
    }

    /** Writes exactly the snapshot's rounds of {@code bs} as XGBoost JSON and checks them; returns the round count. */
    static int exportBooster(BoostScore bs, Path file, String name) throws IOException {
        int rounds = bs.rounds();
        byte[] bytes = bs.boosterBytes("json");
        if (bs.boosterRounds() != rounds) bytes = sliceRounds(bytes, rounds, bs.numClasses(), name);
        Booster b = null;
        try {
            b = XGBoost.loadModel(bytes);
            int held = b.getNumBoostedRound();
            if (held != rounds) {
                throw new IllegalStateException(name + ": exported booster holds " + held + " rounds, the function " + rounds);
            }
            Booster fb = b;
            int d = bs.numFeatures();
            check(bs, name, d, DataType.FLOAT, x -> margins(fb, x));
            b.saveModel(file.toString());
        } catch (XGBoostError e) {
            throw new IOException(name + ": XGBoost could not load or save the exported model: " + e.getMessage(), e);
        } finally {
            if (b != null) b.dispose();
        }
        return rounds;
    }

    /** Margins of {@code b} on a plain DMatrix (no base margin): what a user of the exported file gets. */
    public static INDArray margins(Booster b, INDArray x) throws XGBoostError {
        int n = (int) x.size(0), d = (int) x.size(1);
        float[] flat = x.castTo(DataType.FLOAT).dup('c').data().asFloat();
        DMatrix dm = new DMatrix(flat, n, d, Float.NaN);
        try {
            float[][] m = b.predict(dm, true);
            int c = m.length == 0 ? 0 : m[0].length;
            float[] out = new float[n * c];
            for (int i = 0; i < n; i++) System.arraycopy(m[i], 0, out, i * c, c);
            return Nd4j.create(out, new long[]{n, c}, 'c');
        } finally {
            dm.dispose();
        }
    }

    /**
     * Keeps the first {@code rounds} boosting rounds of an XGBoost JSON model (XGBoost4J exposes no
     * model slicing): the trees of iterations [0, rounds), their tree_info entries, the iteration
     * index and the tree count. The result is loaded and checked by the caller.
     */
    static byte[] sliceRounds(byte[] json, int rounds, int classes, String name) throws IOException {
        JsonNode root = JSON.readTree(json);
        JsonNode gb = root.path("learner").path("gradient_booster");
        if (!"gbtree".equals(gb.path("name").asText())) {
            throw new IllegalStateException(name + ": cannot slice a '" + gb.path("name").asText() + "' booster");
        }
        ObjectNode model = (ObjectNode) gb.path("model");
        ArrayNode trees = (ArrayNode) model.path("trees");
        ArrayNode info = (ArrayNode) model.path("tree_info");
        JsonNode indptr = model.path("iteration_indptr");
        int keep;
        if (indptr.isArray() && indptr.size() > rounds) {
            keep = indptr.get(rounds).asInt();
            ArrayNode cut = model.putArray("iteration_indptr");
            for (int r = 0; r <= rounds; r++) cut.add(indptr.get(r).asInt());
        } else {
            int parallel = Math.max(1, model.path("gbtree_model_param").path("num_parallel_tree").asInt(1));
            keep = rounds * classes * parallel;
        }
        if (keep > trees.size() || info.size() != trees.size()) {
            throw new IllegalStateException(name + ": unexpected XGBoost JSON layout (" + trees.size() + " trees, "
                    + info.size() + " tree_info entries, want " + keep + ")");
        }
        List<JsonNode> t = new ArrayList<>(), ti = new ArrayList<>();
        for (int i = 0; i < keep; i++) {
            t.add(trees.get(i));
            ti.add(info.get(i));
        }
        trees.removeAll();
        trees.addAll(t);
        info.removeAll();
        info.addAll(ti);
        JsonNode param = model.path("gbtree_model_param");
        if (param.isObject()) {
            JsonNode nt = param.path("num_trees");
            if (nt.isTextual()) ((ObjectNode) param).put("num_trees", Integer.toString(keep));
            else ((ObjectNode) param).put("num_trees", keep);
        }
        return new ObjectMapper().writeValueAsBytes(root);
    }
}
