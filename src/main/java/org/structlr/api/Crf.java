package org.structlr.api;

import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.structlr.data.Example;
import org.structlr.model.CrfModel;
import org.structlr.model.ExampleBatch;
import org.structlr.model.ModelExport;
import org.structlr.model.Predictor;
import org.structlr.viz.PredictionFigure;

/**
 * A trained CRF: predicts labels and marginals for one example or a batch, saves and loads
 * (the folder {@code structlr predict} reads), and exports every factor type's function in its
 * ecosystem's format (DL4J or XGBoost, with a manifest).
 * <pre>{@code
 *   CrfData data = CrfData.denoising(2, 2, 16, 1);
 *   Crf crf = CrfTrainer.builder().iterations(3).build().train(data);
 *   List<Prediction> predictions = crf.predict(data.test());        // one batch
 *   System.out.println("test error of the first image: " + predictions.get(0).error());
 *   Path dir = java.nio.file.Files.createTempDirectory("structlr-model-");
 *   crf.save(dir.resolve("model"));                                 // structlr predict --model reads it
 *   Crf again = Crf.load(dir.resolve("model"));
 *   crf.export(dir.resolve("export"));                              // plain DL4J/XGBoost files and a manifest
 *   java.awt.image.BufferedImage figure = again.figure(data.test()); // input, truth, prediction, marginal
 * }</pre>
 */
public final class Crf {
    /** Most message-passing sweeps of a prediction, and the duality gap per variable that stops it sooner. */
    static final int MAX_SWEEPS = 500;
    static final double TOLERANCE = 1e-5;

    private final CrfModel model;
    private final TrainingReport report;

    Crf(CrfModel model) {
        this(model, null);
    }

    Crf(CrfModel model, TrainingReport report) {
        this.model = model;
        this.report = report;
    }

    /** The report of the run that trained this model ({@link CrfTrainer#train}); empty for a model loaded from a folder. */
    public Optional<TrainingReport> report() {
        return Optional.ofNullable(report);
    }

    /** Loads a model folder written by {@link #save} or {@code structlr train --output}. */
    public static Crf load(Path dir) {
        return new Crf(CrfModel.load(dir));
    }

    public void save(Path dir) throws IOException {
        model.save(dir);
    }

    /** Writes the export folder (docs/guide/export.md: the files, the manifest, loading them in plain DL4J). */
    public void export(Path dir) throws IOException {
        ModelExport.export(model, dir);
    }

    public Prediction predict(CrfExample example) {
        return predict(List.of(example)).get(0);
    }

    /** One message-passing run over the whole batch (a disjoint union of the examples' graphs). */
    public List<Prediction> predict(List<CrfExample> examples) {
        List<Example> xs = CrfData.unwrap(examples);
        ExampleBatch batch = model.batch(xs);
        Predictor.Prediction p = Predictor.predict(model, batch, Predictor.defaultStop(batch, MAX_SWEEPS, TOLERANCE));
        float[][] all = p.marginals().castTo(org.nd4j.linalg.api.buffer.DataType.FLOAT).toFloatMatrix();
        List<Prediction> out = new ArrayList<>();
        for (int k = 0; k < xs.size(); k++) {
            int from = batch.variableOffset(k), n = xs.get(k).numVariables();
            int[] labels = java.util.Arrays.copyOfRange(p.labels(), from, from + n);
            float[][] marg = java.util.Arrays.copyOfRange(all, from, from + n);
            out.add(new Prediction(labels, marg, error(xs.get(k), labels, model.numLabels())));
        }
        return out;
    }

    /** The fraction of the labelled variables predicted wrong (void ones do not count); NaN without labels. */
    private static double error(Example ex, int[] labels, int numLabels) {
        if (!ex.hasLabels()) return Double.NaN;
        return org.structlr.metrics.ConfusionMatrix.of(ex.labels(), labels, numLabels).error();
    }

    /**
     * A picture of the predictions on image examples (those with a shape: {@link CrfData#denoising},
     * {@link CrfImages}, {@code .npz} files with a {@code shape}): one row per example with its input,
     * its true labels (when it has them), the predicted labels and the marginal of label 1 (two
     * labels) as grey; more labels in the model's class colours.
     *
     * @throws IllegalArgumentException when an example is not an image
     */
    public BufferedImage figure(List<CrfExample> examples) {
        for (int k = 0; k < examples.size(); k++) {
            Example ex = examples.get(k).example;
            if (!ex.hasShape()) throw new IllegalArgumentException("example " + k + " (" + ex.name() + ") is not an image: it has no shape");
        }
        List<Prediction> ps = predict(examples);
        List<PredictionFigure.Row> rows = new ArrayList<>();
        for (int k = 0; k < examples.size(); k++) {
            Example ex = examples.get(k).example;
            float[][] m = ps.get(k).marginals();
            double[] p1 = model.numLabels() == 2 ? new double[m.length] : null;
            if (p1 != null) for (int i = 0; i < m.length; i++) p1[i] = m[i][1];
            rows.add(PredictionFigure.row(ex, model.numLabels(), ps.get(k).labels(), p1, model.numLabels() > 2 ? model.classes() : null));
        }
        return PredictionFigure.render(rows);
    }

    public int numLabels() { return model.numLabels(); }

    /** The training settings (function classes, iterations, eps, ...) as saved in model.json. */
    public Map<String, Object> settings() { return model.settings(); }

    /** Where the model came from: data hash, errors, library versions, git commit, ... */
    public Map<String, Object> provenance() { return model.provenance(); }

    /** The underlying model, for the internal packages (no compatibility promise). */
    public CrfModel internalModel() { return model; }
}
