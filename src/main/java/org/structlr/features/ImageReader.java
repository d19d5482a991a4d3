package org.structlr.features;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import org.datavec.image.loader.NativeImageLoader;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.structlr.data.BadInputException;

/**
 * Reads an unlabelled image of any size for prediction (CLI {@code predict}): decoded by DataVec's
 * {@link NativeImageLoader} exactly as {@link HorseLoader} reads the training images, then brought
 * to the working size by the same area averaging ({@link HorseLoader#resizeArea}), so that the
 * features of a new image are computed the way the model's training features were.
 *
 * <p><b>Accepted files:</b> {@value #EXTENSIONS_TEXT} (case-insensitive). The loader decodes by
 * content, asked for 3 channels: a grey image is replicated to R = G = B, an alpha channel is
 * dropped (OpenCV's colour conversions). Images with 16 bits per channel (some PNGs) decode to
 * values up to 65535: when any decoded value exceeds 255 the image is scaled by 1/65535 instead of
 * 1/255. JPEG EXIF orientation is applied by the decoder, so "original size" is the displayed size.
 *
 * <p><b>Errors:</b> a missing file, an unknown extension, a file that does not start with a PNG or
 * JPEG signature (checked first, whatever the extension), or an undecodable image is one
 * {@link BadInputException} naming the file. Not thread-safe (one loader per instance).
 */
public final class ImageReader {
    /** File name endings (lower case, no dot) that {@code predict} reads as images. */
    public static final List<String> EXTENSIONS = List.of("png", "jpg", "jpeg");
    static final String EXTENSIONS_TEXT = ".png, .jpg, .jpeg";

    private NativeImageLoader loader;

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
     * Refuses, before the native decoder sees it (which prints its own complaints), a file that does
     * not start like a PNG or a JPEG, whatever its extension says.
     */
    private static void checkSignature(Path file) {
        byte[] head = new byte[8];
        int n;
        try (java.io.InputStream in = Files.newInputStream(file)) {
            n = in.readNBytes(head, 0, head.length);
        } catch (IOException ex) {
            throw new BadInputException(file, "unreadable image: " + ex.getMessage(), ex);
        }
        if (n == 0) throw new BadInputException(file, "unreadable image: empty file");
        boolean png = n == 8 && Arrays.equals(head, PNG_SIGNATURE);
        boolean jpeg = n >= 3 && (head[0] & 0xff) == 0xff && (head[1] & 0xff) == 0xd8 && (head[2] & 0xff) == 0xff;
        if (!png && !jpeg) throw new BadInputException(file, "unreadable image: not a PNG or JPEG file");
    }

    private static final byte[] PNG_SIGNATURE = {(byte) 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};

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
        checkSignature(file);
        if (loader == null) loader = new NativeImageLoader(-1, -1, 3);
        INDArray m;
        try {
            m = loader.asMatrix(file.toFile());
        } catch (IOException | RuntimeException ex) {
            throw new BadInputException(file, "unreadable image: " + ex.getMessage(), ex);
        }
        float[] all;
        int h, w;
        try {
            if (m == null || m.rank() != 4 || m.size(0) != 1 || m.size(1) != 3 || m.size(2) < 1 || m.size(3) < 1) {
                throw new BadInputException(file, "unreadable image: decoded to shape " + (m == null ? "null" : Arrays.toString(m.shape())));
            }
            h = (int) m.size(2);
            w = (int) m.size(3);
            try (INDArray c = m.castTo(DataType.FLOAT).dup('c')) {
                all = c.data().asFloat();
            }
        } finally {
            if (m != null) m.close();
        }
        float max = 0;
        for (float x : all) {
            if (!(x >= 0) || Float.isInfinite(x)) throw new BadInputException(file, "unreadable image: decoded value " + x);
            max = Math.max(max, x);
        }
        float scale = max > 255 ? 65535f : 255f;
        int[] hw = size.shapeOf(h, w);
        int height = hw[0], width = hw[1];
        int plane = h * w, v = height * width;
        float[] rgb = new float[3 * v];
        for (int ch = 0; ch < 3; ch++) {
            // the loader's planes are B, G, R
            float[] resized = HorseLoader.resizeArea(Arrays.copyOfRange(all, (2 - ch) * plane, (3 - ch) * plane), h, w, height, width);
            for (int i = 0; i < v; i++) rgb[3 * i + ch] = Math.min(1f, Math.max(0f, resized[i] / scale));
        }
        return new WorkingImage(file, h, w, height, width, rgb);
    }
}
