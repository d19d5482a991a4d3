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


/** A one-hidden-layer network (DL4J); the paper's step sizes for unary (0.25) and pairwise (0.05) types. */
public final class MlpClass implements FunctionClass {
    @Override public String name() { return "mlp"; }
    @Override public String description() { return "multi-layer perceptron (DL4J, SGD + momentum)"; }

    static final ClassOption<Integer> HIDDEN = ClassOption.integer("hidden", MlpOracle.DEFAULT_HIDDEN, 1, "tanh units of the hidden layer");
    static final ClassOption<Integer> EPOCHS = ClassOption.integer("epochs", MlpOracle.DEFAULT_EPOCHS, 1, "passes over the rows per oracle fit");
    static final ClassOption<Integer> BATCH = ClassOption.integer("batch", MlpOracle.DEFAULT_BATCH, 1, "rows per mini-batch step");
    static final ClassOption<Double> STEP = ClassOption.real("step", MlpOracle.UNARY_STEP, MlpOracle.PAIRWISE_STEP, 0, true,
            "the paper's step size (DL4J learning rate = (1 - momentum) * step)");
    static final ClassOption<Double> MOMENTUM = ClassOption.fraction("momentum", MlpOracle.DEFAULT_MOMENTUM, "Nesterov momentum");

    @Override public List<ClassOption<?>> options() { return List.of(HIDDEN, EPOCHS, BATCH, STEP, MOMENTUM); }

    @Override
    public Oracle create(Context c) {
        ClassOptions o = c.options();
        return new MlpOracle(o.get(STEP), o.get(HIDDEN), o.get(EPOCHS), o.get(BATCH), o.get(MOMENTUM), c.seed());
    }
    @Override public Set<String> kinds() { return Set.of(MlpScore.KIND); }
    @Override public ScoreFunction load(Path dir, JsonNode meta) throws IOException { return MlpScore.load(dir, meta); }
    @Override public ObjectNode export(ScoreFunction f, ExportTarget t) throws IOException { return NetworkExport.export(f, t); }
}
