package org.structlr.cli;

import org.structlr.model.Potentials;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.structlr.data.DenoisingGenerator;
import org.structlr.data.Example;
import org.structlr.data.ExampleIO;
import org.structlr.data.NpyArray;
import org.structlr.data.Npz;
import org.structlr.model.CrfModel;
import org.structlr.model.ExampleBatch;
import org.structlr.model.Predictor;

/**
 * train / evaluate / predict end to end on a tiny generated data set, and every kind of bad input:
 * exit code 2, one "error:" line naming the file or option and the problem, and no output left behind.
 * One training run in {@link #trainOnce()} is shared by the tests that need a model.
 */
class TrainPredictCommandTest {
    @TempDir
    static Path shared;

    @TempDir
    Path tmp;

    static Path data;
    static Path model;
    static Path report;
    static Path csv;
    static Run trained;

    /** What a run printed and returned. */
    record Run(int code, String out, String err) {}

    static Run run(String... args) {
        StringWriter out = new StringWriter(), err = new StringWriter();
        int code = Main.execute(new PrintWriter(out, true), new PrintWriter(err, true), args);
        return new Run(code, out.toString(), err.toString());
    }

    static final String[] FAST = {"--iterations", "2", "--sweeps", "3", "--eval-sweeps", "3", "--quiet", "--threads", "1"};

    static String[] train(Path dataDir, Path out, String... extra) {
        // --unary and --pairwise are left at their default, linear, so that a test may give them once
        List<String> a = new ArrayList<>(List.of("train", "--data", dataDir.toString()));
        a.addAll(List.of(FAST));
        if (out != null) {
            a.addAll(List.of("--output", out.resolve("model").toString(), "--report", out.resolve("r.json").toString(),
                    "--csv", out.resolve("c.csv").toString()));
        }
        a.addAll(List.of(extra));
        return a.toArray(String[]::new);
    }

    @BeforeAll
    static void trainOnce() throws IOException {
        data = shared.resolve("data");
        new DenoisingGenerator().generateTo(data, 2, 2, 12, 12, 5);
        model = shared.resolve("model");
        report = shared.resolve("R.json");
        csv = shared.resolve("C.csv");
        List<String> a = new ArrayList<>(List.of("train", "--data", data.toString(), "--unary", "linear", "--pairwise", "linear"));
        a.addAll(List.of(FAST));
        a.addAll(List.of("--output", model.toString(), "--report", report.toString(), "--csv", csv.toString()));
        trained = run(a.toArray(String[]::new));
    }

    // ------------------------------------------------------------------------------------------
    // happy path

    @Test
    void trainWritesModelReportAndCsv() throws IOException {
        assertEquals(0, trained.code(), trained.err());
        assertTrue(trained.out().contains("final:"), "train prints the final errors on standard output: " + trained.out());

        JsonNode r = new ObjectMapper().readTree(report.toFile());
        JsonNode its = r.get("iterations");
        assertTrue(its != null && its.isArray(), "report needs an 'iterations' array: " + r);
        assertEquals(2, its.size(), "two iterations: " + its);
        for (int k = 0; k < its.size(); k++) {
            JsonNode it = its.get(k);
            for (String key : List.of("iteration", "objective", "train_error", "test_error", "seconds")) {
                assertTrue(it.hasNonNull(key), "iteration " + k + " lacks " + key + ": " + it);
            }
            assertTrue(it.get("objective").isNumber() && Double.isFinite(it.get("objective").asDouble()));
            assertEquals(k + 1, it.get("iteration").asInt());
        }
        // every step of the learner (an L-BFGS fit from the last function, a message-passing sweep)
        // never increases R, so the objective cannot go up
        assertTrue(its.get(1).get("objective").asDouble() <= its.get(0).get("objective").asDouble() + 1e-6, "objective went up: " + its);
        assertTrue(its.get(1).get("seconds").asDouble() >= its.get(0).get("seconds").asDouble(), "seconds are cumulative: " + its);
        JsonNode fin = r.get("final");
        for (String key : List.of("train_error", "test_error", "seconds")) {
            assertTrue(fin != null && fin.hasNonNull(key), "final lacks " + key + ": " + r);
        }
        assertEquals(its.get(1).get("test_error").asDouble(), fin.get("test_error").asDouble());

        List<String> lines = Files.readAllLines(csv);
        assertEquals("iteration,objective,train_error,test_error,seconds,learning_seconds", lines.get(0));
        assertEquals(3, lines.size(), "header + 2 iterations: " + lines);

        CrfModel m = CrfModel.load(model);
        assertEquals(2, m.numLabels());
        assertEquals(2, m.unaryFeatures());
        assertEquals(2, m.pairFeatures());
        assertEquals(2, m.pairTypes().size(), "the generator writes horizontal and vertical edge types");
        // nothing but the model, report and csv (and the data) was left in the folder: no temporaries
        try (Stream<Path> s = Files.list(shared)) {
            List<String> names = s.map(p -> p.getFileName().toString()).sorted().toList();
            assertEquals(List.of("C.csv", "R-confusion-test.png", "R.json", "data", "model"), names);
        }
    }

    /**
     * The report's errors are the model's own: after one iteration, the evaluation engines saw only
     * the final functions, for --eval-sweeps sweeps from zero messages, so the same computation on the
     * saved model must give exactly the reported train and test errors.
     */
    @Test
    void reportedErrorsEqualTheSavedModelsErrors() throws IOException {
        Path out = tmp.resolve("one");
        Files.createDirectories(out);
        List<String> a = new ArrayList<>(Arrays.asList(train(data, out)));
        a.set(a.indexOf("--iterations") + 1, "1");
        Run r = run(a.toArray(String[]::new));
        assertEquals(0, r.code(), r.err());
        JsonNode fin = new ObjectMapper().readTree(out.resolve("r.json").toFile()).get("final");
        CrfModel m = CrfModel.load(out.resolve("model"));
        org.structlr.data.Dataset ds = org.structlr.data.Dataset.load(data);
        double eps = m.eps();
        for (String set : List.of("train", "test")) {
            ExampleBatch b = new ExampleBatch(set.equals("train") ? ds.train() : ds.test(), m.numLabels(), m.pairTypes());
            double err;
            try (org.structlr.inference.MessagePassing mp = b.newEngine(eps)) {
                mp.setPotentials(Potentials.unary(b, m.unary(), eps), Potentials.pairwise(b, m.pair(), eps));
                mp.iterate(3);   // FAST's --eval-sweeps
                err = Potentials.error(b, mp.decode());
            }
            assertEquals(err, fin.get(set + "_error").asDouble(), 1e-12, set + " error");
        }
    }

    @Test
    void evaluatePrintsErrors() {
        Run r = run("evaluate", "--model", model.toString(), "--data", data.toString(), "--iterations", "50", "--quiet", "--threads", "1");
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().matches("(?s).*train error [01]\\.\\d{4} \\(2 examples\\).*"), r.out());
        assertTrue(r.out().matches("(?s).*test error [01]\\.\\d{4} \\(2 examples\\).*"), r.out());
    }

    @Test
    void predictOneFileWritesLabelsAndMarginals() throws IOException {
        Path in = data.resolve("test").resolve("000.npz");
        Path out = tmp.resolve("P.npz");
        Run r = run("predict", "--model", model.toString(), "--input", in.toString(), "--output", out.toString(), "--quiet", "--threads", "1");
        assertEquals(0, r.code(), r.err());
        Map<String, NpyArray> p = Npz.read(out);
        NpyArray labels = p.get("labels"), marg = p.get("marginals");
        assertEquals(NpyArray.DType.INT32, labels.dtype());
        assertArrayEquals(new long[] {144}, labels.shape());
        for (int y : labels.toIntArray()) assertTrue(y == 0 || y == 1, "label " + y);
        assertEquals(NpyArray.DType.FLOAT32, marg.dtype());
        assertArrayEquals(new long[] {144, 2}, marg.shape());
        float[] mu = marg.toFloatArray();
        int[] y = labels.toIntArray();
        for (int i = 0; i < 144; i++) {
            assertTrue(mu[2 * i] >= 0 && mu[2 * i + 1] >= 0);
            assertEquals(1.0, mu[2 * i] + mu[2 * i + 1], 1e-4, "marginals of variable " + i + " sum to 1");
            if (Math.abs(mu[2 * i + 1] - mu[2 * i]) > 1e-3) {
                assertEquals(mu[2 * i + 1] > mu[2 * i] ? 1 : 0, y[i], "label of variable " + i + " is the likelier one");
            }
        }

        // the same labels as the model reloaded and run through Predictor, and as a second run
        CrfModel m = CrfModel.load(model);
        Example ex = ExampleIO.read(in);
        ExampleBatch b = new ExampleBatch(List.of(ex), m.numLabels(), m.pairTypes());
        Predictor.Prediction direct = Predictor.predict(m, b, Predictor.defaultStop(b, 500, 1e-5));
        assertArrayEquals(direct.labels(), y);
        Path out2 = tmp.resolve("P2.npz");
        assertEquals(0, run("predict", "--model", model.toString(), "--input", in.toString(), "--output", out2.toString(), "--quiet").code());
        assertArrayEquals(y, Npz.read(out2).get("labels").toIntArray());
    }

    @Test
    void predictFolderWritesOneFilePerInput() throws IOException {
        Path out = tmp.resolve("preds");
        Run r = run("predict", "--model", model.toString(), "--input", data.resolve("test").toString(), "--output", out.toString(), "--quiet");
        assertEquals(0, r.code(), r.err());
        assertEquals(List.of("000.npz", "001.npz"), list(out));
        for (String f : List.of("000.npz", "001.npz")) {
            Map<String, NpyArray> p = Npz.read(out.resolve(f));
            assertArrayEquals(new long[] {144}, p.get("labels").shape());
            assertArrayEquals(new long[] {144, 2}, p.get("marginals").shape());
        }
    }

    // ------------------------------------------------------------------------------------------
    // bad input: helpers

    static List<String> list(Path dir) throws IOException {
        if (!Files.exists(dir)) return List.of();
        try (Stream<Path> s = Files.list(dir)) {
            return s.map(p -> p.getFileName().toString()).sorted().toList();
        }
    }

    /**
     * The learning curves of two {@code train --report} files are the same run's: {@code rows} rows
     * each, every row's iteration, objective, train and test error equal to the last bit.
     */
    static void assertSameCurve(Path report, Path other, int rows, String what) throws IOException {
        JsonNode a = new ObjectMapper().readTree(report.toFile()).get("iterations"), b = new ObjectMapper().readTree(other.toFile()).get("iterations");
        assertEquals(rows, a.size(), what + ": rows of " + report);
        assertEquals(rows, b.size(), what + ": rows of " + other);
        for (int k = 0; k < rows; k++) {
            for (String key : List.of("iteration", "objective", "train_error", "test_error")) {
                assertEquals(a.get(k).get(key), b.get(k).get(key), what + ": " + key + " of iteration " + (k + 1));
            }
        }
    }

    /** Exit 2, exactly one "error:" line holding every word (case-insensitive), no stack trace. */
    static String assertUsageError(Run r, String... words) {
        assertEquals(2, r.code(), "exit code; stderr: " + r.err() + " stdout: " + r.out());
        List<String> errors = r.err().lines().filter(l -> l.startsWith("error:")).toList();
        assertEquals(1, errors.size(), "one error line: " + r.err());
        assertFalse(r.err().contains("\tat ") || r.err().contains("Exception"), "no stack trace or exception name: " + r.err());
        String line = errors.get(0);
        for (String w : words) {
            assertTrue(line.toLowerCase(Locale.ROOT).contains(w.toLowerCase(Locale.ROOT)), "'" + w + "' missing from: " + line);
        }
        return line;
    }

    /** A copy of the valid data set in a fresh folder. */
    Path copyData(String name) throws IOException {
        Path d = tmp.resolve(name);
        for (String split : List.of("train", "test")) {
            Files.createDirectories(d.resolve(split));
            for (String f : list(data.resolve(split))) Files.copy(data.resolve(split).resolve(f), d.resolve(split).resolve(f));
        }
        return d;
    }

    /** The arrays of a valid generated example. */
    static Map<String, NpyArray> validArrays() {
        return new LinkedHashMap<>(Npz.read(data.resolve("train").resolve("000.npz")));
    }

    /** A data set whose test/001.npz is the valid example changed by {@code change}; returns that file. */
    Path badDataFile(Consumer<Map<String, NpyArray>> change) throws IOException {
        Path d = copyData("bad");
        Map<String, NpyArray> m = validArrays();
        change.accept(m);
        Path f = d.resolve("test").resolve("001.npz");
        Npz.write(f, m);
        return f;
    }

    /** Trains on {@code dataDir} with all three outputs under a fresh folder; checks nothing was written. */
    String assertTrainRefuses(Path dataDir, String... words) throws IOException {
        Path out = tmp.resolve("out");
        Run r = run(train(dataDir, out));
        String line = assertUsageError(r, words);
        assertEquals(List.of(), list(out), "nothing written");
        return line;
    }

    static float[] floats(NpyArray a) { return a.toFloatArray(); }

    // ------------------------------------------------------------------------------------------
    // bad data

    @Test
    void missingDataFolder() throws IOException {
        Path d = tmp.resolve("nowhere");
        assertTrainRefuses(d, d.toString(), "missing folder");
    }

    @Test
    void emptyDataFolder() throws IOException {
        Path d = tmp.resolve("empty");
        Files.createDirectories(d.resolve("train"));
        Files.createDirectories(d.resolve("test"));
        assertTrainRefuses(d, d.resolve("train").toString(), "no .npz");
    }

    @Test
    void missingUnary() throws IOException {
        Path f = badDataFile(m -> m.remove("unary"));
        assertTrainRefuses(f.getParent().getParent(), f.toString(), "missing required array 'unary'");
    }

    @Test
    void pairwiseRowsDifferFromEdgeRows() throws IOException {
        Path f = badDataFile(m -> {
            float[] p = floats(m.get("pairwise"));
            m.put("pairwise", NpyArray.ofFloats(Arrays.copyOf(p, p.length - 2), p.length / 2 - 1, 2));
        });
        assertTrainRefuses(f.getParent().getParent(), f.toString(), "'pairwise' has 263 rows", "'edges' has 264 rows");
    }

    @Test
    void labelOutOfRange() throws IOException {
        Path f = badDataFile(m -> {
            int[] y = m.get("labels").toIntArray();
            y[7] = 5;
            m.put("labels", NpyArray.ofInts(y, y.length));
        });
        assertTrainRefuses(f.getParent().getParent(), f.toString(), "label 5", "out of range");
    }

    @Test
    void nanUnaryFeature() throws IOException {
        Path f = badDataFile(m -> {
            float[] u = floats(m.get("unary"));
            u[9] = Float.NaN;
            m.put("unary", NpyArray.ofFloats(u, u.length / 2, 2));
        });
        assertTrainRefuses(f.getParent().getParent(), f.toString(), "'unary'", "NaN", "row 4, column 1");
    }

    @Test
    void infinitePairwiseFeature() throws IOException {
        Path f = badDataFile(m -> {
            float[] p = floats(m.get("pairwise"));
            p[3] = Float.POSITIVE_INFINITY;
            m.put("pairwise", NpyArray.ofFloats(p, p.length / 2, 2));
        });
        assertTrainRefuses(f.getParent().getParent(), f.toString(), "'pairwise'", "Infinity", "non-finite");
    }

    @Test
    void edgeIndexOutOfRange() throws IOException {
        Path f = badDataFile(m -> {
            int[] e = m.get("edges").toIntArray();
            e[5] = 144;
            m.put("edges", NpyArray.ofInts(e, e.length / 2, 2));
        });
        assertTrainRefuses(f.getParent().getParent(), f.toString(), "edge 2", "144", "out of range");
    }

    @Test
    void repeatedEdge() throws IOException {
        Path f = badDataFile(m -> {
            int[] e = m.get("edges").toIntArray();
            e[2] = e[1]; // edge 1 = (1, 0): edge 0 = (0, 1) reversed
            e[3] = e[0];
            m.put("edges", NpyArray.ofInts(e, e.length / 2, 2));
        });
        assertTrainRefuses(f.getParent().getParent(), f.toString(), "edge 1", "repeated");
    }

    @Test
    void truncatedNpz() throws IOException {
        Path d = copyData("bad");
        Path f = d.resolve("train").resolve("001.npz");
        byte[] b = Files.readAllBytes(f);
        Files.write(f, Arrays.copyOf(b, b.length / 2));
        assertTrainRefuses(d, f.toString(), "truncated");
    }

    @Test
    void notAZipFile() throws IOException {
        Path d = copyData("bad");
        Path f = d.resolve("train").resolve("x.npz");
        Files.writeString(f, "this is not a zip file\n");
        assertTrainRefuses(d, f.toString(), "not a zip");
    }

    // ------------------------------------------------------------------------------------------
    // bad options

    @Test
    void unknownKind() throws IOException {
        Path out = tmp.resolve("out");
        Run r = run(train(data, out, "--unary", "forest"));
        assertUsageError(r, "--unary", "forest", "linear");
        assertEquals(List.of(), list(out));
    }

    @Test
    void cnnNeedsPatchFeaturesAndIsUnaryOnly() throws IOException {
        Path out = tmp.resolve("out");
        assertUsageError(run(train(data, out, "--pairwise", "cnn")), "--pairwise cnn", "unary");
        assertUsageError(run(train(data, out, "--unary", "cnn")), "--unary cnn", "patch features");
        assertEquals(List.of(), list(out));
    }

    @Test
    void unknownOption() throws IOException {
        Path out = tmp.resolve("out");
        Run r = run(train(data, out, "--frobnicate"));
        assertUsageError(r, "--frobnicate");
        assertEquals(List.of(), list(out));
    }

    @Test
    void nonPositiveEps() throws IOException {
        for (String eps : List.of("0", "-1")) {
            Path out = tmp.resolve("out");
            Run r = run(train(data, out, "--eps", eps));
            assertUsageError(r, "--eps", "positive");
            assertEquals(List.of(), list(out));
        }
    }

    @Test
    void negativeIterations() throws IOException {
        Path out = tmp.resolve("out");
        Run r = run("train", "--data", data.toString(), "--iterations", "-3", "--quiet",
                "--output", out.resolve("model").toString(), "--report", out.resolve("r.json").toString());
        assertUsageError(r, "--iterations", "-3");
        assertEquals(List.of(), list(out));
    }

    // ------------------------------------------------------------------------------------------
    // bad models and prediction inputs

    @Test
    void predictWithMissingModel() throws IOException {
        Path m = tmp.resolve("no-model");
        Path out = tmp.resolve("P.npz");
        Run r = run("predict", "--model", m.toString(), "--input", data.resolve("test/000.npz").toString(), "--output", out.toString(), "--quiet");
        assertUsageError(r, m.toString(), "no such model folder");
        assertFalse(Files.exists(out));
    }

    @Test
    void predictWithWrongFeatureWidth() throws IOException {
        Map<String, NpyArray> a = validArrays();
        float[] u = floats(a.get("unary"));
        float[] u3 = new float[u.length / 2 * 3];
        for (int i = 0; i < u.length / 2; i++) {
            u3[3 * i] = u[2 * i];
            u3[3 * i + 1] = u[2 * i + 1];
            u3[3 * i + 2] = 0.5f;
        }
        a.put("unary", NpyArray.ofFloats(u3, u.length / 2, 3));
        Path in = tmp.resolve("in").resolve("wide.npz");
        Npz.write(in, a);
        Path out = tmp.resolve("P.npz");
        Run r = run("predict", "--model", model.toString(), "--input", in.toString(), "--output", out.toString(), "--quiet");
        assertUsageError(r, in.toString(), "3 unary features", "expects 2");
        assertFalse(Files.exists(out));

        // in a folder with a good file first: nothing is written for the good one either
        Files.copy(data.resolve("test/000.npz"), tmp.resolve("in").resolve("a-good.npz"));
        Path outDir = tmp.resolve("preds");
        r = run("predict", "--model", model.toString(), "--input", in.getParent().toString(), "--output", outDir.toString(), "--quiet");
        assertUsageError(r, in.toString(), "3 unary features");
        assertFalse(Files.exists(outDir));
    }

    /** A copy of the trained model folder. */
    Path copyModel() throws IOException {
        Path m = tmp.resolve("model-copy");
        try (Stream<Path> s = Files.walk(model)) {
            for (Path p : (Iterable<Path>) s::iterator) {
                Path q = m.resolve(model.relativize(p).toString());
                if (Files.isDirectory(p)) Files.createDirectories(q);
                else Files.copy(p, q);
            }
        }
        return m;
    }

    static void deleteTree(Path root) throws IOException {
        try (Stream<Path> s = Files.walk(root)) {
            for (Path p : s.sorted((x, y) -> y.compareTo(x)).toList()) Files.delete(p);
        }
    }

    @Test
    void evaluateRefusesACorruptedModelFile() throws IOException {
        List<Path> files;
        try (Stream<Path> s = Files.walk(model)) {
            files = s.filter(Files::isRegularFile).map(model::relativize)
                    .filter(p -> !p.toString().equals(CrfModel.MANIFEST)).sorted().toList();
        }
        assertFalse(files.isEmpty());
        for (Path rel : files) {
            Path m = copyModel();
            Path f = m.resolve(rel.toString());
            byte[] b = Files.readAllBytes(f);
            b[b.length / 2] ^= 0x01;
            Files.write(f, b);
            Path out = tmp.resolve("E.json");
            Run r = run("evaluate", "--model", m.toString(), "--data", data.toString(), "--output", out.toString(), "--quiet");
            assertUsageError(r, f.toString(), "checksum");
            assertFalse(Files.exists(out));
            deleteTree(m);
        }
    }

    @Test
    void evaluateRefusesAChangedManifest() throws IOException {
        Path m = copyModel();
        Path f = m.resolve(CrfModel.MANIFEST);
        String text = Files.readString(f);
        // a one-byte change that keeps the JSON valid: the model claims 3 labels instead of 2
        String changed = text.replaceFirst("\"numLabels\" : 2", "\"numLabels\" : 3");
        assertFalse(text.equals(changed), "manifest has numLabels 2: " + text);
        Files.writeString(f, changed);
        Run r = run("evaluate", "--model", m.toString(), "--data", data.toString(), "--quiet");
        assertUsageError(r, f.toString());
    }

    // ------------------------------------------------------------------------------------------
    // unwritable outputs

    /** Exit 1 or 2 and an "error"/"failed" line naming {@code path}; no stack trace. */
    static void assertWriteFailure(Run r, Path path) {
        assertTrue(r.code() == 1 || r.code() == 2, "exit code " + r.code() + "; " + r.err());
        List<String> lines = r.err().lines().filter(l -> l.startsWith("error:") || l.startsWith("failed:")).toList();
        assertEquals(1, lines.size(), r.err());
        assertTrue(lines.get(0).contains(path.toString()), "names " + path + ": " + lines.get(0));
        assertFalse(r.err().contains("\tat "), r.err());
    }

    @Test
    void trainToAnOutputUnderARegularFile() throws IOException {
        Path file = tmp.resolve("FILE");
        Files.writeString(file, "x");
        Path out = tmp.resolve("out");
        // the model cannot be written
        Run r = run(train(data, null, "--output", file.resolve("model").toString(),
                "--report", out.resolve("r.json").toString(), "--csv", out.resolve("c.csv").toString()));
        assertWriteFailure(r, file.resolve("model"));
        assertEquals(List.of(), list(out));
        assertEquals(List.of("FILE"), list(tmp).stream().filter(n -> !n.equals("out")).toList());
        // the report cannot be written: the model must not be left behind either
        r = run(train(data, null, "--output", out.resolve("model").toString(),
                "--report", file.resolve("r.json").toString(), "--csv", out.resolve("c.csv").toString()));
        assertWriteFailure(r, file.resolve("r.json"));
        assertEquals(List.of(), list(out));
        // nor the csv
        r = run(train(data, null, "--output", out.resolve("model").toString(),
                "--report", out.resolve("r.json").toString(), "--csv", file.resolve("c.csv").toString()));
        assertWriteFailure(r, file.resolve("c.csv"));
        assertEquals(List.of(), list(out));
    }

    @Test
    void trainRefusesToOverwriteAFolderThatIsNotAModel() throws IOException {
        Path folder = tmp.resolve("photos");
        Files.createDirectories(folder);
        Files.writeString(folder.resolve("keep.txt"), "mine");
        Path out = tmp.resolve("out");
        Run r = run(train(data, null, "--output", folder.toString(), "--report", out.resolve("r.json").toString()));
        assertUsageError(r, folder.toString(), "not a structlr model folder");
        assertEquals(List.of("keep.txt"), list(folder));
        assertEquals(List.of(), list(out));
    }

    @Test
    void predictToAnOutputUnderARegularFile() throws IOException {
        Path file = tmp.resolve("FILE");
        Files.writeString(file, "x");
        Run r = run("predict", "--model", model.toString(), "--input", data.resolve("test/000.npz").toString(),
                "--output", file.resolve("P.npz").toString(), "--quiet");
        assertWriteFailure(r, file.resolve("P.npz"));
        assertEquals(List.of("FILE"), list(tmp));
    }
}
