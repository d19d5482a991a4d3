package org.structlr.extension;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.structlr.oracle.BiasedLogisticLoss;
import org.structlr.oracle.BiasedLogisticProblem;
import org.structlr.oracle.RowTargets;
import org.structlr.oracle.ClassOption;
import org.structlr.oracle.FunctionClass;
import org.structlr.oracle.FunctionExport;
import org.structlr.oracle.nn.NetworkExport;
import org.structlr.oracle.Oracle;
import org.structlr.oracle.ScoreFunction;
import org.structlr.oracle.ScoreFunctions;
import org.structlr.oracle.ZeroScore;

/**
 * A function class that exists only in the test sources, in a package of its own, using nothing
 * but structlr's public types: g(phi, y) = (phi W)_y fitted by a fixed number of gradient steps on
 * the mean biased logistic loss + (lambda / 2) |W|^2. Registered through
 * src/test/resources/META-INF/services/org.structlr.oracle.FunctionClass.
 */
public class GdLinearClass implements FunctionClass {
    public static final String NAME = "gd-linear";

    @Override public String name() { return NAME; }
    @Override public String description() { return "linear, plain gradient descent (a test-only class)"; }

    /** Options a user's class declares like the built-ins: the step (a default per role), the step count, lambda. */
    static final ClassOption<Double> STEP = ClassOption.real("step", 1.0, 0.5, 0, true, "gradient step");
    static final ClassOption<Integer> STEPS = ClassOption.integer("steps", 40, 1, "gradient steps per fit");
    static final ClassOption<Double> LAMBDA = ClassOption.real("lambda", 1e-4, 0, false, "L2 penalty on W");

    @Override public List<ClassOption<?>> options() { return List.of(STEP, STEPS, LAMBDA); }

    @Override
    public Oracle create(Context c) {
        return new GdOracle(c.options().get(STEP), c.options().get(STEPS), c.options().get(LAMBDA));
    }
    @Override public Set<String> kinds() { return Set.of(NAME); }

    @Override
    public ScoreFunction load(Path dir, JsonNode meta) throws IOException {
        JsonNode rows = meta.path("weights");
        int c = meta.path("numClasses").asInt(), d = meta.path("numFeatures").asInt();
        if (!rows.isArray() || rows.size() != d) throw new IOException(dir + ": expected " + d + " weight rows");
        double[][] w = new double[d][c];
        for (int k = 0; k < d; k++) for (int j = 0; j < c; j++) w[k][j] = rows.get(k).get(j).asDouble();
        return new GdScore(w);
    }

    @Override
    public ObjectNode export(ScoreFunction f, ExportTarget t) throws IOException {
        GdScore s = (GdScore) f;
        // A DL4J network of one IDENTITY output layer: W as its weights, bias 0.
        return NetworkExport.network(f, NetworkExport.affineNetwork(s.w, new double[f.numClasses()]), s.w.length, t);
    }

    /** g(phi, y) = sum_k phi_k W[k][y]. */
    static final class GdScore implements ScoreFunction {
        final double[][] w;

        GdScore(double[][] w) {
            this.w = w;
        }

        @Override
        public INDArray scores(INDArray features) {
            int n = (int) features.size(0), d = (int) features.size(1), c = numClasses();
            if (d != w.length) throw new IllegalArgumentException("expected " + w.length + " features, got " + d);
            double[] x = features.castTo(DataType.DOUBLE).dup('c').data().asDouble();
            double[] s = new double[n * c];
            for (int i = 0; i < n; i++) for (int k = 0; k < d; k++) for (int j = 0; j < c; j++) s[i * c + j] += x[i * d + k] * w[k][j];
            return Nd4j.create(s, new long[]{n, c}, DataType.DOUBLE).castTo(features.dataType());
        }

        @Override public int numClasses() { return w[0].length; }
        @Override public int numFeatures() { return w.length; }
        @Override public String kind() { return NAME; }
        @Override public String describe() { return NAME + ": " + w.length + " x " + w[0].length; }

        @Override
        public void save(Path dir) throws IOException {
            ObjectNode meta = ScoreFunctions.meta(this);
            ArrayNode rows = meta.putArray("weights");
            for (double[] row : w) {
                ArrayNode r = rows.addArray();
                for (double v : row) r.add(v);
            }
            ScoreFunctions.writeMeta(dir, meta);
        }
    }

    /** Gradient descent from the previous W (or 0): grad = (1/N) sum_n x_n^T (p_n - onehot(y_n)) + lambda W, the rows' terms by structlr's {@link BiasedLogisticLoss}. */
    static final class GdOracle implements Oracle {
        private final double step, lambda;
        private final int steps;

        GdOracle(double step, int steps, double lambda) {
            this.step = step;
            this.steps = steps;
            this.lambda = lambda;
        }

        @Override
        public ScoreFunction fit(BiasedLogisticProblem problem, ScoreFunction previous) {
            int n = problem.numRows(), d = problem.numFeatures(), c = problem.numClasses();
            double[][] w = new double[d][c];
            if (previous instanceof GdScore prev) {
                for (int k = 0; k < d; k++) w[k] = prev.w[k].clone();
            } else if (previous != null && !(previous instanceof ZeroScore)) {
                throw new IllegalArgumentException("cannot continue from " + previous.kind());
            }
            double[] x = problem.features().castTo(DataType.DOUBLE).dup('c').data().asDouble();
            double[] b = problem.bias().castTo(DataType.DOUBLE).dup('c').data().asDouble();
            RowTargets targets = problem.targets();     // labels (or soft targets, weights): the loss below takes them all
            double[] z = new double[c], p = new double[c], r = new double[c];
            for (int it = 0; it < steps; it++) {
                double[][] grad = new double[d][c];
                for (int i = 0; i < n; i++) {
                    for (int j = 0; j < c; j++) {
                        double s = b[i * c + j];
                        for (int k = 0; k < d; k++) s += x[i * d + k] * w[k][j];
                        z[j] = s;
                    }
                    BiasedLogisticLoss.row(targets, i, z, 0, p, r);     // r = d loss_i / d g(x_i): softmax(g + b) - onehot(y)
                    for (int j = 0; j < c; j++) for (int k = 0; k < d; k++) grad[k][j] += x[i * d + k] * r[j];
                }
                double total = targets.totalWeight();
                for (int k = 0; k < d; k++) for (int j = 0; j < c; j++) w[k][j] -= step * (grad[k][j] / total + lambda * w[k][j]);
            }
            return new GdScore(w);
        }

        @Override
        public String describe() {
            return NAME + ", " + steps + " steps of " + step + ", lambda " + lambda;
        }
    }
}
