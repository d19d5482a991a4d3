package org.structlr.metrics;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.structlr.data.Example;
import org.structlr.inference.MessagePassing;
import org.structlr.inference.StopRule;
import org.structlr.learn.Functions;
import org.structlr.learn.IterationRecord;
import org.structlr.learn.LearnListener;
import org.structlr.model.CrfModel;
import org.structlr.model.ExampleBatch;
import org.structlr.model.Potentials;
import org.structlr.model.RegionLayout;
import org.structlr.oracle.ScoreFunction;

/**
 * Validation during learning ({@code train --val-every K --patience P}): every K-th iteration the
 * current functions label the val split (message passing warm-started from the previous check's
 * messages, until the duality gap per variable is below {@link #TOLERANCE} or {@code sweeps}
 * sweeps), and the metrics of {@link ConfusionMatrix} are recorded. The functions of the check with
 * the highest val mean IoU (ties: the earlier one) are kept as the best model; after {@code patience}
 * checks in a row without a better mean IoU, {@link Check#stop()} asks the learner to stop
 * (patience 0: never).
 *
 * <p>In a run: {@link #around} makes the learner's listener that checks and stops
 * ({@link LearnListener#keepLearning}), {@link #checkLast} checks the functions the learner ended
 * with (the learner does not ask the listener after its last iteration), and {@link #keepBest} is
 * the model with the best check's functions.
 *
 * <p>Keeping functions by reference is safe: an oracle continues from a copy of the function it is
 * given, never changing it. The engine is the batch's own ({@link ExampleBatch#newEngine}); close this
 * when done.
 */
public final class Validation implements AutoCloseable {
    /** Duality gap per variable at which a check's message passing stops early. */
    public static final double TOLERANCE = 1e-5;

    private final ExampleBatch val;
    private final double eps;
    private final int every;
    private final int patience;
    private final int sweeps;
    private final MessagePassing engine;
    private final List<Check> history = new ArrayList<>();
    private Check best;
    private ScoreFunction bestUnary;
    private List<ScoreFunction> bestPair;
    private List<ScoreFunction> bestRegions = List.of();
    private final RegionLayout regions;
    private int sinceBest;

    /** One check: the iteration, its val confusion matrix, whether it is the best so far, and whether to stop. */
    public record Check(int iteration, ConfusionMatrix confusion, boolean best, boolean stop, double seconds) {
        public double meanIou() { return confusion.meanIou(); }
    }

    /**
     * @param val      the val examples (labelled; void allowed)
     * @param every    check after every {@code every}-th iteration (and the last: {@link #due})
     * @param patience checks without improvement before stopping; 0 never stops
     * @param sweeps   most sweeps per check
     */
    public Validation(List<Example> val, int numLabels, List<String> pairTypes, double eps, int every, int patience, int sweeps) {
        this(val, numLabels, pairTypes, RegionLayout.NONE, eps, every, patience, sweeps);
    }

    /** As above, the val examples with the region factors {@code regions} puts on each image (those of the model being trained). */
    public Validation(List<Example> val, int numLabels, List<String> pairTypes, RegionLayout regions, double eps, int every, int patience, int sweeps) {
        if (val.isEmpty()) throw new IllegalArgumentException("validation needs val examples");
        if (every < 1) throw new IllegalArgumentException("validation every " + every + " iterations: need at least 1");
        if (patience < 0) throw new IllegalArgumentException("patience must be at least 0, got " + patience);
        if (sweeps < 1) throw new IllegalArgumentException("validation sweeps must be at least 1, got " + sweeps);
        for (Example e : val) if (!e.hasLabels()) throw new IllegalArgumentException(e.name() + ": a val example has no labels");
        // with no labelled pixel every check's mean IoU is NaN, and the first check would be kept as the best
        if (val.stream().allMatch(e -> e.numLabelled() == 0)) {
            throw new IllegalArgumentException("every val variable is void (label " + Example.VOID + "): validation has nothing to score the functions on");
        }
        this.regions = regions;
        this.val = new ExampleBatch(val, numLabels, pairTypes, regions);
        this.eps = eps;
        this.every = every;
        this.patience = patience;
        this.sweeps = sweeps;
        this.engine = this.val.newEngine(eps);
    }

    /** Whether iteration {@code it} of {@code total} is checked: every {@code every}-th and the last. */
    public boolean due(int it, int total) {
        return it % every == 0 || it == total;
    }

    /** Checks the functions after iteration {@code it} (null functions are g = 0). */
    public Check check(int it, ScoreFunction unary, List<ScoreFunction> pair) {
        return check(it, unary, pair, List.of());
    }

    /** As above, with the functions of the region types ({@code regionFunctions}; empty without region factors). */
    public Check check(int it, ScoreFunction unary, List<ScoreFunction> pair, List<ScoreFunction> regionFunctions) {
        long t0 = System.nanoTime();
        if (val.numRegionTypes() == 0) engine.setPotentials(Potentials.unary(val, unary, eps), Potentials.pairwise(val, pair, eps));
        else engine.setPotentials(Potentials.unary(val, unary, eps), Potentials.pairwise(val, pair, eps), Potentials.regions(val, regionFunctions, eps));
        engine.run(new StopRule(sweeps, TOLERANCE * val.graph().numVariables(), 10));
        ConfusionMatrix c = ConfusionMatrix.of(val.labels(), engine.decode(), val.numLabels());
        boolean better = best == null || c.meanIou() > best.meanIou() || (Double.isNaN(best.meanIou()) && !Double.isNaN(c.meanIou()));
        if (better) {
            sinceBest = 0;
            bestUnary = unary;
            bestPair = new ArrayList<>(pair);
            bestRegions = new ArrayList<>(regionFunctions);
        } else {
            sinceBest++;
        }
        Check k = new Check(it, c, better, patience > 0 && sinceBest >= patience, (System.nanoTime() - t0) / 1e9);
        if (better) best = k;
        history.add(k);
        return k;
    }

    /**
     * The listener of a run of {@code totalIterations} iterations: {@code inner}'s, plus a check at
     * every due iteration (told to {@code onCheck}); learning stops when a check says so or
     * {@code inner} does.
     */
    public LearnListener around(LearnListener inner, int totalIterations, Consumer<Check> onCheck) {
        return new LearnListener() {
            @Override
            public void onIteration(IterationRecord record, int total) {
                inner.onIteration(record, total);
            }

            @Override
            public void onProgress(int iteration, int total) {
                inner.onProgress(iteration, total);
            }

            @Override
            public boolean keepLearning(int iteration, Functions functions) {
                boolean keep = inner.keepLearning(iteration, functions);
                if (!due(iteration, totalIterations)) return keep;
                Check c = check(iteration, functions.unary(), functions.pair(), functions.regions());
                onCheck.accept(c);
                return keep && !c.stop();
            }
        };
    }

    /**
     * Checks the model a run ended with, after iteration {@code lastIteration}, unless that
     * iteration was checked already; null then.
     */
    public Check checkLast(int lastIteration, CrfModel trained) {
        if (!history.isEmpty() && history.get(history.size() - 1).iteration() == lastIteration) return null;
        return check(lastIteration, trained.unary(), trained.pair(), trained.regions());
    }

    /**
     * {@code trained} with the best check's functions, and its provenance saying so ("validation":
     * the options, the checks' count, the kept iteration and its val mean IoU, the last iteration
     * learned and whether patience stopped it; "trainError"/"testError" stay those of the last
     * iteration's curve row).
     */
    public CrfModel keepBest(CrfModel trained, int lastIteration) {
        if (best == null) throw new IllegalStateException("no validation check yet");
        Map<String, Object> v = new LinkedHashMap<>();
        v.put("every", every);
        v.put("patience", patience);
        v.put("sweeps", sweeps);
        v.put("checks", history.size());
        v.put("keptIteration", best.iteration());
        v.put("keptValMeanIou", best.meanIou());
        v.put("keptValPixelAccuracy", best.confusion().pixelAccuracy());
        v.put("lastIteration", lastIteration);
        v.put("stoppedEarly", history.get(history.size() - 1).stop());
        Map<String, Object> provenance = new LinkedHashMap<>(trained.provenance());
        provenance.put("validation", v);
        return new CrfModel(trained.numLabels(), trained.eps(), trained.unaryFeatures(), trained.pairFeatures(), trained.pairTypes(),
                bestUnary, bestPair, regions, bestRegions, trained.settings(), provenance, trained.classes());
    }

    /** The checks as report rows (the report's snake_case): iteration, val mean_iou, pixel_accuracy, whether best so far, seconds. */
    public List<Map<String, Object>> toRows() {
        List<Map<String, Object>> rows = new ArrayList<>();
        for (Check c : history) {
            Map<String, Object> r = new LinkedHashMap<>();
            r.put("iteration", c.iteration());
            r.put("mean_iou", c.meanIou());
            r.put("pixel_accuracy", c.confusion().pixelAccuracy());
            r.put("best", c.best());
            r.put("seconds", c.seconds());
            rows.add(r);
        }
        return rows;
    }

    public List<Check> history() { return List.copyOf(history); }

    /** The best check so far, or null before the first. */
    public Check best() { return best; }

    /** The unary function of the best check. */
    public ScoreFunction bestUnary() { return bestUnary; }

    /** The pairwise functions of the best check. */
    public List<ScoreFunction> bestPair() { return bestPair == null ? null : java.util.Collections.unmodifiableList(bestPair); }

    @Override
    public void close() {
        engine.close();
    }
}
