package org.structlr.spark;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.Serializable;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import ml.dmlc.xgboost4j.java.Communicator;
import ml.dmlc.xgboost4j.java.RabitTracker;
import ml.dmlc.xgboost4j.java.XGBoostError;
import org.apache.spark.BarrierTaskContext;
import org.apache.spark.HashPartitioner;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.rdd.RDD;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.structlr.oracle.BoostOracle;
import org.structlr.oracle.ScoreFunction;
import scala.Tuple2;
import scala.reflect.ClassTag;
import scala.reflect.ClassTag$;
import scala.runtime.AbstractFunction1;

/**
 * The boosted-trees fit on Spark, exactly the single-machine round distributed: one XGBoost worker
 * per training block, all in one Spark barrier stage, joined by XGBoost's own collective (the
 * tracker and {@link Communicator} of xgboost4j, what xgboost4j-spark uses inside). Each worker
 * computes its own rows' gradients ({@link BoostOracle#boostPart}, the oracle's code), builds its
 * DMatrix, loads the broadcast ensemble and boosts the one round; XGBoost all-reduces the quantile
 * sketches and the gradient histograms, so every worker grows the same trees. The driver checks that
 * every worker returned the same booster and hands it to {@link BoostOracle#finish}, which makes it
 * the function the single-machine oracle would return (same class, snapshots, saving).
 *
 * <p>Why a shuffle first: a barrier stage must run every partition of its RDD at once, and the
 * blocks RDD also holds the test blocks (2x the task slots a local[2] run has); the training
 * blocks' rows (features, labels, biases: what a gather moved to the driver) are shuffled into an
 * RDD of one partition per training block, on which the barrier stage runs (so it needs as many
 * free task slots as training blocks: {@code spark.structlr.partitions} at most the cores).
 *
 * <p>Retries: the tracker lives in task 0 of the barrier stage and is started anew by every stage
 * attempt (the other tasks get its address through the barrier's allGather). Spark reruns a barrier
 * stage whole, so a rerun never meets a tracker left over from a failed attempt. The per-class
 * Hessian sums (min_child_weight) are added in double, in partition order, through allGather (not
 * XGBoost's float all-reduce), so one partition gives the single-machine sums bit for bit.
 */
final class DistributedBoost {
    private static final Logger LOG = LoggerFactory.getLogger(DistributedBoost.class);

    /** Spark property: seconds XGBoost's tracker and workers wait for each other before failing. */
    static final String TIMEOUT = "spark.structlr.boost.timeout";
    static final int DEFAULT_TIMEOUT = 300;

    private DistributedBoost() {}

    static ScoreFunction fit(BoostOracle oracle, JavaRDD<Block> blocks, int type, int classes, int featureDim, ScoreFunction previous) {
        JavaRDD<Block> train = blocks.filter(b -> !b.test);
        int workers = (int) train.count();   // training blocks are 0..workers-1 (Layout puts them first)
        int timeout = blocks.context().getConf().getInt(TIMEOUT, DEFAULT_TIMEOUT);
        BoostOracle.Round round = oracle.start(previous, featureDim, classes, 1);
        RDD<DistributedFits.Rows> rows = train.mapToPair(b -> new Tuple2<>(b.index, DistributedFits.Rows.of(b, type, classes)))
                .partitionBy(new HashPartitioner(workers))   // key k < workers goes to partition k
                .values().rdd();
        ClassTag<Boosted> tag = ClassTag$.MODULE$.apply(Boosted.class);
        List<Boosted> out;
        try {
            out = new JavaRDD<>(rows.barrier().mapPartitions(new Worker(round, workers, timeout), false, tag), tag).collect();
        } catch (RuntimeException e) {
            throw new IllegalStateException("boost on Spark: the distributed round over " + workers + " training partitions failed"
                    + " (XGBoost's collective in a barrier stage needs " + workers + " free task slots at once: set"
                    + " spark.structlr.partitions to at most the cores): " + e.getMessage(), e);
        }
        return oracle.finish(round, previous, agreed(out, workers));
    }

    /** The booster every worker returned; an error unless all {@code workers} returned the same bytes (a collective that did not join). */
    static byte[] agreed(List<Boosted> out, int workers) {
        if (out.size() != workers) throw new IllegalStateException("boost on Spark: " + out.size() + " of " + workers + " workers returned a booster");
        byte[] first = out.stream().filter(b -> b.rank() == 0).findFirst().orElseThrow().booster();
        for (Boosted b : out) {
            if (b.worldSize() != workers) {
                throw new IllegalStateException("boost on Spark: worker " + b.rank() + " saw " + b.worldSize() + " XGBoost workers, expected " + workers);
            }
            if (!Arrays.equals(first, b.booster())) {
                throw new IllegalStateException("boost on Spark: worker " + b.rank() + " grew different trees from worker 0");
            }
        }
        return first;
    }

    /** One worker's result: its rank, the collective's size as it saw it, and its booster after the round. */
    record Boosted(int rank, int worldSize, byte[] booster) implements Serializable {}

    /** The barrier task: tracker (task 0), collective, one boosting round on the partition's rows. */
    static final class Worker extends AbstractFunction1<scala.collection.Iterator<DistributedFits.Rows>, scala.collection.Iterator<Boosted>>
            implements Serializable {
        private final BoostOracle.Round round;
        private final int workers;
        private final int timeout;

        Worker(BoostOracle.Round round, int workers, int timeout) {
            this.round = round;
            this.workers = workers;
            this.timeout = timeout;
        }

        @Override
        public scala.collection.Iterator<Boosted> apply(scala.collection.Iterator<DistributedFits.Rows> it) {
            BarrierTaskContext ctx = BarrierTaskContext.get();
            int rank = ctx.partitionId();
            DistributedFits.Rows rows = it.hasNext() ? it.next() : null;
            if (it.hasNext()) throw new IllegalStateException("boost on Spark: partition " + rank + " holds more than one block");
            float[] x = rows == null ? new float[0] : rows.features();
            int[] y = rows == null ? new int[0] : rows.labels();
            float[] bias = rows == null ? new float[0] : rows.bias();
            ObjectMapper json = new ObjectMapper();
            RabitTracker tracker = null;
            try {
                String mine = "";
                if (rank == 0) {
                    String host = ctx.getTaskInfos()[0].address();
                    host = host.contains(":") ? host.substring(0, host.lastIndexOf(':')) : host;
                    tracker = new RabitTracker(workers, host, 0, timeout);
                    if (!tracker.start()) throw new XGBoostError("XGBoost's tracker did not start on " + host);
                    mine = json.writeValueAsString(tracker.getWorkerArgs());
                }
                Map<String, Object> args = new HashMap<>(json.readValue(ctx.allGather(mine)[0], new TypeReference<Map<String, Object>>() {}));
                args.put("DMLC_TASK_ID", Integer.toString(rank));
                args.put("dmlc_timeout", timeout);
                Communicator.init(args);
                try {
                    int world = Communicator.getWorldSize();
                    byte[] boosted = BoostOracle.boostPart(round, x, y, bias, h -> sumInPartitionOrder(ctx, h));
                    return scala.collection.JavaConverters.asScalaIterator(
                            Collections.singletonList(new Boosted(Communicator.getRank(), world, boosted)).iterator());
                } finally {
                    try {
                        Communicator.shutdown();
                    } catch (XGBoostError e) {
                        LOG.warn("XGBoost's collective did not shut down cleanly on worker {}: {}", rank, e.getMessage());
                    }
                }
            } catch (XGBoostError | java.io.IOException e) {
                throw new IllegalStateException("boost on Spark, worker " + rank + ": " + e.getMessage(), e);
            } finally {
                if (tracker != null) {
                    try {
                        tracker.waitFor(timeout * 1000L);
                        tracker.stop();
                    } catch (XGBoostError e) {
                        LOG.warn("XGBoost's tracker did not stop cleanly: {}", e.getMessage());
                    }
                }
            }
        }
    }

    /**
     * The element-wise sum of every task's array, added in double in partition order (the same
     * doubles on every task), through the barrier's allGather (exact decimal round trip of doubles).
     */
    static double[] sumInPartitionOrder(BarrierTaskContext ctx, double[] mine) {
        StringBuilder sb = new StringBuilder();
        for (double v : mine) sb.append(sb.length() == 0 ? "" : ",").append(Double.toHexString(v));
        String[] all = ctx.allGather(sb.toString());
        double[] sum = null;
        for (String s : all) {
            String[] parts = s.split(",");
            if (parts.length != mine.length) throw new IllegalStateException("boost on Spark: a worker sent " + parts.length + " sums, expected " + mine.length);
            if (sum == null) {
                sum = new double[mine.length];
                for (int k = 0; k < sum.length; k++) sum[k] = Double.parseDouble(parts[k]);
            } else {
                for (int k = 0; k < sum.length; k++) sum[k] += Double.parseDouble(parts[k]);
            }
        }
        return sum;
    }
}
