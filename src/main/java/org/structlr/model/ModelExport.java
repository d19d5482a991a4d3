package org.structlr.model;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import ml.dmlc.xgboost4j.java.Booster;
import ml.dmlc.xgboost4j.java.DMatrix;
import ml.dmlc.xgboost4j.java.XGBoost;
import ml.dmlc.xgboost4j.java.XGBoostError;
import org.deeplearning4j.nn.conf.MultiLayerConfiguration;
import org.deeplearning4j.nn.graph.ComputationGraph;
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
import org.structlr.data.AtomicFiles;
import org.structlr.oracle.BoostScore;
import org.structlr.oracle.ConstantScore;
import org.structlr.oracle.FullyConvolutionalScore;
import org.structlr.oracle.NetworkScore;
import org.structlr.oracle.ScoreFunction;
import org.structlr.oracle.ZeroScore;

/**
 * Exports a trained {@link CrfModel} for use without structlr: every factor type's function g in
 * the standard format of its ecosystem, plus a {@value #MANIFEST} that says how they combine.
 * <pre>
 *   manifest.json       format, version, labels, eps, feature widths, graph, factor types, energy, provenance
 *   unary.zip           zero / constant / linear / mlp: a DL4J ModelSerializer zip (MultiLayerNetwork);
 *                       fcn: a ComputationGraph zip run on a whole image [1, D, H, W] (see exportFcn)
 *   unary.xgb.json      boost: an XGBoost model (JSON), exactly the function's rounds
 *   pair-&lt;t&gt;.zip|.xgb.json   pairwise type t, likewise
 * </pre>
 * DL4J networks use DL4J's own classes only: structlr's training loss on the output layer
 * ({@code BiasedSoftmaxLoss}) is replaced by {@link LossMSE} with the IDENTITY activation, so
 * {@code net.output(features)} is g itself ({@code LossMCXENT} with IDENTITY is refused by DL4J's
 * output layer validation; the loss never enters {@code output}). Zero and constant functions become
 * one OutputLayer with zero weights and the constants as its bias, so every non-boosted function
 * loads the same way. Every exported function is checked against {@link ScoreFunction#scores} on
 * random features before the folder is moved into place; a mismatch fails the export and leaves
 * nothing behind.
 */
public final class ModelExport {
    public static final String FORMAT = "structlr-export";
    public static final int VERSION = 1;
    public static final String MANIFEST = "manifest.json";
    /** Largest |exported - structlr| allowed, relative to max(1, |g|). */
    public static final double TOLERANCE = 1e-6;
    static final int CHECK_ROWS = 64;
    static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    /** How the factor graph of an example is built, as written into the manifest. */
    public enum Graph {
        /** Grid when the model says it was trained on images, else edges per example. */
        AUTO,
        /** A 4-connected grid; pairwise type 0 = horizontal edges, 1 = vertical. */
        GRID,
        /** Edges and their types come with each example. */
        EDGES
    }

    private ModelExport() {}

    /** {@link #export(CrfModel, Path, Graph)} with {@link Graph#AUTO}. */
    public static void export(CrfModel model, Path dir) throws IOException {
        export(model, dir, Graph.AUTO);
    }

    /**
     * Writes the export folder {@code dir} atomically ({@link AtomicFiles#replaceFolder}); an existing
     * {@code dir} is replaced only when it is an earlier export.
     */
    public static void export(CrfModel model, Path dir, Graph graph) throws IOException {
        boolean grid = resolveGrid(model, graph);
        AtomicFiles.replaceFolder(dir, tmp -> {
            ObjectNode m = JSON.createObjectNode();
            m.put("format", FORMAT);
            m.put("version", VERSION);
            m.put("numLabels", model.numLabels());
            m.put("eps", model.eps());
            ObjectNode feats = m.putObject("features");
            feats.set("unary", featureNode(model.unaryFeatures(), "unary"));
            feats.set("pairwise", featureNode(model.pairFeatures(), "pairwise"));
            m.set("graph", graphNode(model, grid));
            ArrayNode types = m.putArray("factorTypes");
            types.add(exportFunction(model.unary(), "unary", "unary", "unary", model.numLabels(),
                    model.unaryFeatures(), tmp));
            for (int t = 0; t < model.pairTypes().size(); t++) {
                ObjectNode o = exportFunction(model.pair().get(t), model.pairTypes().get(t), "pairwise", "pair-" + t,
                        model.numLabels() * model.numLabels(), model.pairFeatures(), tmp);
                o.put("edgeType", t);
                types.add(o);
            }
            m.set("energy", energyNode());
            m.set("settings", JSON.valueToTree(model.settings()));
            m.set("provenance", JSON.valueToTree(model.provenance()));
            JSON.writeValue(tmp.resolve(MANIFEST).toFile(), m);
        }, ModelExport::isExport);
    }

    /** Whether {@code dir} holds an export written by this class (the only kind it replaces). */
    static boolean isExport(Path dir) {
        Path m = dir.resolve(MANIFEST);
        if (!Files.isRegularFile(m)) return false;
        try {
            return FORMAT.equals(JSON.readTree(m.toFile()).path("format").asText());
        } catch (IOException e) {
            return false;
        }
    }

    static boolean resolveGrid(CrfModel model, Graph graph) {
        switch (graph) {
            case GRID:
                if (model.pairTypes().size() > 2) {
                    throw new IllegalArgumentException("a grid has at most 2 pairwise types (horizontal, vertical); the model has "
                            + model.pairTypes().size());
                }
                return true;
            case EDGES:
                return false;
            default:
                Object g = model.provenance().get("grid");
                if (g instanceof Boolean b) return b && model.pairTypes().size() <= 2;
                if (g != null) return "true".equalsIgnoreCase(g.toString()) && model.pairTypes().size() <= 2;
                return model.pairTypes().equals(List.of("horizontal", "vertical"));
        }
    }

    private static ObjectNode featureNode(int width, String which) {
        ObjectNode o = JSON.createObjectNode();
        o.put("width", width);
        ArrayNode names = o.putArray("order");
        for (int j = 0; j < width; j++) names.add(j);
        o.put("note", "input column j of a " + which + " function is column j of the training data's '" + which
                + "' feature array (feature names were not recorded; columns are given by index)");
        return o;
    }

    private static ObjectNode graphNode(CrfModel model, boolean grid) {
        ObjectNode o = JSON.createObjectNode();
        if (grid) {
            o.put("kind", "grid4");
            o.put("description", "4-connected grid over an H x W image, variables row-major (i = r * W + c); "
                    + "edges (i, j) with j the right neighbour (edge_type 0, horizontal) or the neighbour below "
                    + "(edge_type 1, vertical); structlr orders all horizontal edges row-major, then all vertical edges row-major"
                    + (model.pairTypes().size() == 1 ? "; one pairwise type for both directions" : ""));
            ObjectNode et = o.putObject("edgeTypes");
            if (model.pairTypes().size() == 1) {
                et.put("0", "horizontal and vertical");
            } else {
                et.put("0", "horizontal");
                et.put("1", "vertical");
            }
        } else {
            o.put("kind", "edges");
            o.put("description", "edges given per example: a list of (i, j) pairs and, with more than one pairwise type, "
                    + "an edge_type per edge selecting the pairwise function (factorTypes[1 + edge_type])");
        }
        return o;
    }

    private static ObjectNode energyNode() {
        ObjectNode o = JSON.createObjectNode();
        o.put("formula", "F(x, y) = sum_i eps * g_unary(phi_i)[y_i] + sum_(i,j) eps * g_type(i,j)(phi_ij)[y_i * L + y_j]");
        o.put("unary", "g_unary(phi_i) is a vector of L scores for variable i's features phi_i");
        o.put("pairwise", "g_type(phi_ij) is a vector of L*L scores for edge (i, j), joint label (y_i, y_j) at index y_i * L + y_j");
        o.put("prediction", "y = argmax of the beliefs of the entropy-smoothed LP relaxation (structlr predict, "
                + "smoothing eps), or the labelling that maximises F found by any MAP solver");
        o.put("dl4j", "MultiLayerNetwork net = ModelSerializer.restoreMultiLayerNetwork(file, false); "
                + "INDArray g = net.output(features [N, width]) gives g [N, classes]");
        o.put("xgboost", "Booster b = XGBoost.loadModel(file); predict with output margin (predict(dmatrix, true) / "
                + "PredictionType.kMargin): the margin is the sum of the trees' leaf values, base_score 0; "
                + "tree t belongs to class t % classes");
        return o;
    }

    private static ObjectNode exportFunction(ScoreFunction f, String name, String role, String stem, int classes,
                                             int width, Path dir) throws IOException {
        if (f.numClasses() != classes) {
            throw new IllegalStateException(name + ": function has " + f.numClasses() + " classes, expected " + classes);
        }
        ObjectNode o = JSON.createObjectNode();
        o.put("name", name);
        o.put("role", role);
        o.put("kind", f.kind());
        o.put("numClasses", classes);
        o.put("description", f.describe());
        if (f instanceof FullyConvolutionalScore fcn) {
            exportFcn(fcn, name, stem, dir, o);
        } else if (f instanceof BoostScore bs) {
            String file = stem + ".xgb.json";
            int rounds = exportBooster(bs, dir.resolve(file), name);
            o.put("file", file);
            o.put("format", "xgboost-json");
            o.put("features", bs.numFeatures());
            o.put("rounds", rounds);
            o.put("treesPerRound", classes);
            o.put("output", "margin (output_margin / PredictionType.kMargin) = sum of leaf values, base_score 0: g [N, "
                    + classes + "]");
        } else {
            int in = f.numFeatures() >= 0 ? f.numFeatures() : Math.max(1, width);
            MultiLayerNetwork net = plainNetwork(f, in);
            check(f, name, in, net.params().dataType(), x -> net.output(x, false));
            String file = stem + ".zip";
            ModelSerializer.writeModel(net, dir.resolve(file).toFile(), false);
            o.put("file", file);
            o.put("format", "dl4j-multilayernetwork");
            o.put("features", in);
            if (f.numFeatures() < 0) o.put("featuresIgnored", true);
            o.put("dataType", net.params().dataType().toString());
            o.put("output", "net.output(features [N, " + in + "]) = g [N, " + classes + "]");
        }
        return o;
    }

    /**
     * The function as a MultiLayerNetwork of DL4J's own classes. Linear, MLP and CNN: the same layers (and input preprocessors) and
     * parameters, the output layer's loss replaced by {@link LossMSE}; zero and constant: one
     * IDENTITY OutputLayer, W = 0 [in, C], bias = the constants.
     */
    static MultiLayerNetwork plainNetwork(ScoreFunction f, int in) {
        if (f instanceof ZeroScore || f instanceof ConstantScore) {
            double[] b = f instanceof ConstantScore cs ? cs.weights() : new double[f.numClasses()];
            MultiLayerConfiguration conf = new NeuralNetConfiguration.Builder()
                    .dataType(DataType.DOUBLE)
                    .updater(new NoOp())
                    .list()
                    .layer(new OutputLayer.Builder(new LossMSE()).nIn(in).nOut(b.length).activation(Activation.IDENTITY).build())
                    .build();
            MultiLayerNetwork net = new MultiLayerNetwork(conf);
            net.init();
            net.getLayer(0).setParam("W", Nd4j.zeros(DataType.DOUBLE, in, b.length));
            net.getLayer(0).setParam("b", Nd4j.create(b, new long[]{1, b.length}, DataType.DOUBLE));
            return net;
        }
        if (!(f instanceof NetworkScore ns)) {
            throw new IllegalArgumentException("cannot export a '" + f.kind() + "' function as a DL4J network");
        }
        MultiLayerNetwork src = ns.networkCopy();
        MultiLayerConfiguration conf = src.getLayerWiseConfigurations().clone();
        Layer out = conf.getConf(conf.getConfs().size() - 1).getLayer();
        if (!(out instanceof BaseOutputLayer ol)) {
            throw new IllegalArgumentException(f.kind() + " network: last layer is a " + out.getClass().getSimpleName()
                    + ", expected an output layer");
        }
        ol.setLossFn(new LossMSE());
        String json = conf.toJson();
        if (json.contains("org.structlr")) {
            throw new IllegalStateException(f.kind() + " network: configuration still names structlr classes after the rebuild");
        }
        MultiLayerNetwork net = new MultiLayerNetwork(conf);
        net.init(src.params().dup(), false);
        return net;
    }

    /**
     * fcn: a ComputationGraph zip (DL4J's classes only) run on a whole image, and the manifest lines
     * that say how its output channels map to pixels and edges; checked on a random image of an odd
     * size against {@link FullyConvolutionalScore#outputImage}.
     */
    private static void exportFcn(FullyConvolutionalScore f, String name, String stem, Path dir, ObjectNode o) throws IOException {
        ComputationGraph net = f.plainNetwork();
        int d = f.numFeatures(), c = f.numClasses(), k = f.groups(), h = 5, w = 7;
        Random rng = new Random(0x5eed ^ name.hashCode());
        double[] v = new double[d * h * w];
        for (int i = 0; i < v.length; i++) v[i] = rng.nextDouble();
        INDArray x = Nd4j.create(v, new long[]{1, d, h, w}, DataType.DOUBLE).castTo(net.params().dataType());
        INDArray want = f.outputImage(x).castTo(DataType.DOUBLE), got = net.output(x)[0].castTo(DataType.DOUBLE);
        double worst = want.sub(got).amaxNumber().doubleValue() / Math.max(1, want.amaxNumber().doubleValue());
        if (!java.util.Arrays.equals(want.shape(), got.shape()) || !(worst <= TOLERANCE)) {
            throw new IllegalStateException(name + ": exported fcn differs from structlr's by " + worst + " (shapes "
                    + java.util.Arrays.toString(got.shape()) + ", " + java.util.Arrays.toString(want.shape()) + ")");
        }
        String file = stem + ".zip";
        ModelSerializer.writeModel(net, dir.resolve(file).toFile(), false);
        o.put("file", file);
        o.put("format", "dl4j-computationgraph");
        o.put("wholeImage", true);
        o.put("features", d);
        o.put("featuresFrom", "unary");
        o.put("groups", k);
        o.put("dataType", net.params().dataType().toString());
        o.put("input", "one whole image of any size: INDArray [1, " + d + ", H, W], channel j at (r, c) = column j of the "
                + "unary feature row of pixel (r, c) (row r * W + c)" + (k == 2 ? "; the pairwise fcn reads the unary (pixel) "
                + "features, not the edge features" : ""));
        o.put("output", "net.output(image)[0] = [1, " + (k * c) + ", H, W]");
        o.put("mapping", k == 1
                ? "g_unary(pixel (r, c))[y] = output[0, y, r, c]"
                : "g(edge (r, c)-(r, c+1))[y_i * L + y_j] = output[0, y_i * L + y_j, r, c] (horizontal edges); "
                + "g(edge (r, c)-(r+1, c))[y_i * L + y_j] = output[0, " + c + " + y_i * L + y_j, r, c] (vertical edges); "
                + "i is the left or upper pixel; channels 0.." + (c - 1) + " of the last column and " + c + ".." + (2 * c - 1)
                + " of the last row belong to no edge");
    }

    interface Scorer {
        INDArray apply(INDArray x) throws Exception;
    }

    /** Compares {@code exported} with {@code f.scores} on random features in [0, 1) (seeded). */
    static void check(ScoreFunction f, String name, int width, DataType type, Scorer exported) throws IOException {
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
        if (!java.util.Arrays.equals(want.shape(), got.shape())) {
            throw new IllegalStateException(name + ": exported function gives shape " + java.util.Arrays.toString(got.shape())
                    + ", structlr " + java.util.Arrays.toString(want.shape()));
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
    static INDArray margins(Booster b, INDArray x) throws XGBoostError {
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

    /** The manifest of an export folder. */
    public static JsonNode readManifest(Path dir) throws IOException {
        return JSON.readTree(dir.resolve(MANIFEST).toFile());
    }
}
