package org.structlr.features;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import org.structlr.data.BadInputException;

/**
 * Reads an unlabelled image of any size for prediction (CLI {@code predict}): decoded and
 * area-resized to the working size by {@link ImageDecoder}, the path {@link HorseLoader} reads the
 * training images with, so that the features of a new image are computed the way the model's
 * training features were.
 *
 * <p><b>Accepted files:</b> {@value #EXTENSIONS_TEXT} (case-insensitive), decoded by content as 3
 * channels: a grey image is replicated to R = G = B, an alpha channel is dropped; 8- and 16-bit
 * files give the same values in [0, 1] (see {@link ImageDecoder}). JPEG EXIF orientation is applied
 * by the decoder, so "original size" is the displayed size.
 *
 * <p><b>Errors:</b> a missing file, an unknown extension, a file that does not start with a PNG or
 * JPEG signature (checked by the decoder, whatever the extension), an image over the size limits, or
 * an undecodable image is one {@link BadInputException} naming the file.
 */
public final class ImageReader {
    /** File name endings (lower case, no dot) that {@code predict} reads as images. */
    public static final List<String> EXTENSIONS = List.of("png", "jpg", "jpeg");
    static final String EXTENSIONS_TEXT = ".png, .jpg, .jpeg";

    /**
     * One image at its working size.
     *
     * @param file           the file it was read from
     * @param originalHeight the decoded image's own height
     * @param originalWidth  the decoded image's own width
     * @param height         working height
     * @param width          working width
     * @param rgb            {@code [height * width * 3]} pixel-major R, G, B in [0, 1]
     */
    public record WorkingImage(Path file, int originalHeight, int originalWidth, int height, int width, float[] rgb) {
        public WorkingImage {
            if (rgb.length != 3 * height * width) throw new IllegalArgumentException("rgb has " + rgb.length + " values, not 3*" + height + "*" + width);
        }

        /**
         * The unlabelled example of this image: {@code unary}'s features, the 3 hand-made edge
         * features, no labels, shape [H, W]; edge types (0 horizontal, 1 vertical) only
         * when {@code typedEdges} (a model trained with one pairwise type needs none).
         */
        public org.structlr.data.Example example(UnaryFeatures unary, boolean typedEdges) {
            org.structlr.data.Example.Builder b = org.structlr.data.Example.builder(unary.compute(height, width, rgb), unary.dim(),
                            ImageFeatures.gridEdges(height, width), ImageFeatures.pairwise(height, width, rgb), ImageFeatures.PAIR_DIM)
                    .source(file)
                    .shape(height, width);
            if (typedEdges) b.edgeType(ImageFeatures.gridEdgeTypes(height, width));
            return b.build();
        }
    }

    /** Whether the file name ends in one of {@link #EXTENSIONS} (any case). */
    public static boolean isImageFile(Path file) {
        String n = file.getFileName() == null ? "" : file.getFileName().toString().toLowerCase(Locale.ROOT);
        int dot = n.lastIndexOf('.');
        return dot > 0 && EXTENSIONS.contains(n.substring(dot + 1));
    }

    /** The file name without its last extension ({@code horse001.jpg -> horse001}). */
    public static String stem(Path file) {
        String n = file.getFileName().toString();
        int dot = n.lastIndexOf('.');
        return dot > 0 ? n.substring(0, dot) : n;
    }

    /**
     * Decodes {@code file} and area-averages it to {@code height x width}.
     *
     * @throws BadInputException naming the file: missing, unknown extension, or not decodable
     */
    public WorkingImage read(Path file, int height, int width) {
        return read(file, new WorkingSize.Fixed(height, width));
    }

    /**
     * Decodes {@code file} and area-averages it to {@code size.shapeOf(its own size)}.
     *
     * @throws BadInputException naming the file: missing, unknown extension, or not decodable
     */
    public WorkingImage read(Path file, WorkingSize size) {
        if (!isImageFile(file)) throw new BadInputException(file, "unknown extension: images must be " + EXTENSIONS_TEXT);
        if (!Files.isRegularFile(file)) throw new BadInputException(file, "missing image file");
        if (!Files.isReadable(file)) throw new BadInputException(file, "unreadable image: permission denied");
        return working(ImageDecoder.decode(file, 3), size);
    }

    /**
     * As {@link #read(Path, WorkingSize)} for an image held in memory ({@code serve}'s request
     * bodies), named {@code name} in errors: the same decoder, checks and values.
     */
    public WorkingImage read(Path name, byte[] bytes, WorkingSize size) {
        return working(ImageDecoder.decode(name, bytes, 3), size);
    }

    private static WorkingImage working(ImageDecoder.Decoded d, WorkingSize size) {
        Path file = d.file();
        for (float[] plane : d.planes()) {
            for (float x : plane) if (!(x >= 0) || Float.isInfinite(x)) throw new BadInputException(file, "unreadable image: decoded value " + x);
        }
        int[] hw = size.shapeOf(d.height(), d.width());
        int height = hw[0], width = hw[1];
        return new WorkingImage(file, d.height(), d.width(), height, width, d.rgb(height, width));
    }
}
