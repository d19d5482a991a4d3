package org.structlr.experiment;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.structlr.data.AtomicFiles;
import org.structlr.learn.IterationRecord;
import org.structlr.learn.LearnListener;
import org.structlr.learn.LearningReport;
import org.structlr.learn.Training;
import org.structlr.oracle.FunctionSpec;
import org.structlr.viz.Plots;

/**
 * One (unary, pairwise) pair trained with several learning schedules on the same data and seed,
 * compared on one time axis (seconds of learning: fits and message passing, not evaluation).
 *
 * <p>Files in its folder: {@code schedules.md} (per schedule: iterations, learning seconds, final
 * objective and errors, and the seconds it took to reach the first schedule's final objective),
 * {@code schedules.csv}, {@code time-to-objective.png}, {@code time-to-error.png} and
 * {@code SCHEDULE/report.json}, {@code SCHEDULE/curve.csv} for each schedule.
 *
 * <p>Fairness: the schedules run one after another in one JVM, and the first to run would pay the
 * JVM's warm-up (class loading, JIT compilation, native library set-up: about 2 s on denoising, all
 * of it in its first iteration). So every schedule first runs {@link #WARMUP_ITERATIONS} iterations
 * untimed and discarded; the timed runs then start from scratch (learning is
 * deterministic, so the warm-up changes no number but the seconds).
 */
public final class ScheduleComparison {

    /** One schedule's run. */
    public record Run(String schedule, List<IterationRecord> curve) {
        public IterationRecord last() { return curve.get(curve.size() - 1); }

        /** Learning seconds at the first iteration whose objective is at most {@code target}; NaN if none. */
        public double secondsToReach(double target) {
            for (IterationRecord r : curve) if (r.objective() <= target) return r.learningSeconds();
            return Double.NaN;
        }

        /** The last evaluated test error (NaN if none). */
        public double finalTestError() {
            for (int k = curve.size() - 1; k >= 0; k--) if (Double.isFinite(curve.get(k).testError())) return curve.get(k).testError();
            return Double.NaN;
        }
    }

    /** Untimed iterations per schedule before the timed runs. */
    public static final int WARMUP_ITERATIONS = 2;

    private ScheduleComparison() {}

    /** Runs every schedule for a few iterations and throws the result away: the timed runs then start warm. */
    static void warmUp(Experiment exp, FunctionSpec unary, FunctionSpec pairwise, List<String> schedules) {
        int n = Math.min(WARMUP_ITERATIONS, exp.settings().iterations());
        if (n == 0) return;
        for (String s : schedules) {
            Training.train(exp.data(), unary, pairwise, exp.settings().withSchedule(s).withIterations(n), exp.threads(), LearnListener.NONE);
        }
    }

    /** Trains the pair once per schedule (in the given order; the first is the reference) and writes the files. */
    public static List<Run> run(Experiment exp, String unary, String pairwise, List<String> schedules, Path out,
                                java.util.function.Function<String, LearnListener> listeners) throws IOException {
        return run(exp, FunctionSpec.unary(unary), FunctionSpec.pairwise(pairwise), schedules, out, listeners);
    }

    /** As {@link #run(Experiment, String, String, List, Path, java.util.function.Function)}, the classes with their options. */
    public static List<Run> run(Experiment exp, FunctionSpec unary, FunctionSpec pairwise, List<String> schedules, Path out,
                                java.util.function.Function<String, LearnListener> listeners) throws IOException {
        if (schedules.isEmpty()) throw new IllegalArgumentException("no schedules");
        warmUp(exp, unary, pairwise, schedules);
        List<Run> runs = new ArrayList<>();
        for (String s : schedules) {
            LearnListener listener = listeners.apply(s);
            Training.Outcome o;
            try {
                o = Training.train(exp.data(), unary, pairwise, exp.settings().withSchedule(s).withEvalEvery(1), exp.threads(), listener);
            } finally {
                if (listener instanceof AutoCloseable c) closeQuietly(c); // progress bars
            }
            if (o.curve().isEmpty()) throw new IllegalArgumentException("no iterations to compare");
            Run r = new Run(s, o.curve());
            runs.add(r);
            LearningReport.writeJson(out.resolve(s).resolve("report.json"), r.curve(), Map.of("schedule", s,
                    "unary", unary.name(), "pairwise", pairwise.name(), "settings", o.model().settings()));
            LearningReport.writeCsv(out.resolve(s).resolve("curve.csv"), r.curve());
        }
        write(exp.name() + " " + unary.name() + "/" + pairwise.name(), runs, out);
        return runs;
    }

    private static void closeQuietly(AutoCloseable c) {
        try {
            c.close();
        } catch (Exception ignored) {
            // a progress bar that cannot close is no reason to lose the comparison
        }
    }

    static void write(String title, List<Run> runs, Path out) throws IOException {
        Map<String, List<IterationRecord>> curves = new LinkedHashMap<>();
        for (Run r : runs) curves.put(r.schedule(), r.curve());
        Plots.againstTime(out.resolve("time-to-objective.png"), title + ": objective against time", "objective R per variable", curves,
                IterationRecord::objective);
        Plots.againstTime(out.resolve("time-to-error.png"), title + ": test error against time", "test error", curves,
                IterationRecord::testError);
        AtomicFiles.writeString(out.resolve("schedules.md"), table(runs) + String.format(Locale.ROOT,
                "%nSeconds of learning (fits and message passing, not evaluation), after an untimed warm-up of %d iterations per schedule in the same JVM.%n",
                WARMUP_ITERATIONS));
        StringBuilder csv = new StringBuilder("schedule,iterations,learning_seconds,final_objective,final_test_error,seconds_to_reference_objective\n");
        double target = runs.get(0).last().objective();
        for (Run r : runs) {
            csv.append(String.format(Locale.ROOT, "%s,%d,%.3f,%.8g,%.6f,%.3f%n", r.schedule(), r.last().iteration(),
                    r.last().learningSeconds(), r.last().objective(), r.finalTestError(), r.secondsToReach(target)));
        }
        AtomicFiles.writeString(out.resolve("schedules.csv"), csv.toString());
    }

    /** The Markdown table: the reference is the first run's final objective and learning time. */
    static String table(List<Run> runs) {
        Run ref = runs.get(0);
        double target = ref.last().objective(), refSeconds = ref.last().learningSeconds();
        StringBuilder sb = new StringBuilder();
        sb.append(String.format(Locale.ROOT, "| schedule | iterations | learning s | final R | final test error | s to R = %.6f (%s's final) | share of %s's time |%n",
                target, ref.schedule(), ref.schedule()));
        sb.append("|---|---:|---:|---:|---:|---:|---:|\n");
        for (Run r : runs) {
            double s = r.secondsToReach(target);
            sb.append(String.format(Locale.ROOT, "| %s | %d | %.1f | %.6f | %.4f | %s | %s |%n", r.schedule(), r.last().iteration(),
                    r.last().learningSeconds(), r.last().objective(), r.finalTestError(),
                    Double.isNaN(s) ? "not reached" : String.format(Locale.ROOT, "%.1f", s),
                    Double.isNaN(s) ? "-" : String.format(Locale.ROOT, "%.2f", s / refSeconds)));
        }
        return sb.toString();
    }
}
