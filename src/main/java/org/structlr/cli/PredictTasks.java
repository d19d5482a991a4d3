package org.structlr.cli;

import java.io.IOException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.structlr.data.Example;
import org.structlr.data.ExampleIO;
import org.structlr.data.NpyArray;
import org.structlr.data.Npz;
import org.structlr.data.RemoteFiles;
import org.structlr.features.ImageReader;
import org.structlr.features.LabelImages;
import org.structlr.features.UnaryFeatures;
import org.structlr.features.WorkingSize;
import org.structlr.model.ClusterPrediction;
import org.structlr.model.CrfModel;
import org.structlr.model.Predictor;

/**
 * What {@code predict} does for one input, shared by the one-machine loop and {@code predict
 * --spark}: the per-input bodies ({@link #predictExample}, {@link #predictImage}) and the same as
 * serializable tasks that carry only paths and settings (each executor reads its own input, loads
 * the model once per JVM and writes its outputs atomically), so both write the same files.
 */
final class PredictTasks {
    private PredictTasks() {}

    /** Predicts one example and writes 'labels', 'marginals' (and 'shape') to {@code out}. */
    static Predictor.Prediction predictExample(CrfModel m, Example ex, Path out, int iterations, double tolerance) throws IOException {
        Predictor.Prediction p = Predictor.predictEach(m, List.of(ex), iterations, tolerance).get(0);   // = serve's answer, bit for bit
        Map<String, NpyArray> arrays = new LinkedHashMap<>();
        arrays.put("labels", NpyArray.ofInts(p.labels(), p.labels().length));
        INDArray marg = p.marginals().castTo(DataType.FLOAT);
        arrays.put("marginals", NpyArray.fromINDArray(marg));
        ex.shape().ifPresent(sh -> arrays.put("shape", NpyArray.ofInts(sh, 2)));
        Npz.write(out, arrays);
        return p;
    }

    /** Predicts one image at its working size and writes its mask (and probabilities) at its own size. */
    static Predictor.Prediction predictImage(CrfModel m, ImageReader.WorkingImage img, UnaryFeatures unary, boolean typedEdges,
                                             Path mask, Path probs, int iterations, double tolerance) throws IOException {
        Example ex = img.example(unary, typedEdges);
        Predictor.Prediction p = Predictor.predictEach(m, List.of(ex), iterations, tolerance).get(0);   // = serve's answer, bit for bit
        int L = m.numLabels(), H = img.originalHeight(), W = img.originalWidth();
        float[] working;
        try (INDArray marg = p.marginals().castTo(DataType.FLOAT).dup('c')) {
            working = marg.data().asFloat();
        }
        float[] full = LabelImages.resizeBilinear(working, img.height(), img.width(), L, H, W);
        int[] labels = LabelImages.argmax(full, L);
        LabelImages.writePng(mask, LabelImages.mask(labels, H, W, L));
        if (probs != null) {
            Map<String, NpyArray> arrays = new LinkedHashMap<>();
            arrays.put("probabilities", NpyArray.ofFloats(full, H, W, L));
            arrays.put("labels", NpyArray.ofInts(labels, H, W));
            arrays.put("shape", NpyArray.ofInts(new int[] {H, W}, 2));
            Npz.write(probs, arrays);
        }
        return p;
    }

    /**
     * The models an executor's task threads have loaded, by folder: a model is loaded once per
     * thread, not once per input; per thread because score functions are not all safe for
     * concurrent use (local[N] runs N tasks in one JVM).
     */
    private static final ThreadLocal<Map<String, CrfModel>> MODELS = ThreadLocal.withInitial(java.util.HashMap::new);

    static CrfModel loadedModel(String dir) {
        return MODELS.get().computeIfAbsent(dir, d -> CrfModel.load(fetched(d)));
    }

    /** Whether a task's location is a remote URI (hdfs://...; staged on the driver), not a local or file: path. */
    static boolean remote(String where) {
        return where.matches("[A-Za-z][A-Za-z0-9+.-]*://.*") && !where.startsWith("file:");
    }

    /** A local path holding what is at {@code where}: itself, or a copy fetched through the build's RemoteFiles. */
    static Path fetched(String where) {
        if (!remote(where)) return Path.of(where);
        try {
            Path local = java.nio.file.Files.createTempDirectory("structlr-task").resolve(Path.of(java.net.URI.create(where).getPath()).getFileName().toString());
            RemoteFiles.find().orElseThrow(() -> new IOException("no remote file system in this build")).fetch(where, local);
            return local;
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(where + ": cannot read: " + e.getMessage(), e);
        }
    }

    /** Writes an output at {@code where}: directly, or into a local file then published to the URI (replaced only when complete). */
    static void write(String where, OutputBody body) throws IOException {
        if (!remote(where)) {
            body.write(Path.of(where));
            return;
        }
        Path dir = java.nio.file.Files.createTempDirectory("structlr-task");
        Path local = dir.resolve(Path.of(java.net.URI.create(where).getPath()).getFileName().toString());
        try {
            body.write(local);
            RemoteFiles.find().orElseThrow(() -> new IOException("no remote file system in this build")).publish(local, where);
        } finally {
            org.structlr.data.AtomicFiles.deleteTree(dir);
        }
    }

    interface OutputBody {
        void write(Path local) throws IOException;
    }

    /** One .npz example to label (paths as strings: they travel to executors). */
    record ExampleTask(String model, String input, String output, int iterations, double tolerance) implements ClusterPrediction.Task {
        @Override
        public String run() throws IOException {
            Path in = fetched(input);
            Example ex = ExampleIO.read(in);
            if (remote(input)) org.structlr.data.AtomicFiles.deleteTree(in.getParent());
            Predictor.Prediction[] p = new Predictor.Prediction[1];
            write(output, out -> p[0] = predictExample(loadedModel(model), ex, out, iterations, tolerance));
            return String.format(Locale.ROOT, "%s -> %s (%d sweeps, gap %.2e)", input, output, p[0].inference().iterations(), p[0].inference().gap());
        }
    }

    /** One image to label: its working size is {@code height x width}, or {@code longest} when that is positive. */
    record ImageTask(String model, String input, String mask, String probabilities, String features, int cell, int patch,
                     int height, int width, int longest, boolean typedEdges, int iterations, double tolerance)
            implements ClusterPrediction.Task {
        @Override
        public String run() throws IOException {
            WorkingSize ws = longest > 0 ? new WorkingSize.Longest(longest) : new WorkingSize.Fixed(height, width);
            Path in = fetched(input);
            ImageReader.WorkingImage img = new ImageReader().read(in, ws);
            if (remote(input)) org.structlr.data.AtomicFiles.deleteTree(in.getParent());
            CrfModel m = loadedModel(model);
            UnaryFeatures unary = CliChecks.unaryFeatures(features, cell, patch);
            Predictor.Prediction p;
            if (!remote(mask) && (probabilities == null || !remote(probabilities))) {
                p = predictImage(m, img, unary, typedEdges, Path.of(mask), probabilities == null ? null : Path.of(probabilities), iterations, tolerance);
            } else {
                // both outputs into one local folder first, then each published to its URI
                Path dir = java.nio.file.Files.createTempDirectory("structlr-task");
                try {
                    p = predictImage(m, img, unary, typedEdges, dir.resolve("mask.png"), probabilities == null ? null : dir.resolve("p.npz"),
                            iterations, tolerance);
                    write(mask, out -> java.nio.file.Files.copy(dir.resolve("mask.png"), out, java.nio.file.StandardCopyOption.REPLACE_EXISTING));
                    if (probabilities != null) write(probabilities, out -> java.nio.file.Files.copy(dir.resolve("p.npz"), out, java.nio.file.StandardCopyOption.REPLACE_EXISTING));
                } finally {
                    org.structlr.data.AtomicFiles.deleteTree(dir);
                }
            }
            return String.format(Locale.ROOT, "%s -> %s (%dx%d, %d sweeps, gap %.2e)", input, mask, img.originalHeight(),
                    img.originalWidth(), p.inference().iterations(), p.inference().gap());
        }
    }
}
