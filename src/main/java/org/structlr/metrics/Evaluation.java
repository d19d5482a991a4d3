package org.structlr.metrics;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.structlr.data.BadInputException;
import org.structlr.data.ClassTable;
import org.structlr.data.Dataset;
import org.structlr.data.Example;
import org.structlr.model.CrfModel;
import org.structlr.model.ExampleBatch;
import org.structlr.model.Predictor;

/** A model's confusion matrix on labelled examples: prediction (as {@code predict} runs it), then the counts. */
public final class Evaluation {
    /** The prediction of reports (train --report, experiment): as {@code evaluate} and {@code predict} by default. */
    public static final int SWEEPS = 500;
    public static final double TOLERANCE = 1e-5;

    private Evaluation() {}

    /**
     * The confusion matrix of every named split of {@code data} that has examples (in the order
     * given), predicted with {@link #SWEEPS} and {@link #TOLERANCE}.
     */
    public static Map<String, ConfusionMatrix> splits(CrfModel model, Dataset data, List<String> names) {
        Map<String, ConfusionMatrix> out = new LinkedHashMap<>();
        for (String s : names) {
            List<Example> ex = data.split(s);
            if (!ex.isEmpty()) out.put(s, confusion(model, ex, SWEEPS, TOLERANCE));
        }
        return out;
    }

    /** {split: {@link ConfusionMatrix#toMap}} for a JSON report. */
    public static Map<String, Object> toMap(Map<String, ConfusionMatrix> bySplit, ClassTable classes) {
        Map<String, Object> out = new LinkedHashMap<>();
        for (Map.Entry<String, ConfusionMatrix> e : bySplit.entrySet()) out.put(e.getKey(), e.getValue().toMap(classes));
        return out;
    }

    /**
     * Predicts {@code examples} as one batch, message passing until the duality gap per variable is
     * below {@code tolerance} or {@code maxSweeps} sweeps, and counts the labelled variables.
     *
     * @throws BadInputException naming an example without labels or with other feature widths
     */
    public static ConfusionMatrix confusion(CrfModel model, List<Example> examples, int maxSweeps, double tolerance) {
        return confusion(model, examples, maxSweeps, tolerance, org.structlr.inference.engines.EngineChoice.AUTO);
    }

    /** As {@link #confusion(CrfModel, List, int, double)} on the engine {@code engine} names. */
    public static ConfusionMatrix confusion(CrfModel model, List<Example> examples, int maxSweeps, double tolerance,
                                            org.structlr.inference.engines.EngineChoice engine) {
        for (Example e : examples) {
            if (!e.hasLabels()) throw new BadInputException(e.name() + ": has no labels to evaluate against");
            Predictor.checkCompatible(model, e);
        }
        ExampleBatch b = model.batch(examples);
        Predictor.Prediction p = Predictor.predict(model, b, Predictor.defaultStop(b, maxSweeps, tolerance), engine);
        return ConfusionMatrix.of(b.labels(), p.labels(), model.numLabels());
    }
}
