package org.structlr.oracle.boost;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import org.structlr.oracle.ClassOption;
import org.structlr.oracle.FunctionClass;
import org.structlr.oracle.Oracle;
import org.structlr.oracle.ScoreFunction;


/** Boosted trees (XGBoost4J), one round of one tree per class per fit. */
public final class BoostClass implements FunctionClass {
    @Override public String name() { return "boost"; }
    @Override public String description() { return "boosted regression trees (XGBoost4J)"; }

    static final ClassOption<String> HESSIAN = ClassOption.choice("hessian", BoostOracle.DEFAULT_HESSIAN.cliName(),
            java.util.Arrays.stream(BoostOracle.Hessian.values()).map(BoostOracle.Hessian::cliName).toList(),
            "per-class Hessian p(1-p) (newton: the Newton step) or 2p(1-p) (xgboost: XGBoost's multi:softprob)");

    @Override public List<ClassOption<?>> options() { return List.of(HESSIAN); }

    @Override
    public Oracle create(Context c) {
        return new BoostOracle(Math.max(1, c.threads()), c.seed(), BoostOracle.Hessian.parse(c.options().get(HESSIAN)));
    }

    @Override public Set<String> kinds() { return Set.of(BoostScore.KIND); }
    @Override public ScoreFunction load(Path dir, JsonNode meta) throws IOException { return BoostScore.load(dir, meta); }

    @Override
    public ObjectNode export(ScoreFunction f, ExportTarget t) throws IOException {
        if (!(f instanceof BoostScore bs)) throw new IllegalArgumentException("boost cannot export a '" + f.kind() + "' function");
        return BoosterExport.booster(bs, t);
    }
}
