package org.structlr.oracle.linear;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Set;
import org.structlr.oracle.FunctionClass;
import org.structlr.oracle.Oracle;
import org.structlr.oracle.ScoreFunction;
import org.structlr.oracle.ZeroScore;
import org.structlr.oracle.nn.NetworkExport;

/** g = 0: the pairwise type is left out (the unary-only baseline). */
public final class ZeroClass implements FunctionClass {
    @Override public String name() { return "zero"; }
    @Override public String description() { return "g = 0 (the factor type is left out)"; }
    @Override public Oracle create(Context c) { return new ZeroOracle(); }
    @Override public Set<String> kinds() { return Set.of(ZeroScore.KIND); }
    @Override public ScoreFunction load(Path dir, JsonNode meta) { return ZeroScore.load(meta); }

    @Override
    public ObjectNode export(ScoreFunction f, ExportTarget t) throws IOException {
        return NetworkExport.exportConstant(f, new double[f.numClasses()], t);
    }
}
