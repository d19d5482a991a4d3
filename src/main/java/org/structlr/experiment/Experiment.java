package org.structlr.experiment;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.structlr.learn.DataHashes;
import org.structlr.data.AtomicFiles;
import org.structlr.data.BadInputException;
import org.structlr.data.Dataset;
import org.structlr.data.Example;
import org.structlr.learn.IterationRecord;
import org.structlr.learn.LearnListener;
import org.structlr.learn.LearnSettings;
import org.structlr.learn.LearningReport;
import org.structlr.learn.Training;
import org.structlr.model.RegionLayout;
import org.structlr.metrics.ConfusionMatrix;
import org.structlr.metrics.Evaluation;
import org.structlr.oracle.FunctionSpec;
import org.structlr.model.CrfModel;
import org.structlr.model.ExampleBatch;
import org.structlr.model.Predictor;
import org.structlr.viz.ConfusionFigure;
import org.structlr.viz.FunctionFigure;
import org.structlr.viz.LearningCurveFigure;
import org.structlr.viz.PredictionFigure;

/**
 * The paper's experiments on one data set (docs/design.md §1): one (unary, pairwise) pair of function
 * classes, or every pair of a list of classes (Table 1), with the learning curves (Fig. 2), the
 * example predictions (Fig. 3) and, for one-feature data such as the denoising set, the learned
 * functions (Fig. 1). Every file is written atomically; notebooks call this class directly.
 *
 * <p>Files of {@link #runPair} in its folder: {@code report.json} (the learning curve and final
 * errors, {@link LearningReport}, and the trained model's test and val metrics: pixel accuracy,
 * per-class IoU, mean IoU, confusion matrix, void left out), {@code report-confusion-SPLIT.png},
 * {@code curve.csv}, {@code curve.png}, {@code model/},
 * {@code predictions.png} (when the test examples are images) and {@code functions.png} (when the
 * features are the one-feature rows [1, phi]).
 *
 * <p>Files of {@link #runTable}: {@code table.md} (final test error, training error, seconds, test
 * error after {@value #EARLY_ITERATION} iterations and final objective; rows the unary class,
 * columns the pairwise class), {@code test_error.csv},
 * {@code train_error.csv}, {@code seconds.csv} (same layout), {@code results.csv} (one line per
 * pair), {@code curves.png} (one panel per pair, same layout), {@code pairs/UNARY-PAIRWISE/model/}
 * and {@code report.json} (written as soon as that pair is done; {@code --resume} reads them
 * back), and for the pair of lowest final test error {@code best/} holding its model,
 * {@code predictions.png} and {@code functions.png}.
 */
public final class Experiment {
    /** The early iteration of the tables' convergence view ("test error after 5 iterations"). */
    public static final int EARLY_ITERATION = 5;
    /** Test examples drawn in the prediction figure. */
    public static final int FIGURE_EXAMPLES = 3;
    /** Prediction for the figures: at most this many sweeps, or a duality gap below 1e-5 per variable. */
    public static final int PREDICT_SWEEPS = 200;

    private final String name;
    private final Dataset data;
    private final LearnSettings settings;
    private final int threads;
    private final int pairsAtOnce;
    private final RegionLayout regions;

    /** Told about the progress of a table. */
    public interface Listener extends LearnListener {
        default void pairStarted(int index, int total, String unary, String pairwise) {}

        default void pairFinished(int index, int total, PairResult result) {}

        /** A pair read back from an earlier run (--resume) instead of trained; pairFinished follows. */
        default void pairResumed(int index, int total, PairResult result) {}

        @Override
        default void onIteration(IterationRecord record, int totalIterations) {}

        Listener NONE = new Listener() {};
    }

    /**
     * One trained pair, how long it took (seconds of the whole {@link Training#train} call) and its
     * model's confusion matrices on the test and val splits ({@link Evaluation}; empty when not measured).
     */
    public record PairResult(String unary, String pairwise, Training.Outcome outcome, double seconds, Map<String, ConfusionMatrix> metrics) {
        public PairResult {
            metrics = Map.copyOf(metrics);
        }

        /** A pair whose metrics were not measured. */
        public PairResult(String unary, String pairwise, Training.Outcome outcome, double seconds) {
            this(unary, pairwise, outcome, seconds, Map.of());
        }

        /** Mean IoU of the trained model on the test split, void left out; NaN when not measured. */
        public double testMeanIou() {
            ConfusionMatrix c = metrics.get("test");
            return c == null ? Double.NaN : c.meanIou();
        }

        public String name() { return unary + "-" + pairwise; }
        public String label() { return unary + "/" + pairwise; }
        public List<IterationRecord> curve() { return outcome.curve(); }
        public double finalTrainError() { return curve().isEmpty() ? Double.NaN : curve().get(curve().size() - 1).trainError(); }
        public double finalTestError() { return curve().isEmpty() ? Double.NaN : curve().get(curve().size() - 1).testError(); }
        public double finalObjective() { return curve().isEmpty() ? Double.NaN : curve().get(curve().size() - 1).objective(); }
        /** Iterations run: the last curve row's (the last iteration is always evaluated); 0 for an empty curve. */
        public int iterations() { return curve().isEmpty() ? 0 : curve().get(curve().size() - 1).iteration(); }
        /**
         * Test error of the latest evaluated iteration at or before {@code iteration} (the curve's first
         * row when none is; the last when the run is shorter); NaN for an empty curve.
         */
        public double testErrorAfter(int iteration) {
            if (curve().isEmpty()) return Double.NaN;
            IterationRecord at = curve().get(0);
            for (IterationRecord r : curve()) if (r.iteration() <= iteration) at = r;
            return at.testError();
        }
    }

    /** Every pair of a table, rows = unary classes, columns = pairwise classes, in {@code kinds} order. */
    public record TableResult(List<String> kinds, List<PairResult> pairs, PairResult best) {
        public PairResult get(String unary, String pairwise) {
            for (PairResult p : pairs) if (p.unary().equals(unary) && p.pairwise().equals(pairwise)) return p;
            throw new IllegalArgumentException("no pair " + unary + "/" + pairwise);
        }
    }

    /**
     * @param name     the data set's name in titles and reports ("denoise", "horses")
     * @param data     training and test examples
     * @param settings learning settings of every pair
     * @param threads  threads for the oracles
     */
    public Experiment(String name, Dataset data, LearnSettings settings, int threads) {
        this(name, data, settings, threads, 1);
    }

    /**
     * As {@link #Experiment(String, Dataset, LearnSettings, int)}, with {@link #runTable} training up
     * to {@code pairsAtOnce} pairs at the same time, each on {@code threads} oracle threads. The
     * pairs are independent (own oracles, engines and seeds), so the table is the same as one pair
     * at a time with the same per-pair threads. The inference engines' and ND4J's thread counts are
     * process-wide: the caller sets them per pair ({@code Engines.setThreads}).
     */
    public Experiment(String name, Dataset data, LearnSettings settings, int threads, int pairsAtOnce) {
        this(name, data, settings, threads, pairsAtOnce, RegionLayout.NONE);
    }

    /** As above, every pair's model with the region factors of {@code regions} beside its pairs ({@code train --regions}). */
    public Experiment(String name, Dataset data, LearnSettings settings, int threads, int pairsAtOnce, RegionLayout regions) {
        if (pairsAtOnce < 1) throw new IllegalArgumentException("pairs at once must be at least 1, got " + pairsAtOnce);
        this.regions = regions;
        this.name = name;
        this.data = data;
        this.settings = settings;
        this.threads = threads;
        this.pairsAtOnce = pairsAtOnce;
    }

    public String name() { return name; }
    public Dataset data() { return data; }
    public LearnSettings settings() { return settings; }
    public int threads() { return threads; }
    public int pairsAtOnce() { return pairsAtOnce; }
    public RegionLayout regions() { return regions; }

    /** Trains one pair, the classes' options at their defaults; writes nothing. */
    public PairResult train(String unary, String pairwise, LearnListener listener) {
        return train(FunctionSpec.unary(unary), FunctionSpec.pairwise(pairwise), listener);
    }

    /** Trains one pair (classes with their options) and measures its model on the test and val splits; writes nothing. */
    public PairResult train(FunctionSpec unary, FunctionSpec pairwise, LearnListener listener) {
        long t0 = System.nanoTime();
        Training.Outcome o = Training.train(data, unary, pairwise, regions, settings, org.structlr.learn.RowWeights.NONE, threads, listener, null,
                org.structlr.learn.StateSink.NONE);
        double seconds = (System.nanoTime() - t0) / 1e9;
        return new PairResult(unary.name(), pairwise.name(), o, seconds, Evaluation.splits(o.model(), data, List.of("test", "val")));
    }

    /** Trains one pair, the classes' options at their defaults, and writes its files into {@code out} (see the class comment). */
    public PairResult runPair(String unary, String pairwise, Path out, LearnListener listener) throws IOException {
        return runPair(FunctionSpec.unary(unary), FunctionSpec.pairwise(pairwise), out, listener);
    }

    /** Trains one pair (classes with their options) and writes its files into {@code out} (see the class comment). */
    public PairResult runPair(FunctionSpec unary, FunctionSpec pairwise, Path out, LearnListener listener) throws IOException {
        PairResult r = train(unary, pairwise, listener);
        writeReport(r, out.resolve("report.json"));
        ConfusionFigure.writeBeside(out.resolve("report.json"), name + " " + r.label(), r.metrics(), r.outcome().model().classes());
        LearningReport.writeCsv(out.resolve("curve.csv"), r.curve());
        LearningCurveFigure.single(out.resolve("curve.png"), name + " " + r.label() + ": error and objective", r.curve());
        r.outcome().model().save(out.resolve("model"));
        writeFigures(r, out);
        return r;
    }

    /** Trains every (unary, pairwise) pair of {@code kinds}, unary class outer, and writes the table's files into {@code out}. */
    public TableResult runTable(List<String> kinds, Path out, Listener listener) throws IOException {
        return runTable(kinds, out, listener, false);
    }

    /**
     * As {@link #runTable(List, Path, Listener)}; with {@code resume}, a pair whose folder
     * {@code pairs/UNARY-PAIRWISE/} already holds a report and a model made from the same data and
     * settings is read back instead of trained again (a table interrupted after k pairs continues
     * at pair k + 1). A pair folder made from other data or settings is bad input (named).
     */
    public TableResult runTable(List<String> kinds, Path out, Listener listener, boolean resume) throws IOException {
        if (kinds.isEmpty()) throw new IllegalArgumentException("no function classes");
        if (kinds.stream().distinct().count() != kinds.size()) throw new IllegalArgumentException("function classes repeat: " + kinds);
        String dataHash = resume ? DataHashes.dataHash(data) : null;
        int total = kinds.size() * kinds.size();
        PairResult[] done = new PairResult[total];
        if (pairsAtOnce <= 1 || total == 1) {
            for (int index = 0; index < total; index++) done[index] = tablePair(kinds, index, out, listener, resume, dataHash);
        } else {
            runConcurrently(kinds, done, out, new SynchronizedListener(listener), resume, dataHash);
        }
        PairResult best = null;
        for (PairResult r : done) if (best == null || better(r, best)) best = r;   // in table order: ties keep the earlier pair
        TableResult table = new TableResult(List.copyOf(kinds), List.of(done), best);
        writeTable(table, out);
        LinkedHashMap<String, List<IterationRecord>> curves = new LinkedHashMap<>();
        for (PairResult r : done) curves.put(r.label(), r.curve());
        LearningCurveFigure.grid(out.resolve("curves.png"), curves, kinds.size());
        best.outcome().model().save(out.resolve("best").resolve("model"));
        writeFigures(best, out.resolve("best"));
        return table;
    }

    /** Pair {@code index} of the table (unary class outer): read back (resume) or trained, its files written as soon as it is done. */
    private PairResult tablePair(List<String> kinds, int index, Path out, Listener listener, boolean resume, String dataHash) throws IOException {
        int total = kinds.size() * kinds.size();
        String u = kinds.get(index / kinds.size()), p = kinds.get(index % kinds.size());
        Path dir = out.resolve("pairs").resolve(u + "-" + p);
        listener.pairStarted(index, total, u, p);
        PairResult r = resume ? readPair(u, p, dir, dataHash) : null;
        if (r != null) {
            listener.pairResumed(index, total, r);
        } else {
            r = train(u, p, listener);
            // each pair's files as soon as it is done: a crash loses at most the pairs in progress
            r.outcome().model().save(dir.resolve("model"));
            writeReport(r, dir.resolve("report.json"));
        }
        listener.pairFinished(index, total, r);
        return r;
    }

    /**
     * The pairs on {@link #pairsAtOnce} threads, the slowest kinds first (so that no long pair starts
     * last while the other threads idle). Why: on a 2-core machine one pair leaves a core partly
     * idle (the MLP's mini-batches of small ND4J ops, the serial parts of each iteration), two pairs
     * at once on one thread each keep both busy. The first failure stops the pairs not yet started
     * and is rethrown.
     */
    private void runConcurrently(List<String> kinds, PairResult[] done, Path out, Listener listener, boolean resume, String dataHash)
            throws IOException {
        Integer[] order = new Integer[done.length];
        for (int i = 0; i < order.length; i++) order[i] = i;
        int k = kinds.size();
        java.util.Arrays.sort(order, java.util.Comparator.comparingInt(
                (Integer i) -> -(expectedCost(kinds.get(i / k)) + expectedCost(kinds.get(i % k)))));   // stable: table order within a cost
        java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(Math.min(pairsAtOnce, done.length), r -> {
            Thread t = new Thread(r, "structlr-pair");
            t.setDaemon(true);
            return t;
        });
        try {
            List<java.util.concurrent.Future<?>> running = new ArrayList<>();
            for (int index : order) {
                running.add(pool.submit(() -> {
                    done[index] = tablePair(kinds, index, out, listener, resume, dataHash);
                    return null;
                }));
            }
            for (java.util.concurrent.Future<?> f : running) {
                try {
                    f.get();
                } catch (java.util.concurrent.ExecutionException e) {
                    pool.shutdownNow();
                    Throwable c = e.getCause();
                    if (c instanceof IOException io) throw io;
                    if (c instanceof RuntimeException re) throw re;
                    if (c instanceof Error er) throw er;
                    throw new IllegalStateException(c);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException("interrupted while training the table's pairs", e);
                }
            }
        } finally {
            pool.shutdownNow();
        }
    }

    /** A rough rank of a function class's cost per fit (measured on the horses' Table 1), for the order of concurrent pairs. */
    static int expectedCost(String kind) {
        return switch (org.structlr.oracle.FunctionClasses.canonical(kind)) {
            case "zero", "const" -> 0;
            case "boost" -> 1;
            case "linear" -> 2;
            default -> 3;                         // mlp and the network classes
        };
    }

    /** Passes every call on under one lock: the listener of a table whose pairs run at once. */
    private record SynchronizedListener(Listener inner) implements Listener {
        @Override
        public synchronized void pairStarted(int index, int total, String unary, String pairwise) {
            inner.pairStarted(index, total, unary, pairwise);
        }

        @Override
        public synchronized void pairFinished(int index, int total, PairResult result) {
            inner.pairFinished(index, total, result);
        }

        @Override
        public synchronized void pairResumed(int index, int total, PairResult result) {
            inner.pairResumed(index, total, result);
        }

        @Override
        public synchronized void onIteration(IterationRecord record, int totalIterations) {
            inner.onIteration(record, totalIterations);
        }

        @Override
        public synchronized void onProgress(int iteration, int totalIterations) {
            inner.onProgress(iteration, totalIterations);
        }
    }

    /**
     * A finished pair read back from its folder (report.json written last, so its presence means the
     * model is complete); null when the folder holds no report. Refuses a pair of other settings or data.
     */
    private PairResult readPair(String u, String p, Path dir, String dataHash) {
        Path report = dir.resolve("report.json");
        if (!Files.isRegularFile(report)) return null;
        CrfModel model = CrfModel.load(dir.resolve("model"));
        Map<String, Object> want = Training.settingsMap(FunctionSpec.unary(u), FunctionSpec.pairwise(p), settings);
        Map<String, Object> had = new java.util.LinkedHashMap<>(model.settings());
        had.putIfAbsent("engine", "auto"); // pairs trained before --engine ran Engines' choice
        had.putIfAbsent("voidForm", org.structlr.learn.VoidForm.RECORDED_BEFORE.label()); // pairs trained before --void-form
        // the options as this build records them: defaults where none were recorded, those that do not apply left out
        for (String role : List.of("unary", "pairwise")) {
            try {
                had.put(role + "Options", FunctionSpec.recorded(String.valueOf(had.get(role)), role.equals("unary"),
                        new ObjectMapper().valueToTree(had.get(role + "Options"))).options().values());
            } catch (IllegalArgumentException e) {
                // not options this build reads: compared as recorded, and refused below as other settings
            }
        }
        if (!sameSettings(want, had)) {
            throw new BadInputException(dir, "was trained with other settings " + model.settings() + ", not " + want
                    + ": --resume continues a table with the same settings; use another --out");
        }
        if (!dataHash.equals(model.provenance().get("dataHash"))) {
            throw new BadInputException(dir, "was trained on other data (data hash differs): --resume continues a table on the same data; use another --out");
        }
        List<IterationRecord> curve = LearningReport.readCurve(report);
        double seconds = LearningReport.readExtraNumber(report, "seconds", "total");
        Map<String, Object> prov = model.provenance();
        Training.Outcome o = new Training.Outcome(model, curve, num(prov.get("secondsInOracleFits")),
                num(prov.get("secondsInMessagePassing")), num(prov.get("secondsInEvaluation")));
        return new PairResult(u, p, o, seconds, readMetrics(report));
    }

    /** The confusion matrices of a report's "metrics" (empty when it has none). */
    private static Map<String, ConfusionMatrix> readMetrics(Path report) {
        try {
            JsonNode metrics = new ObjectMapper().readTree(report.toFile()).path("metrics");
            Map<String, ConfusionMatrix> out = new LinkedHashMap<>();
            for (Iterator<Map.Entry<String, JsonNode>> it = metrics.fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> e = it.next();
                out.put(e.getKey(), ConfusionMatrix.fromCounts(new ObjectMapper().treeToValue(e.getValue().path("confusion"), long[][].class)));
            }
            return out;
        } catch (IOException | IllegalArgumentException e) {
            throw new BadInputException(report, "cannot read its metrics: " + e.getMessage().lines().findFirst().orElse(""));
        }
    }

    /** Settings maps compared by value, numbers as doubles (JSON reads 1 and 1L alike). */
    private static boolean sameSettings(Map<String, Object> a, Map<String, Object> b) {
        if (!a.keySet().equals(b.keySet())) return false;
        for (String k : a.keySet()) {
            Object x = a.get(k), y = b.get(k);
            if (x instanceof Number nx && y instanceof Number ny) {
                if (nx.doubleValue() != ny.doubleValue()) return false;
            } else if (!String.valueOf(x).equals(String.valueOf(y))) {
                return false;
            }
        }
        return true;
    }

    private static double num(Object o) {
        return o instanceof Number n ? n.doubleValue() : Double.NaN;
    }

    /** Lower final test error wins (NaN loses); ties keep the earlier pair. */
    private static boolean better(PairResult a, PairResult b) {
        double x = a.finalTestError(), y = b.finalTestError();
        if (Double.isNaN(x)) return false;
        return Double.isNaN(y) || x < y;
    }

    private void writeReport(PairResult r, Path file) throws IOException {
        Map<String, Object> extra = new LinkedHashMap<>();
        extra.put("experiment", name);
        extra.put("unary", r.unary());
        extra.put("pairwise", r.pairwise());
        extra.put("settings", r.outcome().model().settings());
        extra.put("provenance", r.outcome().model().provenance());
        if (!r.metrics().isEmpty()) {
            extra.put("classes", r.outcome().model().classes().toMap());
            extra.put("metrics", Evaluation.toMap(r.metrics(), r.outcome().model().classes()));
        }
        Map<String, Object> secs = new LinkedHashMap<>();
        secs.put("total", r.seconds());
        secs.put("oracle_fits", r.outcome().fitSeconds());
        secs.put("message_passing", r.outcome().passingSeconds());
        secs.put("evaluation", r.outcome().evalSeconds());
        extra.put("seconds", secs);
        LearningReport.writeJson(file, r.curve(), extra);
    }

    /**
     * predictions.png (image-shaped test examples), pair-strength.png (the learned pairwise strength on
     * the first of them) and functions.png (one-feature models) into {@code dir}.
     */
    public void writeFigures(PairResult r, Path dir) throws IOException {
        CrfModel model = r.outcome().model();
        List<PredictionFigure.Row> rows = predictionRows(model, FIGURE_EXAMPLES);
        if (!rows.isEmpty()) PredictionFigure.write(dir.resolve("predictions.png"), rows);
        // fcn2: the learned pairwise strength on the first image test example (two or more labels, a pairwise function)
        List<Example> pool = data.test().isEmpty() ? data.train() : data.test();
        Example first = pool.stream().filter(Example::hasShape).findFirst().orElse(null);
        if (first != null && model.numLabels() >= 2 && model.pair().stream().anyMatch(f -> f != null)) {
            org.structlr.viz.PairStrengthFigure.write(dir.resolve("pair-strength.png"), name + " " + r.label(), model, first);
        }
        if (data.unaryDim() == 2 && data.pairDim() == 2 && FunctionFigure.applicable(model)) {
            FunctionFigure.write(dir.resolve("functions.png"), name + " " + r.label(), FunctionFigure.evaluate(model, FunctionFigure.grid(101)));
        }
    }

    /**
     * Predictions for the first {@code n} image-shaped test examples (training examples when there
     * is no test set): labels and the marginal of label 1; empty when no example has a shape.
     */
    public List<PredictionFigure.Row> predictionRows(CrfModel model, int n) {
        List<Example> pool = data.test().isEmpty() ? data.train() : data.test();
        List<Example> chosen = pool.stream().filter(Example::hasShape).limit(n).toList();
        List<PredictionFigure.Row> rows = new ArrayList<>();
        if (chosen.isEmpty()) return rows;
        ExampleBatch batch = model.batch(chosen);
        Predictor.Prediction p = Predictor.predict(model, batch, Predictor.defaultStop(batch, PREDICT_SWEEPS, 1e-5));
        INDArray marg = p.marginals();
        for (int k = 0; k < chosen.size(); k++) {
            int off = batch.variableOffset(k), v = chosen.get(k).numVariables();
            int[] y = java.util.Arrays.copyOfRange(p.labels(), off, off + v);
            double[] m1 = null;
            if (model.numLabels() >= 2) {
                m1 = new double[v];
                for (int i = 0; i < v; i++) m1[i] = marg.getDouble(off + i, 1);
            }
            rows.add(PredictionFigure.row(chosen.get(k), model.numLabels(), y, m1, model.classes()));
        }
        return rows;
    }

    // ------------------------------------------------------------------------------------------
    // the table files

    /** What one cell of a table shows. */
    private interface Cell {
        double of(PairResult r);
    }

    static void writeTable(TableResult t, Path out) throws IOException {
        AtomicFiles.writeString(out.resolve("test_error.csv"), csv(t, PairResult::finalTestError, "%.6f"));
        AtomicFiles.writeString(out.resolve("train_error.csv"), csv(t, PairResult::finalTrainError, "%.6f"));
        AtomicFiles.writeString(out.resolve("seconds.csv"), csv(t, PairResult::seconds, "%.2f"));
        StringBuilder all = new StringBuilder("unary,pairwise,train_error,test_error,seconds,iterations,objective,test_error_after_"
                + EARLY_ITERATION + ",test_mean_iou\n");
        for (PairResult r : t.pairs()) {
            all.append(String.format(Locale.ROOT, "%s,%s,%s,%s,%.2f,%d,%s,%s,%s%n", r.unary(), r.pairwise(),
                    num(r.finalTrainError(), "%.6f"), num(r.finalTestError(), "%.6f"), r.seconds(), r.iterations(),
                    num(r.finalObjective(), "%.6f"), num(r.testErrorAfter(EARLY_ITERATION), "%.6f"), num(r.testMeanIou(), "%.6f")));
        }
        AtomicFiles.writeString(out.resolve("results.csv"), all.toString());
        StringBuilder md = new StringBuilder();
        md.append("# Final errors per (unary, pairwise) function class\n\n");
        md.append("Rows: unary class; columns: pairwise class. Error = fraction of wrong labels after the last learning iteration.\n");
        PairResult b = t.best();
        if (b != null) {
            md.append(String.format(Locale.ROOT, "Lowest test error: %s/%s, %s.%n", b.unary(), b.pairwise(),
                    num(b.finalTestError(), "%.4f")));
        }
        md.append("\n## Test error\n\n").append(markdown(t, PairResult::finalTestError, "%.4f"));
        md.append("\n## Training error\n\n").append(markdown(t, PairResult::finalTrainError, "%.4f"));
        md.append("\n## Test mean IoU of the trained model (void pixels left out)\n\n").append(markdown(t, PairResult::testMeanIou, "%.4f"));
        md.append("\n## Seconds per pair\n\n").append(markdown(t, PairResult::seconds, "%.1f"));
        // the paper's claims are about speed of convergence and objective too, not only final errors
        md.append("\n## Test error after ").append(EARLY_ITERATION).append(" iterations (how fast each pair learns)\n\n")
                .append(markdown(t, r -> r.testErrorAfter(EARLY_ITERATION), "%.4f"));
        md.append("\n## Objective R per training variable after the last iteration\n\n")
                .append(markdown(t, PairResult::finalObjective, "%.4f"));
        AtomicFiles.writeString(out.resolve("table.md"), md.toString());
    }

    private static String num(double v, String fmt) {
        return Double.isFinite(v) ? String.format(Locale.ROOT, fmt, v) : "";
    }

    private static String csv(TableResult t, Cell cell, String fmt) {
        StringBuilder sb = new StringBuilder("unary\\pairwise");
        for (String p : t.kinds()) sb.append(',').append(p);
        sb.append('\n');
        for (String u : t.kinds()) {
            sb.append(u);
            for (String p : t.kinds()) sb.append(',').append(num(cell.of(t.get(u, p)), fmt));
            sb.append('\n');
        }
        return sb.toString();
    }

    private static String markdown(TableResult t, Cell cell, String fmt) {
        StringBuilder sb = new StringBuilder("| unary \\ pairwise |");
        for (String p : t.kinds()) sb.append(' ').append(p).append(" |");
        sb.append("\n|---|");
        for (int k = 0; k < t.kinds().size(); k++) sb.append("---:|");
        sb.append('\n');
        for (String u : t.kinds()) {
            sb.append("| ").append(u).append(" |");
            for (String p : t.kinds()) {
                String v = num(cell.of(t.get(u, p)), fmt);
                sb.append(' ').append(v.isEmpty() ? "n/a" : v).append(" |");
            }
            sb.append('\n');
        }
        return sb.toString();
    }
}
