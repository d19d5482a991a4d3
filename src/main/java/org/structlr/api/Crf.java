package org.structlr.api;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.structlr.data.Example;
import org.structlr.model.CrfModel;
import org.structlr.model.ExampleBatch;
import org.structlr.model.ModelExport;
import org.structlr.model.Predictor;

/**
 * A trained CRF: predicts labels and marginals for one example or a batch, saves and loads
 * (the folder {@code structlr predict} reads), and exports every factor type's function in its
 * ecosystem's format (DL4J or XGBoost, with a manifest).
 */
public final class Crf {
    /** Most message-passing sweeps of a prediction, and the duality gap per variable that stops it sooner. */
    static final int MAX_SWEEPS = 500;
    static final double TOLERANCE = 1e-5;

    private final CrfModel model;

    Crf(CrfModel model) {
        this.model = model;
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

    public int numLabels() { return model.numLabels(); }

    /** The training settings (function classes, iterations, eps, ...) as saved in model.json. */
    public Map<String, Object> settings() { return model.settings(); }

    /** Where the model came from: data hash, errors, library versions, git commit, ... */
    public Map<String, Object> provenance() { return model.provenance(); }

    /** The underlying model, for the internal packages (no compatibility promise). */
    public CrfModel internalModel() { return model; }
}
