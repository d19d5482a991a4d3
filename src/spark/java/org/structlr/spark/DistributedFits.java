package org.structlr.spark;

import java.util.List;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.broadcast.Broadcast;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.structlr.model.ExampleBatch;
import org.structlr.oracle.nn.AveragedNetworkOracle;
import org.structlr.oracle.BiasedLogisticProblem;
import org.structlr.oracle.boost.BoostOracle;
import org.structlr.oracle.linear.ConstantOracle;
import org.structlr.oracle.fcn.FcnDataParallel;
import org.structlr.oracle.fcn.FcnOracle;
import org.structlr.oracle.nn.NetworkState;
import org.structlr.oracle.linear.LinearLoss;
import org.structlr.oracle.linear.LinearOracle;
import org.structlr.oracle.Oracle;
import org.structlr.oracle.ScoreFunction;
import org.structlr.oracle.linear.ZeroOracle;
import org.structlr.oracle.ZeroScore;

/**
 * The oracle step over rows that stay in the partitions. A factor type's rows are those of every
 * training block, in block order (the single-machine row order): {@code type} -1 is the unary
 * type, t >= 0 the pairwise type t.
 *
 * <p>Linear: the mean biased logistic loss and its gradient are one Spark job per L-BFGS evaluation,
 * summed on the driver in block order ({@link #sumInBlockOrder}; MLlib's pattern otherwise; Spark's LogisticRegression has no per-row offset), the
 * L-BFGS itself is the single-machine oracle's, on the driver. Zero: nothing to fit. Constant:
 * per-block aggregates feeding the single-machine Newton ({@link #fitConstant}). MLP and CNN:
 * synchronous parameter averaging ({@link #fitAveraged}). The fully convolutional classes:
 * averaging once per epoch with the descent check on the summed loss ({@link FcnFits}). Boosted
 * trees: the single-machine round distributed over XGBoost's own collective, one worker per
 * training block in a barrier stage ({@link DistributedBoost}; docs/wave2/sparkboost.md; not
 * xgboost4j-spark, see docs/wave2/sparkfit.md); the rows are gathered on the driver only with
 * {@code spark.structlr.boost.onDriver=true} (for comparison).
 */
final class DistributedFits {
    private DistributedFits() {}

    /** {@code boostBins}: the run's bins of boosted fits ({@link DistributedBoost.Bins}), one per learning run. */
    static ScoreFunction fit(Oracle oracle, DistributedBoost.Bins boostBins, JavaRDD<Block> blocks, int type, int classes, int featureDim,
                             ScoreFunction previous) {
        if (oracle instanceof ZeroOracle) return new ZeroScore(classes);
        if (oracle instanceof LinearOracle linear) return fitLinear(linear, blocks, type, classes, featureDim, previous);
        if (oracle instanceof ConstantOracle constant) return fitConstant(constant, blocks, type, classes, previous);
        if (oracle instanceof AveragedNetworkOracle net) return fitAveraged(net, blocks, type, classes, featureDim, previous);
        if (oracle instanceof FcnOracle fcn) return FcnFits.fit(new FcnDataParallel(fcn), blocks, type, classes, previous);
        if (oracle instanceof BoostOracle boost && !blocks.context().getConf().getBoolean(BOOST_ON_DRIVER, false)) {
            return DistributedBoost.fit(boost, boostBins, blocks, type, classes, featureDim, previous);
        }
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

    /**
     * Constant: the single-machine damped Newton on the C weights, each evaluation one Spark job
     * returning every block's [L, gradient (C), Hessian (C x C)] sums ({@link ConstantOracle#loss}),
     * added in block order. The aggregates are C + C^2 + 1 doubles per block.
     */
    private static ScoreFunction fitConstant(ConstantOracle oracle, JavaRDD<Block> blocks, int type, int c, ScoreFunction previous) {
        JavaRDD<Block> train = blocks.filter(b -> !b.test);
        long n = (long) rowCount(train, type);
        return oracle.fit(c, n, ConstantOracle.start(previous, c), (w, grad, hess) -> {
            boolean first = grad != null, second = hess != null;
            double[] s = sumInBlockOrder(train.map(b -> new Indexed(b.index, constantSums(b, type, c, w, first, second))).collect());
            if (first) System.arraycopy(s, 1, grad, 0, c);
            if (second) System.arraycopy(s, 1 + c, hess, 0, c * c);
            return s[0];
        });
    }

    /** One block's [L, gradient, Hessian] of the constant class (zeros where not asked for). */
    static double[] constantSums(Block b, int type, int c, double[] w, boolean first, boolean second) {
        int[] y = labels(b.batch(), type);
        float[] bias = bias(b, type, c);
        double[] bd = new double[bias.length];
        for (int k = 0; k < bias.length; k++) bd[k] = bias[k];
        double[] g = first ? new double[c] : null, h = second ? new double[c * c] : null;
        double[] out = new double[1 + c + c * c];
        out[0] = ConstantOracle.loss(w, bd, org.structlr.oracle.RowTargets.labels(y, c), g, h);
        if (first) System.arraycopy(g, 0, out, 1, c);
        if (second) System.arraycopy(h, 0, out, 1 + c, c * c);
        return out;
    }

    /**
     * MLP and CNN: synchronous parameter averaging. The driver broadcasts the start network
     * (parameters and momentum as float arrays), every training block fits it on its own rows with
     * the oracle's passes and mini-batches scaled by its share of the rows
     * ({@link AveragedNetworkOracle#fitLocal}), and the driver averages
     * parameters and updater states weighted by the blocks' row counts, in block order. A fit is
     * done in rounds of about {@value #DEFAULT_AVERAGE_EVERY} mini-batch steps ({@code
     * spark.structlr.averageEvery}), with an average after each. Averaged once per fit instead
     * (160 images of 100x100, two partitions: 1,600 steps per partition between averages), (mlp,
     * linear) lagged one machine: test error 0.172 against 0.137 after 2 iterations.
     * Collected rather than Spark's treeAggregate: treeAggregate and reduce combine partial results
     * in the order tasks finish (and its tree level shuffles), so the last bits of the average would
     * depend on timing; in block order a rerun, or a partition recomputed after a lost executor,
     * gives the same network bit for bit. The driver receives one network per block (a few thousand
     * floats for the default MLP and CNN), the same bytes treeAggregate's last level would send.
     */
    private static ScoreFunction fitAveraged(AveragedNetworkOracle oracle, JavaRDD<Block> blocks, int type, int classes, int featureDim,
                                             ScoreFunction previous) {
        NetworkState start = oracle.start(previous, featureDim, classes, DataType.FLOAT);
        JavaSparkContext sc = JavaSparkContext.fromSparkContext(blocks.context());
        JavaRDD<Block> train = blocks.filter(b -> !b.test);
        double n = rowCount(train, type);
        int every = blocks.context().getConf().getInt(AVERAGE_EVERY, DEFAULT_AVERAGE_EVERY);
        if (every < 1) throw new org.structlr.data.BadInputException(AVERAGE_EVERY + " must be at least 1, got " + every);
        int rounds = (int) Math.max(1, Math.min(Integer.MAX_VALUE, (oracle.stepsPerFit((long) n) + every - 1) / every));
        NetworkState state = start;
        for (int r = 0; r < rounds; r++) state = averageRound(oracle, sc, train, type, classes, n, state, new AveragedNetworkOracle.Round(r, rounds));
        return oracle.finish(state);
    }

    /**
     * Spark property: fit boosted trees on the driver from the gathered rows (the single-machine
     * oracle; the behaviour before {@link DistributedBoost}), for comparison. Never a silent fallback.
     */
    static final String BOOST_ON_DRIVER = "spark.structlr.boost.onDriver";

    /** Spark property: mini-batch steps (of the single-machine fit) between two averages. */
    static final String AVERAGE_EVERY = "spark.structlr.averageEvery";
    static final int DEFAULT_AVERAGE_EVERY = 100;

    /** One round: every training block fits the broadcast state on its own rows; the row-weighted average in block order. */
    private static NetworkState averageRound(AveragedNetworkOracle oracle, JavaSparkContext sc, JavaRDD<Block> train, int type, int classes,
                                             double n, NetworkState start, AveragedNetworkOracle.Round round) {
        Broadcast<NetworkState> from = sc.broadcast(start);
        try {
            List<Weighted> parts = train.map(b -> {
                BiasedLogisticProblem rows = problem(b, type, classes);
                if (rows.numRows() == 0) return new Weighted(b.index, 0, null, null);
                NetworkState s = oracle.fitLocal(from.value(), rows, b.index, rows.numRows() / n, round);
                return new Weighted(b.index, rows.numRows(), s.params(), s.updater());
            }).collect();
            double total = 0;
            double[] p = new double[start.params().length], u = new double[start.updater().length];
            for (Weighted w : parts.stream().sorted((a, b) -> Integer.compare(a.block(), b.block())).toList()) {
                if (w.rows() == 0) continue;
                total += w.rows();
                for (int k = 0; k < p.length; k++) p[k] += (double) w.rows() * w.params()[k];
                for (int k = 0; k < u.length; k++) u[k] += (double) w.rows() * w.updater()[k];
            }
            if (total == 0) throw new IllegalStateException("no training rows for factor type " + type);
            return start.with(mean(p, total), mean(u, total));
        } finally {
            from.destroy();
        }
    }

    /** A block's locally fitted network and its row count (its weight in the average). */
    record Weighted(int block, long rows, float[] params, float[] updater) implements java.io.Serializable {}

    private static float[] mean(double[] sum, double n) {
        float[] out = new float[sum.length];
        for (int k = 0; k < sum.length; k++) out[k] = (float) (sum[k] / n);
        return out;
    }

    /** One block's rows of a type as the oracle's problem (its own features, labels and biases). */
    static BiasedLogisticProblem problem(Block b, int type, int classes) {
        ExampleBatch batch = b.batch();
        int[] y = labels(batch, type);
        return new BiasedLogisticProblem(features(batch, type), y,
                Nd4j.create(bias(b, type, classes), new long[] {y.length, classes}, DataType.FLOAT), classes);
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
