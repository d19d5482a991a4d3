import java.nio.FloatBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.bytedeco.javacpp.BytePointer;
import org.bytedeco.opencv.global.opencv_core;
import org.bytedeco.opencv.global.opencv_imgcodecs;
import org.bytedeco.opencv.global.opencv_imgproc;
import org.bytedeco.opencv.opencv_core.Mat;
import org.structlr.features.ImageDecoder;

/**
 * Decode speed and pixel agreement: structlr's ImageDecoder (javax.imageio) against OpenCV's
 * imdecode (the decoder structlr used before, bytedeco's build on the class path; see run.sh).
 * Both decode from bytes already in memory, to float planes in 8-bit units (RGB for rgb/, grey for
 * figure_ground/), 5 timed rounds after one warm-up round; then every pixel is compared.
 *
 * Usage: java -cp ... DecodeSpeed DB_FOLDER
 */
public class DecodeSpeed {
    public static void main(String[] args) throws Exception {
        Path db = Path.of(args[0]);
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 5;
        for (String sub : List.of("rgb", "figure_ground")) {
            int channels = sub.equals("rgb") ? 3 : 1;
            List<Path> files;
            try (Stream<Path> s = Files.list(db.resolve(sub))) { files = s.sorted().toList(); }
            byte[][] bytes = new byte[files.size()][];
            long pixels = 0, mb = 0;
            for (int i = 0; i < bytes.length; i++) { bytes[i] = Files.readAllBytes(files.get(i)); mb += bytes[i].length; }
            double[] tJava = new double[rounds + 1], tCv = new double[rounds + 1];
            for (int r = 0; r <= rounds; r++) {
                long t0 = System.nanoTime();
                for (int i = 0; i < bytes.length; i++) ImageDecoder.decode(files.get(i), bytes[i], channels);
                long t1 = System.nanoTime();
                for (int i = 0; i < bytes.length; i++) opencv(bytes[i], channels);
                long t2 = System.nanoTime();
                tJava[r] = (t1 - t0) / 1e9; tCv[r] = (t2 - t1) / 1e9;
            }
            // agreement
            long n = 0, differ = 0, beyond1 = 0; double maxAbs = 0, sumAbs = 0; int worstFile = -1;
            for (int i = 0; i < bytes.length; i++) {
                ImageDecoder.Decoded a = ImageDecoder.decode(files.get(i), bytes[i], channels);
                float[][] b = opencv(bytes[i], channels);
                if (b == null || b[0].length != a.planes()[0].length) { System.out.println("size differs: " + files.get(i)); continue; }
                pixels += a.planes()[0].length;
                for (int c = 0; c < channels; c++) for (int k = 0; k < b[c].length; k++) {
                    double d = Math.abs(a.planes()[c][k] - b[c][k]);
                    n++; sumAbs += d;
                    if (d > 0.51) differ++;
                    if (d > 1.51) beyond1++;
                    if (d > maxAbs) { maxAbs = d; worstFile = i; }
                }
            }
            System.out.printf("%s: %d files, %.1f MB, %.1f Mpixels; decode s per round (median of %d): imageio %.3f, opencv %.3f (ratio %.2f)%n",
                    sub, files.size(), mb / 1e6, pixels / 1e6, rounds, median(tJava), median(tCv), median(tJava) / median(tCv));
            System.out.printf("  values: %d compared, %.4f%% differ by >= 1, %.4f%% by >= 2, max |diff| %.2f (%s), mean |diff| %.4f%n",
                    n, 100.0 * differ / n, 100.0 * beyond1 / n, maxAbs, worstFile >= 0 ? files.get(worstFile).getFileName() : "-", sumAbs / n);
        }
    }

    static double median(double[] t) {
        double[] s = java.util.Arrays.copyOfRange(t, 1, t.length);   // round 0 is the warm-up
        java.util.Arrays.sort(s);
        return s[s.length / 2];
    }

    /** The decoding structlr did before (ImageDecoder up to this change): imdecode ANYDEPTH|ANYCOLOR, to channels, to float planes. */
    static float[][] opencv(byte[] bytes, int channels) {
        try (BytePointer data = new BytePointer(bytes);
             Mat encoded = new Mat(1, bytes.length, opencv_core.CV_8UC1, data);
             Mat raw = opencv_imgcodecs.imdecode(encoded, opencv_imgcodecs.IMREAD_ANYDEPTH | opencv_imgcodecs.IMREAD_ANYCOLOR);
             Mat conv = new Mat(); Mat f = new Mat()) {
            int have = raw.channels();
            if (have == channels) raw.copyTo(conv);
            else if (channels == 3 && have == 1) opencv_imgproc.cvtColor(raw, conv, opencv_imgproc.COLOR_GRAY2BGR);
            else if (channels == 1 && have == 3) opencv_imgproc.cvtColor(raw, conv, opencv_imgproc.COLOR_BGR2GRAY);
            else return null;
            conv.convertTo(f, opencv_core.CV_32F, raw.depth() == opencv_core.CV_16U ? 255.0 / 65535 : 1, 0);
            int plane = f.rows() * f.cols();
            float[] inter = new float[plane * channels];
            ((FloatBuffer) f.createBuffer()).get(inter);
            float[][] planes = new float[channels][plane];
            for (int ch = 0; ch < channels; ch++) {
                int src = channels == 3 ? 2 - ch : 0;
                for (int i = 0; i < plane; i++) planes[ch][i] = inter[i * channels + src];
            }
            return planes;
        }
    }
}
