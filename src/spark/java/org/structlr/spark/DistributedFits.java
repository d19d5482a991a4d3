package org.structlr.spark;

import java.util.List;
import org.apache.spark.api.java.JavaRDD;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.structlr.model.ExampleBatch;
import org.structlr.oracle.BiasedLogisticProblem;
import org.structlr.oracle.LinearLoss;
import org.structlr.oracle.LinearOracle;
import org.structlr.oracle.Oracle;
import org.structlr.oracle.ScoreFunction;
import org.structlr.oracle.ZeroOracle;
import org.structlr.oracle.ZeroScore;

/**
 * The oracle step over rows that stay in the partitions. A factor type's rows are those of every
 * training block, in block order (the single-machine row order): {@code type} -1 is the unary
 * type, t >= 0 the pairwise type t.
 *
 * <p>Linear: the mean biased logistic loss and its gradient are one Spark job per L-BFGS evaluation,
 * summed on the driver in block order ({@link #sumInBlockOrder}; MLlib's pattern otherwise; Spark's LogisticRegression has no per-row offset), the
 * L-BFGS itself is the single-machine oracle's, on the driver. Zero: nothing to fit. Every other
 * class (constant, MLP, boosted trees, CNN): the rows are gathered on the driver and fitted by the
 * single-machine oracle (not yet distributed; see docs/wave2/spark.md).
 */
final class DistributedFits {
    private DistributedFits() {}

    static ScoreFunction fit(Oracle oracle, JavaRDD<Block> blocks, int type, int classes, int featureDim, ScoreFunction previous) {
        if (oracle instanceof ZeroOracle) return new ZeroScore(classes);
        if (oracle instanceof LinearOracle linear) return fitLinear(linear, blocks, type, classes, featureDim, previous);
        return oracle.fit(gather(blocks, type, classes), previous);
    }

    private static ScoreFunction fitLinear(LinearOracle oracle, JavaRDD<Block> blocks, int type, int c, int d, ScoreFunction previous) {
        JavaRDD<Block> train = blocks.filter(b -> !b.test);
        double n = rowCount(train, type);
        int m = d * c;
        return oracle.fit(d, c, DataType.FLOAT, previous, (w, grad, hess) -> {
            // sums over blocks of [loss, gradient, Hessian] (LinearLoss on each block's rows), then the means
            boolean second = hess != null;
            double[] sums = sumInBlockOrder(train.map(b -> new Indexed(b.index, lossSums(b, type, w, d, c, second))).collect());
            for (int k = 0; k < m; k++) grad[k] = sums[1 + k] / n;
            if (second) for (int k = 0; k < m * m; k++) hess[k] = sums[1 + m + k] / n;
            return sums[0] / n;
        });
    }

    private static double rowCount(JavaRDD<Block> train, int type) {
        return train.map(b -> (double) labels(b.batch(), type).length).reduce(Double::sum);
    }

    /** A block's partial sums, tagged with the block. */
    record Indexed(int block, double[] values) implements java.io.Serializable {}

    /**
     * The sum of the blocks' partial sums, added in block order on the driver. Not Spark's
     * treeAggregate or reduce: they add task results in the order tasks finish, so the last bits of
     * a sum (and then every later iteration) would depend on timing and on which executor died;
     * this way a rerun or a recomputed partition gives the same model bit for bit. The driver
     * receives one vector per block (the linear class's D * C gradient: small).
     */
    static double[] sumInBlockOrder(List<Indexed> parts) {
        List<Indexed> sorted = parts.stream().sorted((a, b) -> Integer.compare(a.block(), b.block())).toList();
        double[] s = sorted.get(0).values().clone();
        for (int p = 1; p < sorted.size(); p++) {
            double[] v = sorted.get(p).values();
            for (int k = 0; k < s.length; k++) s[k] += v[k];
        }
        return s;
    }

    /**
     * One block's rows of the type: [loss, gradient (m), Hessian (m x m, when {@code second})] summed
     * over its rows, by the single-machine {@link LinearLoss} (which gives means) times the row count.
     */
    static double[] lossSums(Block b, int type, double[] w, int d, int c, boolean second) {
        ExampleBatch batch = b.batch();
        int[] y = labels(batch, type);
        int n = y.length, m = d * c;
        double[] out = new double[1 + m + (second ? m * m : 0)];
        if (n == 0) return out;
        BiasedLogisticProblem p = new BiasedLogisticProblem(features(batch, type), y,
                Nd4j.create(bias(b, type, c), new long[] {n, c}, DataType.FLOAT), c);
        double[] g = new double[m], h = second ? new double[m * m] : null;
        out[0] = LinearLoss.of(p, 1).valueGradientHessian(w, g, h) * n;
        for (int k = 0; k < m; k++) out[1 + k] = g[k] * n;
        if (second) for (int k = 0; k < m * m; k++) out[1 + m + k] = h[k] * n;
        return out;
    }

    /** Every training block's rows of the type on the driver, in block order. */
    static BiasedLogisticProblem gather(JavaRDD<Block> blocks, int type, int classes) {
        List<Rows> parts = blocks.filter(b -> !b.test).map(b -> Rows.of(b, type, classes)).collect();
        int n = 0, d = -1;
        for (Rows r : parts) {
            n += r.labels.length;
            d = r.dim;
        }
        float[] x = new float[n * d], bias = new float[n * classes];
        int[] y = new int[n];
        int at = 0;
        for (Rows r : parts.stream().sorted((a, b) -> Integer.compare(a.block, b.block)).toList()) {
            System.arraycopy(r.features, 0, x, at * d, r.features.length);
            System.arraycopy(r.bias, 0, bias, at * classes, r.bias.length);
            System.arraycopy(r.labels, 0, y, at, r.labels.length);
            at += r.labels.length;
        }
        return new BiasedLogisticProblem(Nd4j.create(x, new long[] {n, d}, DataType.FLOAT), y,
                Nd4j.create(bias, new long[] {n, classes}, DataType.FLOAT), classes);
    }

    /** One block's rows of one type as plain arrays (what a gather moves). */
    record Rows(int block, int dim, float[] features, int[] labels, float[] bias) implements java.io.Serializable {
        static Rows of(Block b, int type, int classes) {
            ExampleBatch batch = b.batch();
            INDArray x = DistributedFits.features(batch, type);
            return new Rows(b.index, (int) x.size(1), x.castTo(DataType.FLOAT).dup('c').reshape(-1).toFloatVector(),
                    DistributedFits.labels(batch, type), DistributedFits.bias(b, type, classes));
        }
    }

    static INDArray features(ExampleBatch batch, int type) {
        return type < 0 ? batch.unaryFeatures() : batch.pairFeatures(type);
    }

    static int[] labels(ExampleBatch batch, int type) {
        return type < 0 ? batch.labels() : batch.pairLabels(type);
    }

    /** The rows' biases: the unary bias, or the pairwise bias of the type's edges (edge order to type order). */
    static float[] bias(Block b, int type, int classes) {
        if (type < 0) return b.unaryBias;
        ExampleBatch batch = b.batch();
        if (batch.numPairTypes() == 1) return b.pairBias;
        int[] edges = batch.edgesOfType(type);
        float[] out = new float[edges.length * classes];
        for (int k = 0; k < edges.length; k++) System.arraycopy(b.pairBias, edges[k] * classes, out, k * classes, classes);
        return out;
    }
}
