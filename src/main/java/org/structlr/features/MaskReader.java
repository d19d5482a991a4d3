package org.structlr.features;

import java.awt.image.BufferedImage;
import java.awt.image.IndexColorModel;
import java.awt.image.Raster;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import org.structlr.augment.Augmentation;
import org.structlr.data.BadInputException;
import org.structlr.data.ClassTable;
import org.structlr.data.Example;

/**
 * Reads segmentation masks: the label of every pixel at the mask's own size, then brought to a
 * working size without interpolating labels.
 *
 * <p><b>Kinds.</b> {@link Kind#INDEX}: every pixel value is a mask value of the class table (an
 * 8-bit grey or palette PNG, Pascal VOC's SegmentationClass and Cityscapes' *_labelIds.png as
 * they are; a palette PNG is read as its indices, not its colours; 16-bit grey PNGs too).
 * {@link Kind#COLOR}: every pixel's RGB colour is a class colour or the void colour (lossless PNG;
 * a palette PNG by its palette's colours). {@link Kind#AUTO}: palette and grey files are INDEX,
 * RGB(A) files COLOR. A value or colour the table does not know is an error naming the file, the
 * pixel and the value (never silently void). {@link Kind#THRESHOLD}: figure/ground masks (the
 * Weizmann horses' JPEGs): the grey mask is area-averaged to the working size like the image and
 * thresholded there (value &gt;= threshold: class 1).
 *
 * <p>Masks are decoded by {@link ImageDecoder} (its limits and checks): INDEX and COLOR masks from
 * the decoded image's own samples ({@link ImageDecoder#decodeImage}: a palette PNG's indices, not
 * its colours; no EXIF orientation, which PNG masks do not have), THRESHOLD masks as grey planes
 * like the images, as the horses always were.
 */
public final class MaskReader {
    /** How mask pixels become labels (see the class comment). */
    public enum Kind { AUTO, INDEX, COLOR, THRESHOLD }

    private final Kind kind;
    private final ClassTable classes;
    private final int threshold;

    /** @param threshold the grey level of class 1 for {@link Kind#THRESHOLD} (ignored otherwise) */
    public MaskReader(Kind kind, ClassTable classes, int threshold) {
        this.kind = java.util.Objects.requireNonNull(kind);
        this.classes = java.util.Objects.requireNonNull(classes);
        this.threshold = threshold;
        if (kind == Kind.THRESHOLD && classes.numClasses() != 2) {
            throw new IllegalArgumentException("thresholded masks give 2 classes, but the class table has " + classes.numClasses());
        }
    }

    public Kind kind() { return kind; }
    public ClassTable classes() { return classes; }
    public int threshold() { return threshold; }

    /** A mask at its own size, before any transform or resize. */
    public sealed interface SourceMask permits Labels, Grey {
        int height();

        int width();

        /**
         * The labels at the working size {@code th x tw} after {@code t}'s geometry (crop, flip):
         * {@link LabelResize#majority} of the labels, or the thresholded area average of a grey mask.
         */
        int[] labelsAt(Augmentation.Transform t, int th, int tw);
    }

    /** Labels (or {@link Example#VOID}) of every pixel, row-major. */
    public record Labels(int[] labels, int height, int width, int maxLabel) implements SourceMask {
        @Override
        public int[] labelsAt(Augmentation.Transform t, int th, int tw) {
            int[] s = t.size(height, width);
            return LabelResize.majority(t.geometry(labels, height, width), s[0], s[1], th, tw, maxLabel);
        }
    }

    /** A grey mask in 8-bit units, labelled by a threshold after area averaging. */
    public record Grey(float[] grey, int height, int width, int threshold) implements SourceMask {
        @Override
        public int[] labelsAt(Augmentation.Transform t, int th, int tw) {
            int[] s = t.size(height, width);
            float[] g = ImageDecoder.resizeArea(t.geometry(grey, height, width), s[0], s[1], th, tw);
            int[] y = new int[g.length];
            for (int i = 0; i < g.length; i++) y[i] = g[i] >= threshold ? 1 : 0;
            return y;
        }
    }

    /**
     * Reads {@code file}.
     *
     * @throws BadInputException naming the file: missing, unreadable, too large, or a value or
     *         colour the class table does not know
     */
    public SourceMask read(Path file) {
        if (!Files.isRegularFile(file)) throw new BadInputException(file, "missing mask file");
        if (kind == Kind.THRESHOLD) {
            ImageDecoder.Decoded d = ImageDecoder.decode(file, 1);
            return new Grey(d.planes()[0], d.height(), d.width(), threshold);
        }
        BufferedImage img = decode(file);
        Raster r = img.getRaster();
        int w = img.getWidth(), h = img.getHeight();
        boolean palette = img.getColorModel() instanceof IndexColorModel;
        Kind k = kind != Kind.AUTO ? kind : palette || r.getNumBands() <= 2 ? Kind.INDEX : Kind.COLOR;
        int[] labels = new int[w * h];
        if (k == Kind.INDEX) {
            int[] lookup = new int[ClassTable.MAX_VALUE + 1];
            java.util.Arrays.fill(lookup, Integer.MIN_VALUE);
            for (int v = 0; v <= ClassTable.MAX_VALUE; v++) {
                Integer y = classes.labelOfValue(v);
                if (y != null) lookup[v] = y;
            }
            if (r.getNumBands() > 2 && !palette) {
                throw new BadInputException(file, "is a colour image, not an index mask (" + r.getNumBands() + " channels); "
                        + "colour masks are read by the class table's colours (--mask-kind color)");
            }
            int[] row = new int[w];
            for (int y = 0; y < h; y++) {
                r.getSamples(0, y, w, 1, 0, row);
                for (int x = 0; x < w; x++) {
                    int v = row[x], label = v >= 0 && v < lookup.length ? lookup[v] : Integer.MIN_VALUE;
                    if (label == Integer.MIN_VALUE) throw unknown(file, "value " + v, x, y, "values");
                    labels[y * w + x] = label;
                }
            }
        } else {
            if (!palette && r.getSampleModel().getSampleSize(0) != 8) {
                throw new BadInputException(file, "colour mask with " + r.getSampleModel().getSampleSize(0) + "-bit channels; colour masks must be 8-bit");
            }
            if (!palette && r.getNumBands() < 3) {
                throw new BadInputException(file, "is a grey image, not a colour mask; grey masks are index masks (--mask-kind index)");
            }
            IndexColorModel icm = palette ? (IndexColorModel) img.getColorModel() : null;
            int[] px = new int[r.getNumBands()];
            for (int y = 0; y < h; y++) {
                for (int x = 0; x < w; x++) {
                    int rgb;
                    if (icm != null) {
                        rgb = icm.getRGB(r.getSample(x, y, 0)) & 0xFFFFFF;
                    } else {
                        r.getPixel(x, y, px);
                        rgb = px[0] << 16 | px[1] << 8 | px[2];
                    }
                    Integer label = classes.labelOfColor(rgb);
                    if (label == null) throw unknown(file, "colour " + ClassTable.hex(rgb), x, y, "colours");
                    labels[y * w + x] = label;
                }
            }
        }
        return new Labels(labels, h, w, classes.numClasses() - 1);
    }

    /**
     * The distinct values of an index mask (grey or palette PNG), for finding the classes of masks
     * that come without a class table.
     */
    public static java.util.BitSet indexValues(Path file) {
        BufferedImage img = decode(file);
        Raster r = img.getRaster();
        if (r.getNumBands() > 2 && !(img.getColorModel() instanceof IndexColorModel)) {
            throw new BadInputException(file, "is a colour image, not an index mask: colour masks need a class table (--classes FILE.json)");
        }
        java.util.BitSet seen = new java.util.BitSet();
        int[] row = new int[img.getWidth()];
        for (int y = 0; y < img.getHeight(); y++) {
            r.getSamples(0, y, row.length, 1, 0, row);
            for (int v : row) seen.set(v);
        }
        return seen;
    }

    private BadInputException unknown(Path file, String what, int x, int y, String kinds) {
        String name = file.getFileName().toString().toLowerCase(Locale.ROOT);
        String hint = name.endsWith(".jpg") || name.endsWith(".jpeg") ? " (a JPEG mask? its compression changes values: class masks must be PNG)" : "";
        return new BadInputException(file, "mask " + what + " at pixel (x " + x + ", y " + y + ") is no class of the class table and not void ("
                + classes.numClasses() + " classes; void " + (kinds.equals("values") ? "values " + classes.voidValues() : "colour " + ClassTable.hex(classes.voidColor()))
                + ")" + hint);
    }

    /** The mask's image as decoded, with the image decoder's checks (size limits, format by content). */
    private static BufferedImage decode(Path file) {
        return ImageDecoder.decodeImage(file);
    }
}
