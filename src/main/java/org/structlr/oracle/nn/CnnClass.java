package org.structlr.oracle.nn;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Set;
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
        return CnnOracle.unary().withSeed(c.seed());
    }

    @Override public Set<String> kinds() { return Set.of(CnnScore.KIND); }
    @Override public ScoreFunction load(Path dir, JsonNode meta) throws IOException { return CnnScore.load(dir, meta); }
    @Override public ObjectNode export(ScoreFunction f, ExportTarget t) throws IOException { return NetworkExport.export(f, t); }
}
