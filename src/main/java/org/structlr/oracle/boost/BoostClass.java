package org.structlr.oracle.boost;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Set;
import org.structlr.oracle.FunctionClass;
import org.structlr.oracle.Oracle;
import org.structlr.oracle.ScoreFunction;


/** Boosted trees (XGBoost4J), one round of one tree per class per fit. */
public final class BoostClass implements FunctionClass {
    @Override public String name() { return "boost"; }
    @Override public String description() { return "boosted regression trees (XGBoost4J)"; }
    @Override public Oracle create(Context c) { return new BoostOracle(Math.max(1, c.threads()), c.seed()); }
    @Override public Set<String> kinds() { return Set.of(BoostScore.KIND); }
    @Override public ScoreFunction load(Path dir, JsonNode meta) throws IOException { return BoostScore.load(dir, meta); }

    @Override
    public ObjectNode export(ScoreFunction f, ExportTarget t) throws IOException {
        if (!(f instanceof BoostScore bs)) throw new IllegalArgumentException("boost cannot export a '" + f.kind() + "' function");
        return BoosterExport.booster(bs, t);
    }
}
