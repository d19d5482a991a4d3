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

/** g(phi, y) = (phi W + b)_y by L-BFGS (or damped Newton). */
public final class LinearClass implements FunctionClass {
    @Override public String name() { return "linear"; }
    @Override public String description() { return "g = phi W + b (L-BFGS)"; }
    @Override public Oracle create(Context c) { return new LinearOracle(Math.max(1, c.threads())); }
    @Override public Set<String> kinds() { return Set.of(LinearScore.KIND); }
    @Override public ScoreFunction load(Path dir, JsonNode meta) throws IOException { return LinearScore.load(dir, meta); }
    @Override public ObjectNode export(ScoreFunction f, ExportTarget t) throws IOException { return NetworkExport.export(f, t); }
}
