package org.structlr.features;

import java.util.Map;
import org.structlr.data.BadInputException;

/**
 * How a model reads a photo: its unary features and working size, as recorded at training in the
 * model's provenance ("images": unary_features, height/width or longest, cell, patch), with
 * horses-data's defaults for what a recipe does not say. These are {@code predict}'s defaults for
 * an image (its options only override them), so {@code serve}'s /v1/segment featurises a photo
 * exactly as {@code predict --input photo.jpg} does.
 *
 * @param unary     the unary features (handmade HOG/colour, or patches)
 * @param size      the working size images are area-averaged to
 * @param fromModel whether the model carried a recipe (else horses-data's defaults)
 */
public record ImageRecipe(UnaryFeatures unary, WorkingSize size, boolean fromModel) {

    /**
     * The recipe in {@code provenance}; {@code wholeImageUnary}: the unary function scores whole
     * images of any shape (fcn), which then keep their aspect ratio at the recipe's longer side.
     */
    public static ImageRecipe ofModel(Map<String, Object> provenance, boolean wholeImageUnary) {
        Object r = provenance.get("images");
        Map<?, ?> rec = r instanceof Map<?, ?> map ? map : Map.of();
        String features = rec.get("unary_features") instanceof String f ? f : "handmade";
        WorkingSize size;
        if (rec.get("longest") != null) {
            size = new WorkingSize.Longest(number(rec, "longest", 0));
        } else if (rec.containsKey("height") && rec.containsKey("width")) {
            int h = number(rec, "height", 0), w = number(rec, "width", 0);
            size = wholeImageUnary ? new WorkingSize.Longest(Math.max(h, w)) : new WorkingSize.Fixed(h, w);
        } else {
            size = new WorkingSize.Fixed(HorseLoader.DEFAULT_HEIGHT, HorseLoader.DEFAULT_WIDTH);
        }
        UnaryFeatures unary = switch (features) {
            case "handmade" -> new ImageFeatures(number(rec, "cell", ImageFeatures.DEFAULT_CELL));
            case "patch" -> new PatchFeatures(number(rec, "patch", PatchFeatures.DEFAULT_K));
            default -> throw new BadInputException("model.json: image recipe 'unary_features' is '" + features + "', not handmade or patch");
        };
        return new ImageRecipe(unary, size, !rec.isEmpty());
    }

    /**
     * Refuses a model that cannot read what these features give: its unary width, 3 edge
     * features, at most 2 edge types (horizontal, vertical).
     */
    public void check(int modelUnaryWidth, int modelPairWidth, int modelPairTypes) {
        if (modelUnaryWidth != unary.dim()) {
            throw new BadInputException("the model expects " + modelUnaryWidth + " unary features per pixel but its image recipe ("
                    + unary + ") gives " + unary.dim() + ": it was not trained on photos");
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
