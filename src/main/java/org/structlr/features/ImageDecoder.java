package org.structlr.features;

import java.nio.FloatBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import org.bytedeco.javacpp.BytePointer;
import org.bytedeco.opencv.global.opencv_core;
import org.bytedeco.opencv.global.opencv_imgcodecs;
import org.bytedeco.opencv.global.opencv_imgproc;
import org.bytedeco.opencv.opencv_core.Mat;
import org.bytedeco.opencv.opencv_core.Size;
import org.structlr.data.BadInputException;

/**
 * The one image decoding path of structlr: training ({@link HorseLoader}) and prediction
 * ({@link ImageReader}) both read pixels here, so a model sees a new image exactly as it saw its
 * training images.
 *
 * <p><b>Decoding</b> is OpenCV's (the {@code org.bytedeco.opencv} build DataVec brings), by content,
 * with {@code IMREAD_ANYDEPTH | IMREAD_ANYCOLOR} as DataVec's {@code NativeImageLoader} does (JPEG
 * EXIF orientation applied), then converted to the channels asked for: a grey image is replicated to
 * three channels, an alpha channel dropped, a colour mask turned grey (OpenCV's
 * {@code cvtColor}). <b>Bit depth:</b> values are returned in 8-bit units whatever the file's depth,
 * v8 = v / (2^bits - 1) * 255: an 8-bit file as is, a 16-bit PNG divided by 257
 * (65535 = 255 * 257), so a 16-bit PNG made from an 8-bit one (each byte repeated) decodes to the
 * same values exactly. The depth is the decoded matrix's own ({@code CV_8U} or {@code CV_16U}),
 * never guessed from the values.
 *
 * <p><b>Resizing</b> is OpenCV's {@code resize(..., INTER_AREA)} on float planes: for reductions,
 * each output pixel is the mean of the source area it covers, with fractional weights at its borders
 * (the same numbers as the hand-written area average it replaces, to float rounding; see
 * docs/wave2/cleanup.md). For enlargements OpenCV's INTER_AREA interpolates bilinearly.
 */
public final class ImageDecoder {
    /** The largest 8-bit value: decoded planes are in [0, {@value #UNIT}]. */
    public static final float UNIT = 255f;

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
            int v = th * tw;
            float[] out = new float[3 * v];
            for (int ch = 0; ch < 3; ch++) {
                float[] p = resized(ch, th, tw);
                for (int i = 0; i < v; i++) out[3 * i + ch] = Math.min(1f, Math.max(0f, p[i] / UNIT));
            }
            return out;
        }
    }

    /**
     * Decodes {@code file} into {@code channels} (1 or 3) planes at its own size.
     *
     * @throws BadInputException naming the file when it cannot be read or decoded
     */
    public static Decoded decode(Path file, int channels) {
        if (channels != 1 && channels != 3) throw new IllegalArgumentException("channels must be 1 or 3, got " + channels);
        byte[] bytes;
        try {
            bytes = Files.readAllBytes(file);
        } catch (java.io.IOException ex) {
            throw new BadInputException(file, "unreadable image: " + ex.getMessage(), ex);
        }
        if (bytes.length == 0) throw new BadInputException(file, "unreadable image: empty file");
        try (BytePointer data = new BytePointer(bytes);
             Mat encoded = new Mat(1, bytes.length, opencv_core.CV_8UC1, data);
             Mat raw = opencv_imgcodecs.imdecode(encoded, opencv_imgcodecs.IMREAD_ANYDEPTH | opencv_imgcodecs.IMREAD_ANYCOLOR)) {
            if (raw == null || raw.empty() || raw.rows() < 1 || raw.cols() < 1) throw new BadInputException(file, "unreadable image: not a decodable image");
            int depth = raw.depth();
            double max;
            if (depth == opencv_core.CV_8U) max = 255;
            else if (depth == opencv_core.CV_16U) max = 65535;
            else throw new BadInputException(file, "unreadable image: unsupported pixel depth (OpenCV depth " + depth + "; 8 or 16 bits are read)");
            try (Mat converted = toChannels(raw, channels, file); Mat f = new Mat()) {
                converted.convertTo(f, opencv_core.CV_32F, UNIT / max, 0);   // v8 = v * 255 / (2^bits - 1)
                int h = f.rows(), w = f.cols(), plane = h * w;
                float[] interleaved = new float[plane * channels];
                Mat c = f.isContinuous() ? f : f.clone();
                try {
                    FloatBuffer fb = c.createBuffer();
                    fb.get(interleaved);
                } finally {
                    if (c != f) c.close();
                }
                float[][] planes = new float[channels][plane];
                for (int ch = 0; ch < channels; ch++) {
                    int src = channels == 3 ? 2 - ch : 0;   // OpenCV's order is B, G, R
                    for (int i = 0; i < plane; i++) planes[ch][i] = interleaved[i * channels + src];
                }
                return new Decoded(file, h, w, planes);
            }
        } catch (BadInputException ex) {
            throw ex;
        } catch (RuntimeException ex) {
            throw new BadInputException(file, "unreadable image: " + ex.getMessage(), ex);
        }
    }

    private static Mat toChannels(Mat raw, int channels, Path file) {
        int have = raw.channels();
        Mat out = new Mat();
        if (have == channels) {
            raw.copyTo(out);
        } else if (channels == 3 && have == 1) {
            opencv_imgproc.cvtColor(raw, out, opencv_imgproc.COLOR_GRAY2BGR);
        } else if (channels == 3 && have == 4) {
            opencv_imgproc.cvtColor(raw, out, opencv_imgproc.COLOR_BGRA2BGR);
        } else if (channels == 1 && have == 3) {
            opencv_imgproc.cvtColor(raw, out, opencv_imgproc.COLOR_BGR2GRAY);
        } else if (channels == 1 && have == 4) {
            opencv_imgproc.cvtColor(raw, out, opencv_imgproc.COLOR_BGRA2GRAY);
        } else {
            out.close();
            throw new BadInputException(file, "unreadable image: " + have + " channels");
        }
        return out;
    }

    /**
     * Area resize of one row-major plane from {@code sh x sw} to {@code th x tw} by OpenCV's
     * {@code resize(..., INTER_AREA)}; a copy when the sizes are equal.
     */
    public static float[] resizeArea(float[] src, int sh, int sw, int th, int tw) {
        if (src.length != sh * sw) throw new IllegalArgumentException("plane has " + src.length + " values, not " + sh + "*" + sw);
        if (th < 1 || tw < 1) throw new IllegalArgumentException("target size must be positive, got " + th + "x" + tw);
        if (sh == th && sw == tw) return src.clone();
        float[] out = new float[th * tw];
        try (Mat s = new Mat(sh, sw, opencv_core.CV_32FC1); Mat d = new Mat(); Size size = new Size(tw, th)) {
            ((FloatBuffer) s.createBuffer()).put(src);
            opencv_imgproc.resize(s, d, size, 0, 0, opencv_imgproc.INTER_AREA);
            Mat c = d.isContinuous() ? d : d.clone();
            try {
                ((FloatBuffer) c.createBuffer()).get(out);
            } finally {
                if (c != d) c.close();
            }
        }
        return out;
    }
}
