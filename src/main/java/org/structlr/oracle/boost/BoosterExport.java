package org.structlr.oracle.boost;

import static org.structlr.oracle.FunctionExport.JSON;
import static org.structlr.oracle.FunctionExport.check;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import ml.dmlc.xgboost4j.java.Booster;
import ml.dmlc.xgboost4j.java.DMatrix;
import ml.dmlc.xgboost4j.java.XGBoost;
import ml.dmlc.xgboost4j.java.XGBoostError;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.structlr.oracle.FunctionClass;

/** Writing a boosted function as an XGBoost JSON model, checked by {@link org.structlr.oracle.FunctionExport#check}. */
public final class BoosterExport {
    private BoosterExport() {}

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
