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

    /**
     * Where an image's predictions go: the labels picture ({@code format}: "mask", "index" or
     * "color"), optionally the probabilities .npz and a folder for one probability map per class.
     */
    record ImageOutputs(Path labels, String format, Path probabilities, Path marginals) {
        static final java.util.List<String> FORMATS = LabelImages.FORMATS;

        ImageOutputs {
            if (!FORMATS.contains(format)) throw new IllegalArgumentException("format " + format + " is not one of " + FORMATS);
        }
    }

    /**
     * Predicts one image at its working size and writes its outputs at its own size: the labels
     * picture in the asked format, the probabilities and the per-class probability maps
     * ({@code STEM-K-NAME.png}, grey 255 p) when asked.
     */
    static Predictor.Prediction predictImage(CrfModel m, ImageReader.WorkingImage img, UnaryFeatures unary, boolean typedEdges,
                                             ImageOutputs out, int iterations, double tolerance) throws IOException {
        Example ex = img.example(unary, typedEdges);
        Predictor.Prediction p = Predictor.predictEach(m, List.of(ex), iterations, tolerance).get(0);   // = serve's answer, bit for bit
        int L = m.numLabels(), H = img.originalHeight(), W = img.originalWidth();
        float[] working;
        try (INDArray marg = p.marginals().castTo(DataType.FLOAT).dup('c')) {
            working = marg.data().asFloat();
        }
        float[] full = LabelImages.resizeBilinear(working, img.height(), img.width(), L, H, W);
        int[] labels = LabelImages.argmax(full, L);
        LabelImages.writePng(out.labels(), LabelImages.picture(out.format(), labels, H, W, m.classes()));
        if (out.probabilities() != null) {
            Map<String, NpyArray> arrays = new LinkedHashMap<>();
            arrays.put("probabilities", NpyArray.ofFloats(full, H, W, L));
            arrays.put("labels", NpyArray.ofInts(labels, H, W));
            arrays.put("shape", NpyArray.ofInts(new int[] {H, W}, 2));
            Npz.write(out.probabilities(), arrays);
        }
        if (out.marginals() != null) {
            for (int c = 0; c < L; c++) {
                LabelImages.writePng(out.marginals().resolve(marginalName(ImageReader.stem(img.file()), c, m.classes().name(c))),
                        LabelImages.probabilityImage(full, H, W, L, c));
            }
        }
        return p;
    }

    /** {@code STEM-K-NAME.png}, the class name's characters other than letters, digits, '-' and '_' as '_'. */
    static String marginalName(String stem, int c, String className) {
        return stem + "-" + c + "-" + className.replaceAll("[^A-Za-z0-9_-]", "_") + ".png";
    }

    /**
     * The models an executor's task threads have loaded, by folder: a model is loaded once per
     * thread, not once per input; per thread because score functions are not all safe for
     * concurrent use (local[N] runs N tasks in one JVM). Bounded: each thread keeps its
     * {@value #MODELS_KEPT} most recently used models (an executor lives on across jobs, each of
     * which may name another model); a model fetched from a remote URI is read from a temporary
     * copy that is deleted as soon as it is loaded.
     */
    static final int MODELS_KEPT = 2;
    private static final ThreadLocal<Map<String, CrfModel>> MODELS = ThreadLocal.withInitial(() -> new java.util.LinkedHashMap<>(4, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, CrfModel> eldest) {
            return size() > MODELS_KEPT;
        }
    });

    static CrfModel loadedModel(String dir) {
        Map<String, CrfModel> models = MODELS.get();
        CrfModel m = models.get(dir);
        if (m != null) return m;
        Path local = fetched(dir);
        try {
            m = CrfModel.load(local);
        } finally {
            if (remote(dir)) deleteFetched(local);
        }
        models.put(dir, m);
        return m;
    }

    /** The models this thread holds (tests). */
    static java.util.Set<String> loadedModels() {
        return java.util.Set.copyOf(MODELS.get().keySet());
    }

    /** Deletes the temporary folder {@link #fetched} made for {@code local}. */
    static void deleteFetched(Path local) {
        try {
            org.structlr.data.AtomicFiles.deleteTree(local.getParent());
        } catch (IOException e) {
            // a temporary copy left behind is no reason to fail the task
        }
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
            try {
                RemoteFiles.find().orElseThrow(() -> new IOException("no remote file system in this build")).fetch(where, local);
            } catch (IOException | RuntimeException e) {
                deleteFetched(local);
                throw e;
            }
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
            Example ex;
            try {
                ex = ExampleIO.read(in);
            } finally {
                if (remote(input)) deleteFetched(in);
            }
            Predictor.Prediction[] p = new Predictor.Prediction[1];
            write(output, out -> p[0] = predictExample(loadedModel(model), ex, out, iterations, tolerance));
            return String.format(Locale.ROOT, "%s -> %s (%d sweeps, gap %.2e)", input, output, p[0].inference().iterations(), p[0].inference().gap());
        }
    }

    /** One image to label: its working size is {@code height x width}, or {@code longest} when that is positive. */
    record ImageTask(String model, String input, String mask, String format, String probabilities, String marginals, String features,
                     int cell, int patch, int height, int width, int longest, boolean typedEdges, int iterations, double tolerance)
            implements ClusterPrediction.Task {
        @Override
        public String run() throws IOException {
            WorkingSize ws = longest > 0 ? new WorkingSize.Longest(longest) : longest < 0 ? new WorkingSize.Own() : new WorkingSize.Fixed(height, width);
            Path in = fetched(input);
            ImageReader.WorkingImage img;
            try {
                img = new ImageReader().read(in, ws);
            } finally {
                if (remote(input)) deleteFetched(in);
            }
            CrfModel m = loadedModel(model);
            UnaryFeatures unary = CliChecks.unaryFeatures(features, cell, patch);
            Predictor.Prediction p;
            if (!remote(mask) && (probabilities == null || !remote(probabilities)) && (marginals == null || !remote(marginals))) {
                p = predictImage(m, img, unary, typedEdges, new ImageOutputs(Path.of(mask), format, probabilities == null ? null : Path.of(probabilities),
                        marginals == null ? null : Path.of(marginals)), iterations, tolerance);
            } else {
                // every output into one local folder first, then each published to its URI
                Path dir = java.nio.file.Files.createTempDirectory("structlr-task");
                try {
                    Path maps = dir.resolve("marginals");
                    p = predictImage(m, img, unary, typedEdges, new ImageOutputs(dir.resolve("mask.png"), format,
                            probabilities == null ? null : dir.resolve("p.npz"), marginals == null ? null : maps), iterations, tolerance);
                    write(mask, out -> java.nio.file.Files.copy(dir.resolve("mask.png"), out, java.nio.file.StandardCopyOption.REPLACE_EXISTING));
                    if (probabilities != null) write(probabilities, out -> java.nio.file.Files.copy(dir.resolve("p.npz"), out, java.nio.file.StandardCopyOption.REPLACE_EXISTING));
                    if (marginals != null) {
                        for (Path f : java.nio.file.Files.list(maps).sorted().toList()) {
                            write(org.structlr.data.DatasetFiles.child(marginals, f.getFileName().toString()),
                                    out -> java.nio.file.Files.copy(f, out, java.nio.file.StandardCopyOption.REPLACE_EXISTING));
                        }
                    }
                } finally {
                    org.structlr.data.AtomicFiles.deleteTree(dir);
                }
            }
            return String.format(Locale.ROOT, "%s -> %s (%dx%d, %d sweeps, gap %.2e)", input, mask, img.originalHeight(),
                    img.originalWidth(), p.inference().iterations(), p.inference().gap());
        }
    }
}
