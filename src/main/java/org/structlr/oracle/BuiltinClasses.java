package org.structlr.oracle;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;

/**
 * The function classes structlr ships, registered like any other through
 * {@code META-INF/services/org.structlr.oracle.FunctionClass}: zero, const, linear, mlp, boost, cnn.
 */
public final class BuiltinClasses {
    /** The CLI names in the order help texts and tables list them. */
    static final List<String> ORDER = List.of("zero", "const", "linear", "mlp", "boost", "cnn", "fcn");

    private BuiltinClasses() {}

    static int order(FunctionClass c) {
        int i = ORDER.indexOf(c.name());
        return i < 0 ? ORDER.size() : i;
    }

    /** Exports a function that ignores its features or is a DL4J network, as a DL4J network. */
    static ObjectNode exportAsNetwork(ScoreFunction f, FunctionClass.ExportTarget t) throws IOException {
        int in = f.numFeatures() >= 0 ? f.numFeatures() : Math.max(1, t.featureWidth());
        if (f instanceof ZeroScore) return FunctionExport.network(f, FunctionExport.constantNetwork(new double[f.numClasses()], in), in, t);
        if (f instanceof ConstantScore cs) return FunctionExport.network(f, FunctionExport.constantNetwork(cs.weights(), in), in, t);
        if (f instanceof NetworkScore ns) return FunctionExport.network(f, FunctionExport.plainNetwork(ns), in, t);
        throw new IllegalArgumentException("cannot export a '" + f.kind() + "' function as a DL4J network");
    }

    /** g = 0: the pairwise type is left out (the unary-only baseline). */
    public static final class Zero implements FunctionClass {
        @Override public String name() { return "zero"; }
        @Override public String description() { return "g = 0 (the factor type is left out)"; }
        @Override public Oracle create(Context c) { return new ZeroOracle(); }
        @Override public Set<String> kinds() { return Set.of(ZeroScore.KIND); }
        @Override public ScoreFunction load(Path dir, JsonNode meta) { return ZeroScore.load(meta); }
        @Override public ObjectNode export(ScoreFunction f, ExportTarget t) throws IOException { return exportAsNetwork(f, t); }
    }

    /** g(phi, y) = w_y: one constant per class, by exact Newton steps. */
    public static final class Const implements FunctionClass {
        @Override public String name() { return "const"; }
        @Override public String description() { return "g = w_y, a constant per class (exact Newton)"; }
        @Override public Oracle create(Context c) { return new ConstantOracle(); }
        @Override public Set<String> kinds() { return Set.of(ConstantScore.KIND); }
        @Override public ScoreFunction load(Path dir, JsonNode meta) throws IOException { return ConstantScore.load(meta); }
        @Override public ObjectNode export(ScoreFunction f, ExportTarget t) throws IOException { return exportAsNetwork(f, t); }
    }

    /** g(phi, y) = (phi W + b)_y by L-BFGS. */
    public static final class Linear implements FunctionClass {
        @Override public String name() { return "linear"; }
        @Override public String description() { return "g = phi W + b (L-BFGS)"; }
        @Override public Oracle create(Context c) { return new LinearOracle(Math.max(1, c.threads())); }
        @Override public Set<String> kinds() { return Set.of(LinearScore.KIND); }
        @Override public ScoreFunction load(Path dir, JsonNode meta) throws IOException { return LinearScore.load(dir, meta); }
        @Override public ObjectNode export(ScoreFunction f, ExportTarget t) throws IOException { return exportAsNetwork(f, t); }
    }

    /** A one-hidden-layer network (DL4J); the paper's step sizes for unary (0.25) and pairwise (0.05) types. */
    public static final class Mlp implements FunctionClass {
        @Override public String name() { return "mlp"; }
        @Override public String description() { return "multi-layer perceptron (DL4J, SGD + momentum)"; }
        @Override public Oracle create(Context c) { return (c.unary() ? MlpOracle.unary() : MlpOracle.pairwise()).withSeed(c.seed()); }
        @Override public Set<String> kinds() { return Set.of(MlpScore.KIND); }
        @Override public ScoreFunction load(Path dir, JsonNode meta) throws IOException { return MlpScore.load(dir, meta); }
        @Override public ObjectNode export(ScoreFunction f, ExportTarget t) throws IOException { return exportAsNetwork(f, t); }
    }

    /** Boosted trees (XGBoost4J), one round of one tree per class per fit. */
    public static final class Boost implements FunctionClass {
        @Override public String name() { return "boost"; }
        @Override public String description() { return "boosted regression trees (XGBoost4J)"; }
        @Override public Oracle create(Context c) { return new BoostOracle(Math.max(1, c.threads()), c.seed()); }
        @Override public Set<String> kinds() { return Set.of(BoostScore.KIND); }
        @Override public ScoreFunction load(Path dir, JsonNode meta) throws IOException { return BoostScore.load(dir, meta); }

        @Override
        public ObjectNode export(ScoreFunction f, ExportTarget t) throws IOException {
            if (!(f instanceof BoostScore bs)) throw new IllegalArgumentException("boost cannot export a '" + f.kind() + "' function");
            return FunctionExport.booster(bs, t);
        }
    }

    /** A small convolutional network on k x k RGB patches (unary only). */
    public static final class Cnn implements FunctionClass {
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
        @Override public ObjectNode export(ScoreFunction f, ExportTarget t) throws IOException { return exportAsNetwork(f, t); }
    }
}
