package org.structlr.oracle.nn;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Set;
import org.structlr.oracle.FunctionClass;
import org.structlr.oracle.Oracle;
import org.structlr.oracle.ScoreFunction;


/** A one-hidden-layer network (DL4J); the paper's step sizes for unary (0.25) and pairwise (0.05) types. */
public final class MlpClass implements FunctionClass {
    @Override public String name() { return "mlp"; }
    @Override public String description() { return "multi-layer perceptron (DL4J, SGD + momentum)"; }
    @Override public Oracle create(Context c) { return (c.unary() ? MlpOracle.unary() : MlpOracle.pairwise()).withSeed(c.seed()); }
    @Override public Set<String> kinds() { return Set.of(MlpScore.KIND); }
    @Override public ScoreFunction load(Path dir, JsonNode meta) throws IOException { return MlpScore.load(dir, meta); }
    @Override public ObjectNode export(ScoreFunction f, ExportTarget t) throws IOException { return NetworkExport.export(f, t); }
}
