package org.structlr.model;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import ml.dmlc.xgboost4j.java.XGBoost;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.deeplearning4j.util.ModelSerializer;
import org.structlr.data.AtomicFiles;
import org.structlr.oracle.FunctionClass;
import org.structlr.oracle.FunctionClasses;
import org.structlr.oracle.FunctionExport;
import org.structlr.oracle.ScoreFunction;

/**
 * Exports a trained {@link CrfModel} for use without structlr: every factor type's function g in
 * the standard format of its ecosystem, plus a {@value #MANIFEST} that says how they combine.
 * <pre>
 *   manifest.json       format, version, labels, eps, feature widths, graph, factor types, energy, provenance
 *   unary.zip           zero / constant / linear / mlp / cnn: a DL4J ModelSerializer zip (MultiLayerNetwork)
 *   unary.xgb.json      boost: an XGBoost model (JSON), exactly the function's rounds
 *   pair-&lt;t&gt;.zip|.xgb.json   pairwise type t, likewise
 *   region-&lt;t&gt;.zip|.xgb.json region type t of a model with region factors ({@link RegionLayout}), likewise; the
 *                       manifest's "regions" says which variables each region holds and how its features and
 *                       joint labels are laid out (such an export is version 2)
 * </pre>
 * Each function is written by its {@link FunctionClass#export} (the class is found by the
 * function's kind; see {@link FunctionExport} for the built-ins' DL4J and XGBoost formats), so a
 * registered class of one's own exports too. Every exported function is checked against
 * {@link ScoreFunction#scores} on random features before the folder is moved into place; a
 * mismatch fails the export and leaves nothing behind.
 */
public final class ModelExport {
    public static final String FORMAT = "structlr-export";
    public static final int VERSION = 1;
    /** The version of an export with region factors (a reader of version 1 knows none). */
    public static final int REGIONS_VERSION = 2;
    public static final String MANIFEST = "manifest.json";
    /** Largest |exported - structlr| allowed, relative to max(1, |g|). */
    public static final double TOLERANCE = FunctionExport.TOLERANCE;
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
        RegionLayout regions = model.regionLayout();
        boolean grid = resolveGrid(model, graph);
        AtomicFiles.replaceFolder(dir, tmp -> {
            ObjectNode m = JSON.createObjectNode();
            m.put("format", FORMAT);
            m.put("version", regions == RegionLayout.NONE ? VERSION : REGIONS_VERSION);
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
            for (int t = 0; t < regions.numTypes(); t++) {
                ObjectNode o = exportFunction(model.regions().get(t), regions.typeNames().get(t), "region", "region-" + t,
                        regions.jointLabels(model.numLabels()), regions.featureWidth(model.pairFeatures()), tmp);
                o.put("regionType", t);
                types.add(o);
            }
            if (regions != RegionLayout.NONE) m.set("regions", regionsNode(regions));
            m.set("energy", energyNode(regions != RegionLayout.NONE));
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

    /** Where the region factors are and how a region function reads its features and scores its joint labels. */
    private static ObjectNode regionsNode(RegionLayout regions) {
        ObjectNode o = JSON.createObjectNode();
        o.put("layout", regions.label());
        ObjectNode types = o.putObject("types");
        if (regions == RegionLayout.PATCHES_2X2) {
            types.put("patch2x2", "every 2x2 patch of the H x W grid: variables (top-left, top-right, bottom-left, bottom-right)"
                    + " = (r*W+c, r*W+c+1, (r+1)*W+c, (r+1)*W+c+1); features: the pairwise features of its edges top, bottom, left,"
                    + " right side by side (4 x the pairwise width)");
        } else {
            types.put("row3", "every 3 pixels in a row: variables (r*W+c, r*W+c+1, r*W+c+2); features: the pairwise features of its"
                    + " two horizontal edges, left first, side by side");
            types.put("column3", "every 3 pixels in a column: variables (r*W+c, (r+1)*W+c, (r+2)*W+c); features: the pairwise features"
                    + " of its two vertical edges, top first, side by side");
        }
        o.put("jointLabel", "a region's joint label (y_1, ..., y_m) over its variables in the order above is index"
                + " sum_p y_p * L^(m-p) (row-major, the last variable fastest): g_region(phi_r) has L^m scores");
        return o;
    }

    private static ObjectNode energyNode(boolean regions) {
        ObjectNode o = JSON.createObjectNode();
        o.put("formula", "F(x, y) = sum_i eps * g_unary(phi_i)[y_i] + sum_(i,j) eps * g_type(i,j)(phi_ij)[y_i * L + y_j]"
                + (regions ? " + sum_r eps * g_type(r)(phi_r)[joint label of y_r] (the regions of \"regions\")" : ""));
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

    /** The function's manifest entry; its {@link FunctionClass} (by kind) writes and checks the file. */
    private static ObjectNode exportFunction(ScoreFunction f, String name, String role, String stem, int classes,
                                             int width, Path dir) throws IOException {
        if (f.numClasses() != classes) {
            throw new IllegalStateException(name + ": function has " + f.numClasses() + " classes, expected " + classes);
        }
        FunctionClass fc = FunctionClasses.forKind(f.kind());
        if (fc == null) throw new IllegalArgumentException(name + ": no registered function class exports kind '" + f.kind() + "'");
        ObjectNode o = JSON.createObjectNode();
        o.put("name", name);
        o.put("role", role);
        o.put("kind", f.kind());
        o.put("functionClass", fc.name());
        o.put("numClasses", classes);
        o.put("description", f.describe());
        o.setAll(fc.export(f, new FunctionClass.ExportTarget(dir, stem, name, classes, width)));
        return o;
    }

    /** The manifest of an export folder. */
    public static JsonNode readManifest(Path dir) throws IOException {
        return JSON.readTree(dir.resolve(MANIFEST).toFile());
    }
}
