package org.structlr.oracle.linear;

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
import org.structlr.oracle.nn.NetworkExport;

/** g(phi, y) = (phi W + b)_y by L-BFGS (or damped Newton). */
public final class LinearClass implements FunctionClass {
    @Override public String name() { return "linear"; }
    @Override public String description() { return "g = phi W + b (L-BFGS)"; }

    static final ClassOption<Double> TOLERANCE = ClassOption.real("tolerance", LinearOracle.GRAD_TOLERANCE, 0, false,
            "stop when max |gradient| of the mean loss is at most this");
    static final ClassOption<Double> REL_DECREASE = ClassOption.real("rel-decrease", LinearOracle.REL_DECREASE, 0, false,
            "stop when a step lowers the loss by at most this fraction");
    static final ClassOption<Integer> MAX_ITERATIONS = ClassOption.integer("max-iterations", LinearOracle.MAX_ITERATIONS, 1,
            "at most this many L-BFGS (or Newton) iterations per fit");

    @Override public List<ClassOption<?>> options() { return List.of(TOLERANCE, REL_DECREASE, MAX_ITERATIONS); }

    @Override
    public Oracle create(Context c) {
        ClassOptions o = c.options();
        return new LinearOracle(o.get(TOLERANCE), o.get(REL_DECREASE), o.get(MAX_ITERATIONS), 12345L, Math.max(1, c.threads()));
    }
    @Override public Set<String> kinds() { return Set.of(LinearScore.KIND); }
    @Override public ScoreFunction load(Path dir, JsonNode meta) throws IOException { return LinearScore.load(dir, meta); }
    @Override public ObjectNode export(ScoreFunction f, ExportTarget t) throws IOException { return NetworkExport.export(f, t); }
}
