package org.structlr.api;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.structlr.data.ClassTable;
import org.structlr.features.ImageFeatures;
import org.structlr.features.ImageReader;
import org.structlr.features.ImageSplits;
import org.structlr.features.LabelledImageReader;
import org.structlr.features.MaskReader;
import org.structlr.features.PatchFeatures;
import org.structlr.features.UnaryFeatures;
import org.structlr.features.WorkingSize;

/**
 * Images as examples: a photo (PNG or JPEG) and its segmentation mask become a {@link CrfExample}
 * with one variable per pixel of the working size, the unary features chosen here, the 3 edge
 * features of the 4-connected grid and two pairwise types (horizontal, vertical edges). The same
 * reading, resizing and features as {@code structlr images-data} (options of the same names) and
 * {@code structlr predict} on a photo.
 * <pre>{@code
 *   Path dir = java.nio.file.Files.createTempDirectory("structlr-images-");
 *   var photo = new java.awt.image.BufferedImage(40, 30, java.awt.image.BufferedImage.TYPE_INT_RGB);
 *   var mask = new java.awt.image.BufferedImage(40, 30, java.awt.image.BufferedImage.TYPE_BYTE_GRAY);
 *   for (int y = 0; y < 30; y++) for (int x = 0; x < 40; x++) {
 *       boolean figure = x > 12 && x < 30 && y > 8;
 *       photo.setRGB(x, y, figure ? 0xC08040 : 0x3060A0);
 *       mask.getRaster().setSample(x, y, 0, figure ? 255 : 0);
 *   }
 *   javax.imageio.ImageIO.write(photo, "png", dir.resolve("horse.png").toFile());
 *   javax.imageio.ImageIO.write(mask, "png", dir.resolve("horse-mask.png").toFile());
 *
 *   CrfImages images = CrfImages.builder().maskThreshold(128).longest(20).build();   // figure/ground: 2 labels
 *   CrfExample ex = images.example(dir.resolve("horse.png"), dir.resolve("horse-mask.png"));
 *   System.out.println(java.util.Arrays.toString(ex.shape()) + ", " + ex.numVariables() + " pixels");   // [15, 20], 300 pixels
 *   CrfExample toPredict = images.example(dir.resolve("horse.png"));                // no labels
 * }</pre>
 * A folder of photos and a folder of masks paired by name: {@link #examples(Path, Path)}.
 */
public final class CrfImages {
    private final UnaryFeatures features;
    private final WorkingSize size;
    private final MaskReader masks;   // null: no labels known (example(image) only)

    private CrfImages(Builder b) {
        this.features = UnaryFeatures.of(b.features, b.cell, b.patch);
        this.size = b.size;
        if (b.threshold != null && b.numLabels != null) throw new IllegalArgumentException("maskThreshold gives 2 labels: do not give labels too");
        if (b.threshold != null && (b.threshold < 1 || b.threshold > 255)) throw new IllegalArgumentException("maskThreshold must be 1..255, got " + b.threshold);
        if (b.voidValue < 0 || b.voidValue > ClassTable.MAX_VALUE) throw new IllegalArgumentException("void value must be 0.." + ClassTable.MAX_VALUE + ", got " + b.voidValue);
        if (b.threshold != null) {
            this.masks = new MaskReader(MaskReader.Kind.THRESHOLD, ClassTable.numbered(2, b.voidValue), b.threshold);
        } else if (b.numLabels != null) {
            this.masks = new MaskReader(MaskReader.Kind.AUTO, ClassTable.numbered(b.numLabels, b.voidValue), 0);
        } else {
            this.masks = null;
        }
    }

    public static Builder builder() {
        return new Builder();
    }

    /** The labelled example of {@code image} with its {@code mask} (void pixels get label -1, which learning and errors leave out). */
    public CrfExample example(Path image, Path mask) {
        if (masks == null) throw new IllegalStateException("reading masks needs the labels: CrfImages.builder().labels(L) or .maskThreshold(T)");
        return new CrfExample(ImageFeatures.example(new LabelledImageReader(masks, size).read(ImageReader.stem(image), image, mask), features,
                masks.classes().numClasses()));
    }

    /** The unlabelled example of {@code image}, to predict. */
    public CrfExample example(Path image) {
        return new CrfExample(new ImageReader().read(image, size).example(features, true));
    }

    /**
     * Every image under {@code images} (sub-folders too) that has a mask of the same name (path
     * without extension) under {@code masks}, in name order; images without a mask are left out,
     * a mask without an image is an error.
     */
    public List<CrfExample> examples(Path images, Path masksDir) {
        List<CrfExample> out = new ArrayList<>();
        for (ImageSplits.Pair p : ImageSplits.pair(images, masksDir, "", "", new ArrayList<>())) out.add(example(p.image(), p.mask()));
        return out;
    }

    /** Unary features per pixel (the width of {@link CrfExample}'s unary rows). */
    public int featureWidth() { return features.dim(); }

    @Override
    public String toString() { return features + ", " + size.description(); }

    /** Settings, each with {@code structlr images-data}'s default: handmade features, longest side 96 pixels, void 255. */
    public static final class Builder {
        private String features = "handmade";
        private int cell = ImageFeatures.DEFAULT_CELL, patch = PatchFeatures.DEFAULT_K, voidValue = ClassTable.DEFAULT_VOID;
        private WorkingSize size = new WorkingSize.Longest(96);
        private Integer threshold, numLabels;

        private Builder() {}

        /** {@code handmade} (42 per pixel: 1, RGB, position, HOG), {@code patch} (a k x k RGB patch) or {@code rgb} (the pixel: for fcn). */
        public Builder features(String name) { this.features = Objects.requireNonNull(name); return this; }
        /** HOG cell side of handmade features (default 4). */
        public Builder cell(int px) { this.cell = px; return this; }
        /** Side of patch features, odd (default 9). */
        public Builder patch(int k) { this.patch = k; return this; }
        /** Each image keeps its aspect ratio with its longest side {@code side} pixels (the default, 96). */
        public Builder longest(int side) {
            if (side < 2) throw new IllegalArgumentException("longest side must be at least 2, got " + side);
            this.size = new WorkingSize.Longest(side);
            return this;
        }
        /** Every image at {@code height x width} (aspect ratio not kept). */
        public Builder size(int height, int width) {
            if (height < 1 || width < 1) throw new IllegalArgumentException("size must be at least 1x1, got " + height + "x" + width);
            this.size = new WorkingSize.Fixed(height, width);
            return this;
        }
        /** Every image at its own size. */
        public Builder ownSize() { this.size = new WorkingSize.Own(); return this; }
        /** Figure/ground masks (grey, JPEG allowed): area-averaged like the image, a value of at least {@code t} is label 1. */
        public Builder maskThreshold(int t) { this.threshold = t; return this; }
        /** Class-index masks (8-bit grey or palette PNGs, as VOC's) with labels 0..{@code numLabels}-1. */
        public Builder labels(int numLabels) {
            if (numLabels < 2) throw new IllegalArgumentException("labels must be at least 2, got " + numLabels);
            this.numLabels = numLabels;
            return this;
        }
        /** The mask value of void pixels (default 255). */
        public Builder voidValue(int v) { this.voidValue = v; return this; }

        /** Checks the settings; IllegalArgumentException or the library's bad-input error names the bad one. */
        public CrfImages build() { return new CrfImages(this); }
    }
}
