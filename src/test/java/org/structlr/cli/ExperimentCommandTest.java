package org.structlr.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.awt.Dimension;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.stream.Stream;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.structlr.data.Dataset;
import org.structlr.data.Example;
import org.structlr.model.CrfModel;
import org.structlr.viz.FunctionFigure;
import org.structlr.viz.LearningCurveFigure;
import org.structlr.viz.PredictionFigure;

/** {@code structlr experiment}: a reduced Table 1 on a tiny denoising set, a single pair, horses, bad options. */
class ExperimentCommandTest {
    @TempDir
    static Path shared;

    @TempDir
    Path tmp;

    static Path table;
    static Run tableRun;
    static final ObjectMapper JSON = new ObjectMapper();
    static final String[] TINY = {"--train", "2", "--test", "2", "--size", "12", "--iterations", "2", "--sweeps", "5",
            "--eval-sweeps", "5", "--quiet", "--threads", "1"};

    record Run(int code, String out, String err) {}

    static Run run(String... args) {
        StringWriter out = new StringWriter(), err = new StringWriter();
        int code = Main.execute(new PrintWriter(out, true), new PrintWriter(err, true), args);
        return new Run(code, out.toString(), err.toString());
    }

    static String[] args(List<String> head, String[] tail) {
        List<String> a = new ArrayList<>(head);
        a.addAll(List.of(tail));
        return a.toArray(String[]::new);
    }

    @BeforeAll
    static void runTable() {
        table = shared.resolve("table");
        tableRun = run(args(List.of("experiment", "denoise", "--table", "--kinds", "zero,linear", "--out", table.toString()), TINY));
    }

    static BufferedImage png(Path p) throws IOException {
        assertTrue(Files.isRegularFile(p), "missing " + p);
        BufferedImage img = ImageIO.read(p.toFile());
        assertTrue(img != null, "not a decodable image: " + p);
        return img;
    }

    static void assertSize(Path p, int w, int h) throws IOException {
        BufferedImage img = png(p);
        assertEquals(w, img.getWidth(), "width of " + p);
        assertEquals(h, img.getHeight(), "height of " + p);
    }

    /** A CSV table: header row, then one row per unary class. */
    static List<String[]> csv(Path p) throws IOException {
        return Files.readAllLines(p).stream().filter(l -> !l.isBlank()).map(l -> l.split(",", -1)).toList();
    }

    static double finalOf(String pair, String field) throws IOException {
        JsonNode r = JSON.readTree(table.resolve("pairs").resolve(pair).resolve("report.json").toFile());
        assertEquals(2, r.path("iterations").size(), pair);
        return r.path("final").path(field).asDouble(Double.NaN);
    }

    static double lastObjective(String pair) throws IOException {
        JsonNode its = JSON.readTree(table.resolve("pairs").resolve(pair).resolve("report.json").toFile()).path("iterations");
        return its.get(its.size() - 1).path("objective").asDouble(Double.NaN);
    }

    @Test
    void tableRunsAndWritesTheTables() throws IOException {
        assertEquals(0, tableRun.code(), tableRun.err());
        String md = Files.readString(table.resolve("table.md"));
        assertTrue(md.contains("## Test error") && md.contains("## Training error") && md.contains("## Seconds per pair"), md);
        List<String> headers = md.lines().filter(l -> l.startsWith("| unary \\ pairwise |")).toList();
        assertTrue(md.contains("## Test error after 5 iterations") && md.contains("## Objective R per training variable"), md);
        assertTrue(md.contains("## Test mean IoU of the trained model (void pixels left out)"), md);
        assertEquals(6, headers.size(), md);
        for (String h : headers) assertEquals("| unary \\ pairwise | zero | linear |", h);
        assertEquals(6, md.lines().filter(l -> l.startsWith("| zero |")).count(), md);
        assertEquals(6, md.lines().filter(l -> l.startsWith("| linear |")).count(), md);
        // the mean IoU column of results.csv is each pair's report's test metric
        for (String line : Files.readAllLines(table.resolve("results.csv")).subList(1, 5)) {
            String[] f = line.split(",");
            JsonNode rep = JSON.readTree(table.resolve("pairs").resolve(f[0] + "-" + f[1]).resolve("report.json").toFile());
            assertEquals(rep.path("metrics").path("test").path("mean_iou").asDouble(), Double.parseDouble(f[8]), 1e-6, line);
        }
        assertFalse(md.contains("n/a"), md);
        assertTrue(tableRun.out().contains("| unary \\ pairwise | zero | linear |"), "table printed: " + tableRun.out());
    }

    @Test
    void csvNumbersAreTheReportsFinalErrors() throws IOException {
        for (String[] spec : new String[][] {{"test_error.csv", "test_error"}, {"train_error.csv", "train_error"}}) {
            List<String[]> rows = csv(table.resolve(spec[0]));
            assertEquals(3, rows.size(), spec[0]);
            assertEquals(List.of("unary\\pairwise", "zero", "linear"), List.of(rows.get(0)));
            assertEquals("zero", rows.get(1)[0]);
            assertEquals("linear", rows.get(2)[0]);
            for (int r = 1; r <= 2; r++) {
                assertEquals(3, rows.get(r).length);
                for (int c = 1; c <= 2; c++) {
                    double v = Double.parseDouble(rows.get(r)[c]);
                    String pair = rows.get(r)[0] + "-" + rows.get(0)[c];
                    assertEquals(finalOf(pair, spec[1]), v, 1e-6, spec[0] + " " + pair);
                }
            }
            // computed directly: the zero model's beliefs are uniform and decoding breaks ties towards
            // label 0, so its error is the fraction of label-1 pixels of the same generated data
            Dataset d = new org.structlr.data.DenoisingGenerator().generate(2, 2, 12, 12, 1);
            List<Example> set = spec[1].equals("test_error") ? d.test() : d.train();
            double ones = 0, n = 0;
            for (Example ex : set) for (int y : ex.labels()) { ones += y; n++; }
            assertEquals(ones / n, Double.parseDouble(rows.get(1)[1]), 1e-6, spec[0] + " zero-zero");
        }
        List<String[]> secs = csv(table.resolve("seconds.csv"));
        assertEquals(3, secs.size());
        // a pair's seconds (the whole training call, %.2f) cover its learning curve's last time stamp;
        // a tiny pair may take under 5 ms, so no lower bound beyond that
        for (int r = 1; r <= 2; r++) {
            for (int c = 1; c <= 2; c++) {
                String pair = secs.get(r)[0] + "-" + secs.get(0)[c];
                double v = Double.parseDouble(secs.get(r)[c]), learned = finalOf(pair, "seconds");
                assertTrue(v + 0.005 >= learned, "seconds.csv " + pair + ": " + v + " below the report's " + learned);
            }
        }
        List<String[]> all = csv(table.resolve("results.csv"));
        assertEquals(5, all.size());
        for (String[] row : all.subList(1, 5)) {
            assertEquals(finalOf(row[0] + "-" + row[1], "test_error"), Double.parseDouble(row[3]), 1e-6);
            // 2 iterations in this table: "after 5" is the last one; the objective is the last iteration's
            assertEquals(finalOf(row[0] + "-" + row[1], "test_error"), Double.parseDouble(row[7]), 1e-6);
            assertEquals(lastObjective(row[0] + "-" + row[1]), Double.parseDouble(row[6]), 1e-6);
        }
    }

    @Test
    void figuresDecodeToTheExpectedSizes() throws IOException {
        assertSize(table.resolve("curves.png"), 2 * LearningCurveFigure.PANEL_WIDTH, 2 * LearningCurveFigure.PANEL_HEIGHT);
        Dimension d = PredictionFigure.size(2, true); // two test images, with the marginal column
        assertSize(table.resolve("best").resolve("predictions.png"), d.width, d.height);
        assertSize(table.resolve("best").resolve("functions.png"), FunctionFigure.WIDTH, FunctionFigure.HEIGHT);
        CrfModel best = CrfModel.load(table.resolve("best").resolve("model"));
        // the best model is the pair of lowest final test error
        double bestErr = Double.POSITIVE_INFINITY;
        for (String[] row : csv(table.resolve("results.csv")).subList(1, 5)) bestErr = Math.min(bestErr, Double.parseDouble(row[3]));
        String pair = best.settings().get("unary") + "-" + best.settings().get("pairwise");
        assertEquals(bestErr, finalOf(pair, "test_error"), 1e-6);
        try (Stream<Path> s = Files.walk(table)) {
            assertFalse(s.anyMatch(p -> p.getFileName().toString().endsWith(".tmp")), "temporary files left");
        }
    }

    @Test
    void singlePairWritesReportCurveModelAndFigures() throws IOException {
        Path out = tmp.resolve("single");
        Run r = run(args(List.of("experiment", "denoise", "--unary", "linear", "--pairwise", "const", "--unary-option", "tolerance=1e-4",
                "--out", out.toString()), TINY));
        assertEquals(0, r.code(), r.err());
        JsonNode rep = JSON.readTree(out.resolve("report.json").toFile());
        assertEquals("linear", rep.path("unary").asText());
        assertEquals("const", rep.path("pairwise").asText());
        assertEquals(2, rep.path("iterations").size());
        assertTrue(Double.isFinite(rep.path("final").path("test_error").asDouble(Double.NaN)));
        assertTrue(Files.isRegularFile(out.resolve("curve.csv")));
        assertSize(out.resolve("curve.png"), 900, 560);
        Dimension d = PredictionFigure.size(2, true);
        assertSize(out.resolve("predictions.png"), d.width, d.height);
        assertSize(out.resolve("functions.png"), FunctionFigure.WIDTH, FunctionFigure.HEIGHT);
        assertEquals("linear", CrfModel.load(out.resolve("model")).settings().get("unary"));
        assertEquals(1e-4, ((java.util.Map<?, ?>) CrfModel.load(out.resolve("model")).settings().get("unaryOptions")).get("tolerance"));
    }

    /** A tiny horse-like data set: 42 unary features (1, RGB, ...), 3 edge features, two edge types. */
    static Path horses(Path dir) throws IOException {
        SplittableRandom rng = new SplittableRandom(4);
        List<Example> train = new ArrayList<>(), test = new ArrayList<>();
        for (int k = 0; k < 3; k++) {
            int h = 6 + k, w = 7, v = h * w;
            int[] y = new int[v];
            float[] u = new float[v * 42];
            for (int i = 0; i < v; i++) {
                y[i] = (i % w) >= w / 2 ? 1 : 0;
                u[i * 42] = 1f;
                for (int j = 1; j < 42; j++) u[i * 42 + j] = (float) rng.nextDouble();
                u[i * 42 + 1] = y[i] == 1 ? 0.8f : 0.2f;
            }
            List<int[]> e = new ArrayList<>();
            for (int r = 0; r < h; r++) for (int c = 0; c + 1 < w; c++) e.add(new int[] {r * w + c, r * w + c + 1, 0});
            for (int r = 0; r + 1 < h; r++) for (int c = 0; c < w; c++) e.add(new int[] {r * w + c, (r + 1) * w + c, 1});
            int[] edges = new int[2 * e.size()], type = new int[e.size()];
            float[] p = new float[3 * e.size()];
            for (int k2 = 0; k2 < e.size(); k2++) {
                edges[2 * k2] = e.get(k2)[0];
                edges[2 * k2 + 1] = e.get(k2)[1];
                type[k2] = e.get(k2)[2];
                p[3 * k2] = 1f;
                p[3 * k2 + 1] = (float) rng.nextDouble();
                p[3 * k2 + 2] = (float) rng.nextDouble();
            }
            Example ex = Example.builder(u, 42, edges, p, 3).labels(y).numLabels(2).shape(h, w).edgeType(type).build();
            (k < 2 ? train : test).add(ex);
        }
        Dataset.of(train, test, List.of()).write(dir);
        return dir;
    }

    @Test
    void earlyErrorIsTheFifthIterationsOrTheLast() {
        List<org.structlr.learn.IterationRecord> curve = new ArrayList<>();
        for (int i = 1; i <= 7; i++) curve.add(new org.structlr.learn.IterationRecord(i, 1.0 / i, 0.5 / i, 0.4 / i, i));
        var r = new org.structlr.experiment.Experiment.PairResult("linear", "zero",
                new org.structlr.learn.Training.Outcome(null, curve, 0, 0, 0), 7);
        assertEquals(0.4 / 5, r.testErrorAfter(5), 1e-15);
        assertEquals(1.0 / 7, r.finalObjective(), 1e-15);
        var shortRun = new org.structlr.experiment.Experiment.PairResult("linear", "zero",
                new org.structlr.learn.Training.Outcome(null, curve.subList(0, 3), 0, 0, 0), 3);
        assertEquals(0.4 / 3, shortRun.testErrorAfter(5), 1e-15);
    }

    /** An interrupted table (one pair missing) continues with --resume: finished pairs are read, not retrained. */
    @Test
    void resumedTableTrainsOnlyTheMissingPairs() throws IOException {
        assertEquals(0, tableRun.code(), tableRun.err());
        Path copy = tmp.resolve("table");
        try (Stream<Path> s = Files.walk(table)) {
            for (Path p : s.toList()) {
                Path to = copy.resolve(table.relativize(p).toString());
                if (Files.isDirectory(p)) Files.createDirectories(to);
                else Files.copy(p, to);
            }
        }
        deleteTree(copy.resolve("pairs/linear-linear"));
        Files.delete(copy.resolve("table.md"));
        byte[] kept = Files.readAllBytes(copy.resolve("pairs/zero-linear/report.json"));
        Run r = run(args(List.of("experiment", "denoise", "--table", "--kinds", "zero,linear", "--resume", "--out", copy.toString()), TINY));
        assertEquals(0, r.code(), r.err());
        // read back, not rewritten (a retrained pair's report has a new creation time)
        assertTrue(java.util.Arrays.equals(kept, Files.readAllBytes(copy.resolve("pairs/zero-linear/report.json"))));
        assertTrue(Files.isRegularFile(copy.resolve("pairs/linear-linear/model/model.json")));
        // the same seed gives the same numbers: the resumed table equals the uninterrupted one
        assertEquals(Files.readString(table.resolve("test_error.csv")), Files.readString(copy.resolve("test_error.csv")));
        assertEquals(Files.readString(table.resolve("train_error.csv")), Files.readString(copy.resolve("train_error.csv")));
        // other settings than the finished pairs': refused, naming the first such pair
        Run other = run(args(List.of("experiment", "denoise", "--table", "--kinds", "zero,linear", "--resume", "--out", copy.toString(),
                "--eps", "0.2"), TINY));
        assertEquals(2, other.code(), other.err());
        assertTrue(other.err().contains("zero-zero") && other.err().contains("other settings"), other.err());
    }

    /**
     * A finished pair whose model records its fcn options as builds before 0be186f did (every option,
     * also those that do not apply: depth beside arch=dilated, freeze without an own network) is the
     * same settings to --resume: read back, not trained again. A recorded option that applies with
     * another value is still refused as other settings.
     */
    @Test
    void aPairRecordedInTheOlderOptionFormatResumes() throws IOException {
        Path out = tmp.resolve("fcn");
        List<String> head = List.of("experiment", "denoise", "--table", "--kinds", "fcn", "--out", out.toString());
        String[] tail = TINY.clone();
        tail[java.util.Arrays.asList(tail).indexOf("--iterations") + 1] = "1";
        Run r = run(args(head, tail));
        assertEquals(0, r.code(), r.err());
        Path model = out.resolve("pairs/fcn-fcn/model"), report = out.resolve("pairs/fcn-fcn/report.json");
        org.structlr.model.ModelManifests.rewrite(model, m -> {
            for (String role : List.of("unaryOptions", "pairwiseOptions")) {
                com.fasterxml.jackson.databind.node.ObjectNode o = (com.fasterxml.jackson.databind.node.ObjectNode) m.path("settings").path(role);
                assertFalse(o.has("depth") || o.has("freeze"), "this build records neither: " + o);
                o.put("depth", 2).put("freeze", 0);
            }
        });
        assertTrue(((java.util.Map<?, ?>) CrfModel.load(model).settings().get("unaryOptions")).containsKey("depth"), "the older record loads as written");
        byte[] kept = Files.readAllBytes(report);
        Files.delete(out.resolve("table.md"));
        List<String> resume = new ArrayList<>(head);
        resume.add("--resume");
        r = run(args(resume, tail));
        assertEquals(0, r.code(), r.err());
        assertTrue(java.util.Arrays.equals(kept, Files.readAllBytes(report)), "read back, not trained again");
        assertTrue(Files.isRegularFile(out.resolve("table.md")));

        org.structlr.model.ModelManifests.rewrite(model, m -> ((com.fasterxml.jackson.databind.node.ObjectNode) m.path("settings")
                .path("unaryOptions")).put("width", 8));
        r = run(args(resume, tail));
        assertEquals(2, r.code(), r.err());
        assertTrue(r.err().contains("fcn-fcn") && r.err().contains("other settings"), r.err());
        assertTrue(java.util.Arrays.equals(kept, Files.readAllBytes(report)), "nothing rewritten");
    }

    /**
     * Two pairs at once on one thread each (--threads 2 --pairs-at-once 2) give the table of one
     * pair at a time on one thread: the same errors and objectives in every file, every pair's folder.
     */
    @Test
    void pairsAtOnceGiveTheSameTable() throws IOException {
        assertEquals(0, tableRun.code(), tableRun.err());
        Path out = tmp.resolve("at-once");
        String[] twoThreads = TINY.clone();
        twoThreads[twoThreads.length - 1] = "2";                       // TINY ends with --threads 1
        assertEquals("--threads", twoThreads[twoThreads.length - 2]);
        Run r = run(args(List.of("experiment", "denoise", "--table", "--kinds", "zero,linear", "--pairs-at-once", "2",
                "--out", out.toString()), twoThreads));
        assertEquals(0, r.code(), r.err());
        assertEquals(Files.readString(table.resolve("test_error.csv")), Files.readString(out.resolve("test_error.csv")));
        assertEquals(Files.readString(table.resolve("train_error.csv")), Files.readString(out.resolve("train_error.csv")));
        List<String[]> a = csv(table.resolve("results.csv")), b = csv(out.resolve("results.csv"));
        assertEquals(5, b.size());
        for (int i = 0; i < a.size(); i++) {
            for (int col = 0; col < a.get(i).length; col++) {
                if (col == 4) continue;                                // seconds
                assertEquals(a.get(i)[col], b.get(i)[col], "results.csv row " + i + " column " + col);
            }
        }
        for (String pair : List.of("zero-zero", "zero-linear", "linear-zero", "linear-linear")) {
            assertTrue(Files.isRegularFile(out.resolve("pairs").resolve(pair).resolve("report.json")), pair);
        }
        Run bad = run(args(List.of("experiment", "denoise", "--table", "--pairs-at-once", "-1", "--out", tmp.resolve("bad").toString()), TINY));
        assertEquals(2, bad.code(), bad.err());
        assertTrue(bad.err().startsWith("error: option '--pairs-at-once'"), bad.err());
    }

    static void deleteTree(Path dir) throws IOException {
        try (Stream<Path> s = Files.walk(dir)) {
            for (Path p : s.sorted(java.util.Comparator.reverseOrder()).toList()) Files.delete(p);
        }
    }

    @Test
    void horsesSinglePair() throws IOException {
        Path data = horses(tmp.resolve("horses"));
        Path out = tmp.resolve("h");
        Run r = run("experiment", "horses", "--data", data.toString(), "--unary", "linear", "--pairwise", "zero", "--iterations", "1",
                "--sweeps", "3", "--eval-sweeps", "3", "--quiet", "--threads", "1", "--out", out.toString());
        assertEquals(0, r.code(), r.err());
        Dimension d = PredictionFigure.size(1, true);
        assertSize(out.resolve("predictions.png"), d.width, d.height);
        assertFalse(Files.exists(out.resolve("functions.png")), "no Fig. 1 for 42 features");
        assertEquals(2, CrfModel.load(out.resolve("model")).pairTypes().size());
    }

    @Test
    void badOptionsAreUsageErrors() throws IOException {
        Path out = tmp.resolve("bad");
        for (String[] a : new String[][] {
                {"experiment", "denoise", "--table", "--unary", "linear", "--out", out.toString()},
                {"experiment", "denoise", "--table", "--kinds", "zero,zero", "--out", out.toString()},
                {"experiment", "denoise", "--kinds", "zero,forest", "--table", "--out", out.toString()},
                {"experiment", "denoise", "--iterations", "-1", "--out", out.toString()},
                {"experiment", "horses", "--out", out.toString()},
                {"experiment", "denoise", "--resume", "--out", out.toString()},
                {"experiment", "denoise", "--table", "--kinds", "zero,linear", "--unary-option", "tolerance=1", "--out", out.toString()},
                {"experiment", "denoise", "--pairwise", "boost", "--pairwise-option", "hessian=half", "--out", out.toString()},
                {"experiment"}}) {
            Run r = run(a);
            assertEquals(2, r.code(), String.join(" ", a) + ": " + r.err());
            assertEquals(1, r.err().lines().filter(l -> l.startsWith("error:")).count(), r.err());
            assertFalse(r.err().contains("\tat "), r.err());
            assertFalse(Files.exists(out), "nothing written for " + String.join(" ", a));
        }
    }
}
