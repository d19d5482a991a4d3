package org.structlr.oracle.linear;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Set;
import org.structlr.oracle.FunctionClass;
import org.structlr.oracle.Oracle;
import org.structlr.oracle.ScoreFunction;
import org.structlr.oracle.nn.NetworkExport;

/** g(phi, y) = w_y: one constant per class, by exact Newton steps. */
public final class ConstClass implements FunctionClass {
    @Override public String name() { return "const"; }
    @Override public String description() { return "g = w_y, a constant per class (exact Newton)"; }
    @Override public Oracle create(Context c) { return new ConstantOracle(); }
    @Override public Set<String> kinds() { return Set.of(ConstantScore.KIND); }
    @Override public ScoreFunction load(Path dir, JsonNode meta) throws IOException { return ConstantScore.load(meta); }

    @Override
    public ObjectNode export(ScoreFunction f, ExportTarget t) throws IOException {
        if (!(f instanceof ConstantScore cs)) throw new IllegalArgumentException("const cannot export a '" + f.kind() + "' function");
        return NetworkExport.exportConstant(f, cs.weights(), t);
    }
}
