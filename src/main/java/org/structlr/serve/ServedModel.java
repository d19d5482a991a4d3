package org.structlr.serve;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.structlr.data.BadInputException;
import org.structlr.data.Example;
import org.structlr.features.ImageFeatures;
import org.structlr.features.ImageRecipe;
import org.structlr.model.CrfModel;
import org.structlr.model.Predictor;
import org.structlr.oracle.ImageScoreFunction;

/**
 * One loaded model as the server holds it: the model, the folder it came from, its generation
 * (1 for the first, +1 per reload), its image recipe (or why it reads no photos) and its card.
 * Immutable; a reload builds a new one and the server swaps the reference, so every request is
 * answered wholly by the model that was current when it arrived.
 */
public final class ServedModel {
    private final CrfModel model;
    private final Path folder;
    private final int generation;
    private final ImageRecipe recipe;
    private final String noImages;
    private final long loadedAtMillis;

    private ServedModel(CrfModel model, Path folder, int generation) {
        this.model = model;
        this.folder = folder;
        this.generation = generation;
        ImageRecipe r;
        String why = null;
        try {
            r = ImageRecipe.ofModel(model.provenance(), model.unary() instanceof ImageScoreFunction);
            r.check(model.unaryFeatures(), model.pairFeatures(), model.pairTypes().size(), "its image recipe (" + r.unary() + ")");
        } catch (BadInputException e) {
            r = null;
            why = e.getMessage();
        }
        this.recipe = r;
        this.noImages = why;
        this.loadedAtMillis = System.currentTimeMillis();
    }

    /**
     * Loads {@code folder} ({@link CrfModel#load}: every check and checksum) and warms it up: one
     * prediction of a tiny example, so the native libraries and the engine's code are loaded
     * before the first request (the server reports ready only after this).
     */
    static ServedModel load(Path folder, int generation) {
        ServedModel m = new ServedModel(CrfModel.load(folder), folder, generation);
        m.warmUp();
        return m;
    }

    private void warmUp() {
        int du = Math.max(1, model.unaryFeatures()), dp = Math.max(1, model.pairFeatures());
        // a 16 x 16 image of zero features, laid out as the image reader lays photos out
        int s = 16;
        int[] edges = ImageFeatures.gridEdges(s, s);
        Example.Builder b = Example.builder(new float[s * s * du], du, edges, new float[edges.length / 2 * dp], dp).shape(s, s);
        if (model.pairTypes().size() == 2) b.edgeType(ImageFeatures.gridEdgeTypes(s, s));
        Predictor.predictEach(model, List.of(b.build()), 10, 0);
    }

    public CrfModel model() { return model; }
    public Path folder() { return folder; }
    public int generation() { return generation; }
    /** The image recipe, or null when the model reads no photos ({@link #whyNoImages()}). */
    public ImageRecipe recipe() { return recipe; }
    public String whyNoImages() { return noImages; }

    /** GET /v1/model: what a client needs to form requests and read answers. */
    Map<String, Object> card() {
        Map<String, Object> c = new LinkedHashMap<>();
        c.put("folder", folder.toString());
        c.put("generation", generation);
        c.put("loaded_at_ms", loadedAtMillis);
        c.put("num_labels", model.numLabels());
        c.put("eps", model.eps());
        List<Map<String, Object>> classes = new ArrayList<>();
        for (int k = 0; k < model.numLabels(); k++) {
            classes.add(Map.of("index", k, "name", model.classes().name(k), "color", String.format("#%06x", model.classes().color(k) & 0xffffff)));
        }
        c.put("classes", classes);
        c.put("unary", Map.of("kind", model.unary() == null ? "zero" : model.unary().kind(), "features", model.unaryFeatures()));
        List<Map<String, Object>> pair = new ArrayList<>();
        for (int t = 0; t < model.pairTypes().size(); t++) {
            var f = model.pair().get(t);
            pair.add(Map.of("name", model.pairTypes().get(t), "kind", f == null ? "zero" : f.kind(), "features", model.pairFeatures()));
        }
        c.put("pairwise", pair);
        Map<String, Object> images = new LinkedHashMap<>();
        if (recipe != null) {
            images.put("unary_features", recipe.unary().toString());
            images.putAll(recipe.size().recipe());
            images.put("edge_types", model.pairTypes().size() == 2);
        } else {
            images.put("unavailable", noImages);
        }
        c.put("images", images);
        c.put("settings", model.settings());
        c.put("provenance", model.provenance());
        return c;
    }
}
