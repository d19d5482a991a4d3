package org.structlr.features;

import java.awt.image.BufferedImage;
import java.awt.image.ColorModel;
import java.awt.image.IndexColorModel;
import java.awt.image.Raster;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Iterator;
import javax.imageio.IIOException;
import javax.imageio.ImageIO;
import javax.imageio.ImageReader;
import javax.imageio.event.IIOReadWarningListener;
import javax.imageio.stream.ImageInputStream;
import javax.imageio.stream.MemoryCacheImageInputStream;
import org.structlr.data.BadInputException;
import org.structlr.data.InputLimits;

/**
 * The one image decoding path of structlr: training ({@link HorseLoader}) and prediction
 * ({@link ImageReader}) both read pixels here, so a model sees a new image exactly as it saw its
 * training images.
 *
 * <p><b>Formats: PNG and JPEG, told by their first bytes</b> (never by the file name): anything
 * else is refused before a decoder sees it. Decoding is the Java runtime's own
 * ({@code javax.imageio}): its PNG reader is Java code, its JPEG reader the runtime's bundled IJG
 * libjpeg, updated with the JDK's security releases. OpenCV (through DataVec) decoded here before;
 * it was dropped because the build DataVec 1.0.0-M2.1 pins (OpenCV 4.5.5, JavaCPP 1.5.7) links
 * libwebp with CVE-2023-4863 and an old libtiff, and its {@code imdecode} chooses a codec by
 * content, so any file named {@code *.jpg} reached them (docs/wave3/trust.md has the measurements).
 *
 * <p><b>Limits before decoding:</b> the file's size ({@link InputLimits#IMAGE_BYTES}) and the
 * width * height its header declares ({@link InputLimits#IMAGE_PIXELS}) are checked before any
 * pixel is decoded. A decoder warning (a truncated or corrupt JPEG, which would decode to grey
 * blocks) is an error.
 *
 * <p><b>Values</b> are in 8-bit units whatever the file's depth, v8 = v / (2^bits - 1) * 255: an
 * 8-bit file as is, a 16-bit PNG divided by 257, so a 16-bit PNG made from an 8-bit one (each byte
 * repeated) decodes to the same values exactly. Channels: a grey image is replicated to three, an
 * alpha channel dropped (not composited), a palette looked up, a colour mask turned grey with
 * Y = 0.299 R + 0.587 G + 0.114 B (ITU-R BT.601, the weights OpenCV used). No colour management:
 * ICC profiles and gamma chunks are ignored, as before. A JPEG's EXIF orientation is applied, so
 * sizes are the displayed ones.
 *
 * <p><b>Resizing</b> is an area average ({@link #resizeArea}): each output pixel is the mean of
 * the source area it covers, with fractional weights at its borders, for reductions and
 * enlargements alike.
 */
public final class ImageDecoder {
    /** The largest 8-bit value: decoded planes are in [0, {@value #UNIT}]. */
    public static final float UNIT = 255f;

    private static final byte[] PNG_SIGNATURE = {(byte) 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};

    private ImageDecoder() {}

    /**
     * A decoded image at its own size.
     *
     * @param planes {@code channels} row-major planes of {@code height * width} values in [0, 255]:
     *               R, G, B for three channels, grey for one
     */
    public record Decoded(Path file, int height, int width, float[][] planes) {
        /** Plane {@code ch} area-resized to {@code th x tw} (values in 8-bit units). */
        public float[] resized(int ch, int th, int tw) {
            return resizeArea(planes[ch], height, width, th, tw);
        }

        /** The three planes area-resized to {@code th x tw}, pixel-major R, G, B in [0, 1]. */
        public float[] rgb(int th, int tw) {
            if (planes.length != 3) throw new IllegalStateException("not a colour image: " + planes.length + " channel(s)");
            int v = Math.multiplyExact(th, tw);
            float[] out = new float[Math.multiplyExact(3, v)];
            for (int ch = 0; ch < 3; ch++) {
                float[] p = resized(ch, th, tw);
                for (int i = 0; i < v; i++) out[3 * i + ch] = Math.min(1f, Math.max(0f, p[i] / UNIT));
            }
            return out;
        }
    }

    /** The formats this decoder reads. */
    public enum Format { PNG, JPEG }

    /** The format {@code head} (a file's first bytes) starts like, or null. */
    public static Format sniff(byte[] head, int length) {
        if (length >= PNG_SIGNATURE.length && java.util.Arrays.equals(head, 0, PNG_SIGNATURE.length, PNG_SIGNATURE, 0, PNG_SIGNATURE.length)) {
            return Format.PNG;
        }
        if (length >= 3 && (head[0] & 0xff) == 0xff && (head[1] & 0xff) == 0xd8 && (head[2] & 0xff) == 0xff) return Format.JPEG;
        return null;
    }

    /**
     * Decodes {@code file} into {@code channels} (1 or 3) planes at its own (displayed) size.
     *
     * @throws BadInputException naming the file when it cannot be read, is not a PNG or JPEG, is
     *                           over a limit, or cannot be decoded
     */
    public static Decoded decode(Path file, int channels) {
        return decode(file, readBounded(file), channels);
    }

    /** {@link #decodeChecked}, with running out of memory or stack while decoding an error about the file. */
    public static Decoded decode(Path file, byte[] bytes, int channels) {
        try {
            return org.structlr.data.Reading.guard(file, () -> decodeChecked(file, bytes, channels));
        } catch (IOException e) {
            throw new BadInputException(file, "unreadable image: " + e.getMessage(), e);
        }
    }

    /**
     * Decodes an image held in memory ({@code bytes}, named {@code file} in errors): the same checks
     * and values as {@link #decode(Path, int)}.
     */
    private static Decoded decodeChecked(Path file, byte[] bytes, int channels) {
        if (channels != 1 && channels != 3) throw new IllegalArgumentException("channels must be 1 or 3, got " + channels);
        Format format = format(file, bytes);
        BufferedImage image = image(file, bytes, format);
        float[][] planes = planes(file, image, channels);
        int h = image.getHeight(), w = image.getWidth();
        int orientation = format == Format.JPEG ? ExifOrientation.of(bytes) : 1;
        if (orientation != 1) {
            for (int ch = 0; ch < planes.length; ch++) planes[ch] = ExifOrientation.apply(planes[ch], h, w, orientation);
            if (orientation >= 5) {
                int t = h;
                h = w;
                w = t;
            }
        }
        return new Decoded(file, h, w, planes);
    }

    /**
     * The decoded image as the runtime's reader gives it, with the checks of {@link #decode(Path, int)}
     * (size limits, format by content, decoder warnings are errors) but no conversion and no EXIF
     * orientation: for readers that need a file's exact samples (class masks: a palette PNG's indices).
     */
    public static BufferedImage decodeImage(Path file) {
        byte[] bytes = readBounded(file);
        try {
            return org.structlr.data.Reading.guard(file, () -> image(file, bytes, format(file, bytes)));
        } catch (IOException e) {
            throw new BadInputException(file, "unreadable image: " + e.getMessage(), e);
        }
    }

    private static Format format(Path file, byte[] bytes) {
        if (bytes.length == 0) throw new BadInputException(file, "unreadable image: empty file");
        Format format = sniff(bytes, bytes.length);
        if (format == null) throw new BadInputException(file, "unreadable image: not a PNG or JPEG file");
        return format;
    }

    private static BufferedImage image(Path file, byte[] bytes, Format format) {
        try {
            return read(file, bytes, format);
        } catch (BadInputException ex) {
            throw ex;
        } catch (IOException | RuntimeException ex) {
            String m = ex.getMessage();
            throw new BadInputException(file, "unreadable image: " + (m == null || m.isBlank() ? ex.getClass().getSimpleName() : m), ex);
        }
    }

    /** The file's bytes, refused before reading when larger than {@link InputLimits#IMAGE_BYTES}. */
    private static byte[] readBounded(Path file) {
        try (InputStream in = Files.newInputStream(file)) {
            long size = Files.size(file);
            InputLimits.IMAGE_BYTES.check(file, size, "image file");
            long limit = InputLimits.IMAGE_BYTES.value();
            byte[] bytes = in.readNBytes((int) Math.min(Integer.MAX_VALUE - 8, limit + 1));
            if (bytes.length > limit) throw InputLimits.IMAGE_BYTES.exceeded(file, "image file", bytes.length);   // grew while read
            return bytes;
        } catch (java.nio.file.NoSuchFileException ex) {
            throw new BadInputException(file, "missing image file");
        } catch (IOException ex) {
            throw new BadInputException(file, "unreadable image: " + ex.getMessage(), ex);
        }
    }

    /** The runtime's reader for the format, the header's size checked before any pixel is decoded. */
    private static BufferedImage read(Path file, byte[] bytes, Format format) throws IOException {
        Iterator<ImageReader> readers = ImageIO.getImageReadersByFormatName(format == Format.PNG ? "png" : "jpeg");
        if (!readers.hasNext()) throw new IIOException("no " + format + " reader in this Java runtime");
        ImageReader reader = readers.next();
        try (ImageInputStream in = new MemoryCacheImageInputStream(new ByteArrayInputStream(bytes))) {
            reader.setInput(in, true, true);   // one image, no metadata (text chunks are never inflated)
            int w = reader.getWidth(0), h = reader.getHeight(0);
            if (w < 1 || h < 1) throw new BadInputException(file, "unreadable image: header declares " + w + "x" + h + " pixels");
            InputLimits.IMAGE_PIXELS.check(file, (long) w * h, "image (" + w + "x" + h + ")");
            String[] warning = {null};
            reader.addIIOReadWarningListener((IIOReadWarningListener) (r, message) -> {
                if (warning[0] == null) warning[0] = message;
            });
            BufferedImage image = reader.read(0);
            if (warning[0] != null) throw new BadInputException(file, "unreadable image: corrupt " + format + " data (" + warning[0] + ")");
            if (image.getWidth() != w || image.getHeight() != h) {
                throw new BadInputException(file, "unreadable image: decoded " + image.getWidth() + "x" + image.getHeight() + ", header said " + w + "x" + h);
            }
            return image;
        } finally {
            reader.dispose();
        }
    }

    /**
     * The decoded image as {@code channels} planes in 8-bit units: palette looked up, grey
     * replicated, alpha dropped, colour turned grey by BT.601 weights when one channel is asked for.
     */
    private static float[][] planes(Path file, BufferedImage image, int channels) {
        int h = image.getHeight(), w = image.getWidth(), plane = Math.multiplyExact(h, w);
        ColorModel cm = image.getColorModel();
        Raster raster = image.getRaster();
        int bands = raster.getNumBands();
        float[][] rgb;
        if (cm instanceof IndexColorModel icm) {
            rgb = new float[3][plane];
            int[] row = new int[w];
            for (int y = 0; y < h; y++) {
                raster.getSamples(0, y, w, 1, 0, row);
                for (int x = 0; x < w; x++) {
                    int i = y * w + x, k = row[x];
                    rgb[0][i] = icm.getRed(k);
                    rgb[1][i] = icm.getGreen(k);
                    rgb[2][i] = icm.getBlue(k);
                }
            }
        } else {
            int colours = cm.getNumColorComponents();
            if (colours != 1 && colours != 3) throw new BadInputException(file, "unreadable image: " + colours + " colour components (grey or RGB are read)");
            rgb = new float[colours][plane];
            int[] row = new int[w * bands];
            for (int c = 0; c < colours; c++) {
                float scale = UNIT / ((1 << cm.getComponentSize(c)) - 1);   // v8 = v * 255 / (2^bits - 1)
                float[] out = rgb[c];
                for (int y = 0; y < h; y++) {
                    raster.getSamples(0, y, w, 1, c, row);
                    int base = y * w;
                    if (scale == 1f) {
                        for (int x = 0; x < w; x++) out[base + x] = row[x];
                    } else {
                        for (int x = 0; x < w; x++) out[base + x] = row[x] * scale;
                    }
                }
            }
        }
        if (rgb.length == channels) return rgb;
        if (channels == 3) return new float[][] {rgb[0], rgb[0].clone(), rgb[0].clone()};   // grey to R = G = B
        float[] grey = new float[plane];
        for (int i = 0; i < plane; i++) grey[i] = 0.299f * rgb[0][i] + 0.587f * rgb[1][i] + 0.114f * rgb[2][i];
        return new float[][] {grey};
    }

    /**
     * Area resize of one row-major plane from {@code sh x sw} to {@code th x tw}: output pixel
     * (r, c) is the mean of the source over [r sh/th, (r+1) sh/th) x [c sw/tw, (c+1) sw/tw), source
     * pixels counted by the fraction of them inside. Separable (columns, then rows), accumulated in
     * double; a copy when the sizes are equal.
     */
    public static float[] resizeArea(float[] src, int sh, int sw, int th, int tw) {
        if (src.length != (long) sh * sw) throw new IllegalArgumentException("plane has " + src.length + " values, not " + sh + "*" + sw);
        if (th < 1 || tw < 1) throw new IllegalArgumentException("target size must be positive, got " + th + "x" + tw);
        if (sh == th && sw == tw) return src.clone();
        AreaWeights wc = AreaWeights.of(sw, tw), wr = AreaWeights.of(sh, th);
        double[] cols = new double[Math.multiplyExact(sh, tw)];
        for (int r = 0; r < sh; r++) {
            for (int c = 0; c < tw; c++) {
                double s = 0;
                double[] w = wc.weights[c];
                int first = r * sw + wc.first[c];
                for (int k = 0; k < w.length; k++) s += w[k] * src[first + k];
                cols[r * tw + c] = s;
            }
        }
        float[] out = new float[Math.multiplyExact(th, tw)];
        for (int r = 0; r < th; r++) {
            double[] w = wr.weights[r];
            for (int c = 0; c < tw; c++) {
                double s = 0;
                for (int k = 0; k < w.length; k++) s += w[k] * cols[(wr.first[r] + k) * tw + c];
                out[r * tw + c] = (float) s;
            }
        }
        return out;
    }

    /** 1-D area weights: output o covers source [o s / t, (o + 1) s / t); weights sum to one. */
    private record AreaWeights(int[] first, double[][] weights) {
        static AreaWeights of(int s, int t) {
            int[] first = new int[t];
            double[][] weights = new double[t][];
            double scale = (double) s / t;
            for (int o = 0; o < t; o++) {
                double lo = o * scale, hi = (o + 1) * scale;
                int i0 = Math.min(s - 1, (int) Math.floor(lo)), i1 = Math.min(s, (int) Math.ceil(hi));
                double[] w = new double[Math.max(1, i1 - i0)];
                double sum = 0;
                for (int i = i0; i < i0 + w.length; i++) {
                    double x = Math.max(0, Math.min(hi, i + 1) - Math.max(lo, i));
                    w[i - i0] = x;
                    sum += x;
                }
                for (int k = 0; k < w.length; k++) w[k] /= sum;   // exactly one despite rounding
                first[o] = i0;
                weights[o] = w;
            }
            return new AreaWeights(first, weights);
        }
    }
}
