package org.structlr.features;

import java.util.Map;
import org.structlr.data.BadInputException;

/**
 * How a model reads a photo: its unary features and working size, resolved from the options a
 * user gave (any may be null) and the recipe recorded at training in the model's provenance
 * ("images": unary_features, height/width, longest or own_size, cell, patch), with horses-data's
 * defaults for the rest. {@code predict} resolves its image options through this, and
 * {@code serve}'s /v1/segment uses the model's own recipe ({@link #ofModel}), so both featurise a
 * photo the same way.
 *
 * @param features  the features' name: handmade, patch or rgb
 * @param cell      HOG cell side (handmade)
 * @param patch     patch side (patch)
 * @param unary     the unary features
 * @param size      the working size images are area-averaged to
 * @param fromModel whether the model carried a recipe (else only options and defaults)
 */
public record ImageRecipe(String features, int cell, int patch, UnaryFeatures unary, WorkingSize size, boolean fromModel) {

    /** The image options of {@code predict} (null: not given); {@code size} is {height, width}. */
    public record Options(String features, int[] size, Integer longest, boolean ownSize, Integer cell, Integer patch) {
        public static final Options NONE = new Options(null, null, null, false, null, null);
    }

    /** The model's own recipe (no options). */
    public static ImageRecipe ofModel(Map<String, Object> provenance, boolean wholeImageUnary) {
        return resolve(provenance, wholeImageUnary, Options.NONE);
    }

    /**
     * Options first, then the recipe in {@code provenance}, then horses-data's defaults.
     * {@code wholeImageUnary}: the unary function scores whole images of any shape (fcn), which
     * then keep their aspect ratio at the recipe's longer side instead of being squashed to it.
     */
    public static ImageRecipe resolve(Map<String, Object> provenance, boolean wholeImageUnary, Options o) {
        Object r = provenance.get("images");
        Map<?, ?> rec = r instanceof Map<?, ?> map ? map : Map.of();
        String features = o.features() != null ? o.features() : rec.get("unary_features") instanceof String f ? f : "handmade";
        if (o.size() != null && o.longest() != null) {
            throw new BadInputException("option '--longest' cannot be used with '--size': one fixed working size, or the image's own aspect ratio");
        }
        if (o.ownSize() && (o.size() != null || o.longest() != null)) {
            throw new BadInputException("option '--own-size' cannot be used with '--size' or '--longest': one working size");
        }
        int cell = o.cell() != null ? o.cell() : number(rec, "cell", ImageFeatures.DEFAULT_CELL);
        int patch = o.patch() != null ? o.patch() : number(rec, "patch", PatchFeatures.DEFAULT_K);
        boolean chosen = o.size() != null || o.longest() != null;
        WorkingSize size;
        if (o.ownSize() || (!chosen && Boolean.TRUE.equals(rec.get("own_size")))) {
            size = new WorkingSize.Own();
        } else {
            Integer longest = o.longest();
            if (!chosen && rec.get("longest") != null) longest = number(rec, "longest", 0);
            if (!chosen && longest == null && wholeImageUnary && rec.containsKey("height") && rec.containsKey("width")) {
                longest = Math.max(number(rec, "height", 0), number(rec, "width", 0));
            }
            if (longest != null) {
                if (longest < 2) throw new BadInputException("option '--longest' must be at least 2, got " + longest);
                size = new WorkingSize.Longest(longest);
            } else if (o.size() != null) {
                size = new WorkingSize.Fixed(o.size()[0], o.size()[1]);
            } else if (rec.containsKey("height") && rec.containsKey("width")) {
                size = new WorkingSize.Fixed(number(rec, "height", 0), number(rec, "width", 0));
            } else {
                size = new WorkingSize.Fixed(HorseLoader.DEFAULT_HEIGHT, HorseLoader.DEFAULT_WIDTH);
            }
        }
        return new ImageRecipe(features, cell, patch, UnaryFeatures.of(features, cell, patch), size, !rec.isEmpty());
    }

    /**
     * Refuses a model that cannot read what these features give: its unary width (with a hint at
     * the features it looks trained on), 3 edge features, at most 2 edge types (horizontal,
     * vertical). {@code given} says where the features came from, e.g. "--features handmade".
     */
    public void check(int modelUnaryWidth, int modelPairWidth, int modelPairTypes, String given) {
        if (modelUnaryWidth != unary.dim()) {
            String hint = "";
            if (modelUnaryWidth == ImageFeatures.DIM) {
                hint = "; it was trained on handmade features: try --features handmade";
            } else if (modelUnaryWidth % 3 == 0) {
                int k = (int) Math.round(Math.sqrt(modelUnaryWidth / 3.0));
                if (3 * k * k == modelUnaryWidth && k % 2 == 1) hint = "; it looks trained on " + k + "x" + k + " patches: try --features patch --patch " + k;
            }
            throw new BadInputException("the model expects " + modelUnaryWidth + " unary features per pixel but " + given + " gives " + unary.dim() + hint);
        }
        if (modelPairWidth != ImageFeatures.PAIR_DIM) {
            throw new BadInputException("the model expects " + modelPairWidth + " pairwise features but images give "
                    + ImageFeatures.PAIR_DIM + " (it was not trained on image data)");
        }
        if (modelPairTypes > 2) {
            throw new BadInputException("the model has " + modelPairTypes + " pairwise types; image grids have 1 or 2 (horizontal, vertical)");
        }
    }

    private static int number(Map<?, ?> rec, String key, int fallback) {
        Object v = rec.get(key);
        if (v == null) return fallback;
        if (!(v instanceof Number n)) throw new BadInputException("model.json: image recipe '" + key + "' is not a number: " + v);
        return n.intValue();
    }
}
