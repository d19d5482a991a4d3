package org.structlr.features;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The size an image is area-averaged to before its features are computed: one fixed
 * {@code height x width} for every image (the aspect ratio is not kept), or the image's own aspect
 * ratio with its longest side {@code N}. Shared by {@link HorseLoader} (training data) and
 * {@link ImageReader} (prediction), and recorded in the data set's info and the model's image
 * recipe ({@link #recipe()}) so that {@code predict} reproduces it.
 */
public sealed interface WorkingSize permits WorkingSize.Fixed, WorkingSize.Longest, WorkingSize.Own {

    /** The working {@code [height, width]} of an image of {@code sourceHeight x sourceWidth}. */
    int[] shapeOf(int sourceHeight, int sourceWidth);

    /** The entries describing this size in the info file and the model's image recipe. */
    Map<String, Object> recipe();

    /** One line for the info file. */
    String description();

    /** Every image to {@code height x width}. */
    record Fixed(int height, int width) implements WorkingSize {
        public Fixed {
            if (height < 2 || width < 2) throw new IllegalArgumentException("working size must be at least 2x2, got " + height + "x" + width);
        }

        @Override public int[] shapeOf(int sourceHeight, int sourceWidth) { return new int[] {height, width}; }

        @Override
        public Map<String, Object> recipe() {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("height", height);
            m.put("width", width);
            return m;
        }

        @Override public String description() { return "area averaging of the whole image to height x width (aspect ratio not kept)"; }
    }

    /**
     * The image's own aspect ratio, longest side {@code side}: an {@code h x w} image with
     * {@code w >= h} becomes {@code round(side * h / w) x side} (the short side at least 2),
     * and the other way round for portrait images.
     */
    record Longest(int side) implements WorkingSize {
        public Longest {
            if (side < 2) throw new IllegalArgumentException("the longest side must be at least 2 pixels, got " + side);
        }

        @Override
        public int[] shapeOf(int sourceHeight, int sourceWidth) {
            if (sourceHeight < 1 || sourceWidth < 1) throw new IllegalArgumentException("image of " + sourceHeight + "x" + sourceWidth + " has no pixels");
            int lo = Math.min(sourceHeight, sourceWidth), hi = Math.max(sourceHeight, sourceWidth);
            int shortSide = (int) Math.max(2, Math.min(side, Math.round((double) side * lo / hi)));
            return sourceWidth >= sourceHeight ? new int[] {shortSide, side} : new int[] {side, shortSide};
        }

        @Override
        public Map<String, Object> recipe() {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("longest", side);
            return m;
        }

        @Override public String description() { return "area averaging to the image's own aspect ratio, longest side " + side + " pixels"; }
    }

    /**
     * Every image at its own size: no resizing (features and labels at the pixels of the file). The
     * image must have at most {@link #MAX_PIXELS} pixels.
     */
    record Own() implements WorkingSize {
        /** The largest image kept at its own size (a guard against a huge file becoming a huge example). */
        public static final long MAX_PIXELS = 1L << 24;

        @Override
        public int[] shapeOf(int sourceHeight, int sourceWidth) {
            if (sourceHeight < 1 || sourceWidth < 1) throw new IllegalArgumentException("image of " + sourceHeight + "x" + sourceWidth + " has no pixels");
            if ((long) sourceHeight * sourceWidth > MAX_PIXELS) {
                throw new IllegalArgumentException("an image of " + sourceHeight + "x" + sourceWidth + " is larger than " + MAX_PIXELS
                        + " pixels; give a working size (--longest N)");
            }
            return new int[] {sourceHeight, sourceWidth};
        }

        @Override
        public Map<String, Object> recipe() {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("own_size", true);
            return m;
        }

        @Override public String description() { return "every image at its own size (no resizing)"; }
    }

    /** The size a recipe map describes ({@code own_size}, {@code longest}, else {@code height} and {@code width}), or null when it has none. */
    public static WorkingSize fromRecipe(Map<?, ?> recipe) {
        if (Boolean.TRUE.equals(recipe.get("own_size"))) return new Own();
        if (recipe.get("longest") instanceof Number n) return new Longest(n.intValue());
        if (recipe.get("height") instanceof Number h && recipe.get("width") instanceof Number w) return new Fixed(h.intValue(), w.intValue());
        return null;
    }
}
