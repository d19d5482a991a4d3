package org.structlr.api;

import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.structlr.learn.IterationRecord;
import org.structlr.learn.LearningReport;
import org.structlr.metrics.Validation;
import org.structlr.viz.LearningCurveFigure;

/**
 * What a training run reports besides the model: the learning curve (one row per evaluated
 * iteration: the objective, the train and test errors, the time), where the time went, and the
 * validation checks. {@link Crf#report()} of a model that {@link CrfTrainer#train} returned.
 * <pre>{@code
 *   Crf crf = CrfTrainer.builder().iterations(5).build().train(CrfData.denoising(2, 2, 16, 1));
 *   TrainingReport report = crf.report().orElseThrow();
 *   for (TrainingReport.Iteration row : report.curve())
 *       System.out.printf("%d: objective %.4f, test error %.4f%n", row.iteration(), row.objective(), row.testError());
 *   System.out.printf("oracle fits %.1f s, message passing %.1f s%n", report.oracleSeconds(), report.messagePassingSeconds());
 *   java.awt.image.BufferedImage plot = report.plot();   // errors and objective against iteration
 * }</pre>
 *
 * @param curve                 the evaluated iterations in order (the first, every
 *                              {@link CrfTrainer.Builder#evalEvery}-th and the last; with a
 *                              resumed run, the checkpoint's rows first)
 * @param oracleSeconds         seconds in the function classes' fits
 * @param messagePassingSeconds seconds of training message passing
 * @param evaluationSeconds     seconds spent evaluating the curve's errors
 * @param validation            the validation checks in order (empty without validation)
 * @param keptIteration         the iteration whose functions the model holds: the last one learned,
 *                              or with validation the check with the highest val mean IoU
 */
public record TrainingReport(List<Iteration> curve, double oracleSeconds, double messagePassingSeconds, double evaluationSeconds,
                             List<Check> validation, int keptIteration) {

    public TrainingReport {
        curve = List.copyOf(curve);
        validation = List.copyOf(validation);
    }

    /**
     * One row of the learning curve: the objective per training variable (the upper bound on the
     * loss that learning minimises, docs/design.md §1), the fraction of wrong training and test
     * labels (NaN when not evaluated: no test examples, or {@code evalSweeps(0)}), seconds since
     * the start, and seconds of learning alone (without the evaluation).
     */
    public record Iteration(int iteration, double objective, double trainError, double testError, double seconds,
                            double learningSeconds) {
        static Iteration of(IterationRecord r) {
            return new Iteration(r.iteration(), r.objective(), r.trainError(), r.testError(), r.seconds(), r.learningSeconds());
        }

        IterationRecord record() {
            return new IterationRecord(iteration, objective, trainError, testError, seconds, learningSeconds);
        }
    }

    /**
     * One validation check ({@link CrfTrainer.Builder#validation}): the val examples labelled by the
     * functions after {@code iteration}; void labels left out of both metrics.
     *
     * @param best whether it is the best check so far (its functions are kept)
     * @param stop whether patience ran out here (learning stopped after this iteration)
     */
    public record Check(int iteration, double pixelAccuracy, double meanIou, boolean best, boolean stop, double seconds) {
        static Check of(Validation.Check c) {
            return new Check(c.iteration(), c.confusion().pixelAccuracy(), c.meanIou(), c.best(), c.stop(), c.seconds());
        }
    }

    /** The last row of the curve (null for a run of 0 iterations). */
    public Iteration last() {
        return curve.isEmpty() ? null : curve.get(curve.size() - 1);
    }

    /** The curve as {@code structlr train --csv} writes it. */
    public void writeCsv(Path file) throws IOException {
        LearningReport.writeCsv(file, records());
    }

    /**
     * The curve as JSON in the layout of {@code structlr train --report} ("iterations", "final",
     * "seconds", and "validation" when there was one), without the model's settings and metrics.
     */
    public void writeJson(Path file) throws IOException {
        Map<String, Object> extra = new LinkedHashMap<>();
        if (!validation.isEmpty()) {
            extra.put("validation", validation.stream().map(c -> {
                Map<String, Object> r = new LinkedHashMap<>();
                r.put("iteration", c.iteration());
                r.put("mean_iou", c.meanIou());
                r.put("pixel_accuracy", c.pixelAccuracy());
                r.put("best", c.best());
                r.put("seconds", c.seconds());
                return r;
            }).toList());
        }
        extra.put("seconds", Map.of("oracle_fits", oracleSeconds, "message_passing", messagePassingSeconds, "evaluation", evaluationSeconds));
        LearningReport.writeJson(file, records(), extra);
    }

    /** The curve as a chart: train and test error against iteration, the objective on a second axis. */
    public BufferedImage plot() {
        return org.knowm.xchart.BitmapEncoder.getBufferedImage(LearningCurveFigure.panel("learning curve", records()));
    }

    private List<IterationRecord> records() {
        return curve.stream().map(Iteration::record).toList();
    }
}
