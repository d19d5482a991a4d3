package org.structlr.oracle.nn;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import org.structlr.oracle.ClassOption;
import org.structlr.oracle.ClassOptions;
import org.structlr.oracle.FunctionClass;
import org.structlr.oracle.Oracle;
import org.structlr.oracle.ScoreFunction;


/** A small convolutional network on k x k RGB patches (unary only). */
public final class CnnClass implements FunctionClass {
    @Override public String name() { return "cnn"; }
    @Override public String description() { return "convolutional network on k x k RGB patch features (DL4J; unary only)"; }

    @Override
    public void checkApplicable(boolean unary, int featureWidth) {
        if (!unary) throw new IllegalArgumentException("cnn is a unary function class for patch features; edge features are not patches");
        try {
            CnnOracle.patchSide(featureWidth);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("cnn needs patch features (horses-data --features patch): " + e.getMessage(), e);
        }
    }

    @Override
    public Oracle create(Context c) {
        if (!c.unary()) throw new IllegalArgumentException("cnn is a unary function class for patch features");
        ClassOptions o = c.options();
        return new CnnOracle(o.get(STEP), o.get(FILTERS1), o.get(FILTERS2), o.get(DENSE), o.get(EPOCHS), o.get(BATCH), o.get(MOMENTUM),
                c.seed());
    }

    static final ClassOption<Integer> FILTERS1 = ClassOption.integer("filters1", CnnOracle.DEFAULT_FILTERS1, 1, "filters of the first 3x3 convolution");
    static final ClassOption<Integer> FILTERS2 = ClassOption.integer("filters2", CnnOracle.DEFAULT_FILTERS2, 1, "filters of the second 3x3 convolution");
    static final ClassOption<Integer> DENSE = ClassOption.integer("dense", CnnOracle.DEFAULT_DENSE, 1, "units of the dense ReLU layer");
    static final ClassOption<Integer> EPOCHS = ClassOption.integer("epochs", CnnOracle.DEFAULT_EPOCHS, 1, "passes over the rows per oracle fit");
    static final ClassOption<Integer> BATCH = ClassOption.integer("batch", CnnOracle.DEFAULT_BATCH, 1, "rows per mini-batch step");
    static final ClassOption<Double> STEP = ClassOption.real("step", CnnOracle.UNARY_STEP, 0, true,
            "step size (DL4J learning rate = (1 - momentum) * step)");
    static final ClassOption<Double> MOMENTUM = ClassOption.fraction("momentum", CnnOracle.DEFAULT_MOMENTUM, "Nesterov momentum");

    @Override public List<ClassOption<?>> options() { return List.of(FILTERS1, FILTERS2, DENSE, EPOCHS, BATCH, STEP, MOMENTUM); }

    @Override public Set<String> kinds() { return Set.of(CnnScore.KIND); }
    @Override public ScoreFunction load(Path dir, JsonNode meta) throws IOException { return CnnScore.load(dir, meta); }
    @Override public ObjectNode export(ScoreFunction f, ExportTarget t) throws IOException { return NetworkExport.export(f, t); }
}
