package org.structlr.spark;

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
import org.apache.spark.storage.StorageLevel;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.structlr.oracle.boost.BoostOracle;
import org.structlr.oracle.boost.BoostRound;
import org.structlr.oracle.boost.FeatureCuts;
import org.structlr.oracle.ScoreFunction;
import scala.Tuple2;
import scala.reflect.ClassTag;
import scala.reflect.ClassTag$;
import scala.runtime.AbstractFunction1;

/**
 * The boosted-trees fit on Spark, exactly the single-machine round distributed: one XGBoost worker
 * per training block, all in one Spark barrier stage, joined by XGBoost's own collective (the
 * tracker and {@link Communicator} of xgboost4j, what xgboost4j-spark uses inside).
 *
 * <p>The round protocol: the driver ships a {@link Round} (the ensemble so far, {@link BoostRound#ship};
 * the oracle's round settings with one XGBoost thread per worker; the bins of all rows, {@link #cuts}:
 * one machine's bins, made at a run's first fit of each factor type and kept in its {@link Bins})
 * and starts a tracker for the P workers; each worker runs the oracle's round on its own rows
 * ({@link BoostRound#boostShipped}: its rows' gradients, its DMatrix binned by the shared bins, the
 * ensemble loaded from the bytes, one round boosted); XGBoost all-reduces the gradient histograms, so
 * every worker grows the same trees, and the trees one machine grows up to the order of the histogram
 * sums. The driver checks that every worker saw P workers and returned the same booster
 * ({@link #agreed}), and hands it to {@link BoostRound#adopt}, which makes it the function the
 * single-machine oracle would return (same class, snapshots, saving).
 *
 * <p>Why a shuffle first: a barrier stage must run every partition of its RDD at once, and the
 * blocks RDD also holds the test blocks (twice the task slots of local[2]); the training blocks'
 * rows (features, labels, biases: what a gather moved to the driver) are shuffled into an RDD of
 * one partition per training block, on which the barrier stage runs. It needs as many free task
 * slots as training blocks ({@code spark.structlr.partitions} at most the cores).
 *
 * <p>Retries: a tracker serves one set of workers once, and Spark does not retry a failed barrier
 * result stage (it aborts the job: "Could not recover from a failed barrier ResultStage"). So the
 * driver reruns the job with a new tracker, up to {@value #ATTEMPTS} times (the shuffled rows are
 * reused); should Spark ever rerun the stage itself, the tasks of a later attempt fail at once
 * rather than join the spent tracker. The per-class Hessian sums (for min_child_weight) are
 * all-reduced as three floats per double (exact for one worker, so one partition gives the
 * single-machine sums bit for bit; XGBoost's all-reduce has no double form in xgboost4j).
 */
final class DistributedBoost {
    private static final Logger LOG = LoggerFactory.getLogger(DistributedBoost.class);

    /** Spark property: seconds XGBoost's tracker and workers wait for each other before failing. */
    static final String TIMEOUT = "spark.structlr.boost.timeout";
    static final int DEFAULT_TIMEOUT = 300;
    /** Runs of the barrier job (each with a new tracker) before a fit fails. */
    static final int ATTEMPTS = 3;
    /** Tests only (local mode, same JVM): the number of barrier-task runs of rank 1 that fail on purpose. */
    static final java.util.concurrent.atomic.AtomicInteger INJECTED_FAULTS = new java.util.concurrent.atomic.AtomicInteger();

    private DistributedBoost() {}

    /** What the driver ships to every worker of a round: the ensemble so far, the oracle's round settings, the bins of all the rows. */
    record Round(BoostRound.Shipped ensemble, BoostRound.Settings settings, FeatureCuts cuts) implements Serializable {}

    /**
     * The bins of a run's boosted fits, per factor type ({@code type} of {@link DistributedFits#fit}):
     * computed at the type's first fit (a pass over every worker's rows), the same ones afterwards, as
     * the features do not change between fits. One per learning run (one set of rows).
     */
    static final class Bins {
        private final Map<Integer, FeatureCuts> byType = new HashMap<>();

        synchronized FeatureCuts of(int type, int numFeatures, java.util.function.Supplier<FeatureCuts> compute) {
            FeatureCuts cuts = byType.computeIfAbsent(type, t -> compute.get());
            if (cuts.numFeatures() != numFeatures) {
                throw new IllegalStateException("boost on Spark: factor type " + type + "'s rows had " + cuts.numFeatures() + " features, now " + numFeatures);
            }
            return cuts;
        }
    }

    static ScoreFunction fit(BoostOracle oracle, Bins bins, JavaRDD<Block> blocks, int type, int classes, int featureDim, ScoreFunction previous) {
        JavaRDD<Block> train = blocks.filter(b -> !b.test);
        int workers = (int) train.count();   // training blocks are 0..workers-1 (Layout puts them first)
        int slots = blocks.context().defaultParallelism();
        if (workers > slots) {
            String problem = "spark.structlr.partitions: boost on Spark runs all " + workers + " training partitions at once (XGBoost's"
                    + " collective in a barrier stage), but the context has " + slots + " task slots; set spark.structlr.partitions to at most " + slots;
            // local: certain, and Spark's own check would wait (by default 40 x 15 s) for slots that never come;
            // a cluster may still be registering executors, so there Spark's check decides
            if (blocks.context().isLocal()) throw new org.structlr.data.BadInputException(problem);
            LOG.warn("{} (slots known so far; Spark waits for more executors before failing the job)", problem);
        }
        int timeout = blocks.context().getConf().getInt(TIMEOUT, DEFAULT_TIMEOUT);
        String host = blocks.context().getConf().get("spark.driver.host", "127.0.0.1");
        JavaRDD<DistributedFits.Rows> rows = train.mapToPair(b -> new Tuple2<>(b.index, DistributedFits.Rows.of(b, type, classes)))
                .partitionBy(new HashPartitioner(workers))   // key k < workers goes to partition k
                .values().persist(StorageLevel.MEMORY_AND_DISK());   // read by the barrier stage (and the first fit's cuts)
        try {
            Round round = new Round(BoostRound.ship(previous, featureDim, classes), oracle.roundSettings(1),
                    bins.of(type, featureDim, () -> cuts(rows, featureDim)));
            return BoostRound.adopt(previous, round.ensemble(), agreed(run(rows.rdd(), round, workers, host, timeout), workers));
        } finally {
            rows.unpersist(false);
        }
    }

    /**
     * The bins of all the workers' rows, the ones one machine computes from the same rows
     * ({@link FeatureCuts#of}): the driver pools each worker's content-chosen sample (at most about
     * {@link FeatureCuts#SAMPLE_ROWS} rows in all) and takes the per-feature minima over all rows.
     */
    static FeatureCuts cuts(JavaRDD<DistributedFits.Rows> rows, int d) {
        long n = rows.map(r -> (long) r.labels().length).fold(0L, Long::sum);
        double rate = FeatureCuts.rate(n);
        List<float[][]> parts = rows.map(r -> {
            int m = r.labels().length;
            return new float[][] {FeatureCuts.sample(r.features(), m, d, rate), FeatureCuts.minima(r.features(), m, d)};
        }).collect();
        int total = 0;
        for (float[][] p : parts) total += p[0].length;
        float[] sample = new float[total];
        float[] min = new float[d];
        Arrays.fill(min, Float.POSITIVE_INFINITY);
        int at = 0;
        for (float[][] p : parts) {
            System.arraycopy(p[0], 0, sample, at, p[0].length);
            at += p[0].length;
            for (int k = 0; k < d; k++) min[k] = Math.min(min[k], p[1][k]);
        }
        return FeatureCuts.fromSample(sample, d, min);
    }

    /** The barrier job, each run with a new tracker on the driver; rerun up to {@value #ATTEMPTS} times in all. */
    private static List<Boosted> run(RDD<DistributedFits.Rows> rows, Round round, int workers, String host, int timeout) {
        ClassTag<Boosted> tag = ClassTag$.MODULE$.apply(Boosted.class);
        for (int attempt = 1; ; attempt++) {
            RabitTracker tracker = null;
            try {
                tracker = new RabitTracker(workers, host, 0, timeout);
                if (!tracker.start()) throw new IllegalStateException("XGBoost's tracker did not start on " + host);
                Map<String, Object> args = new HashMap<>(tracker.getWorkerArgs());
                args.put("dmlc_timeout", timeout);
                return new JavaRDD<>(rows.barrier().mapPartitions(new Worker(round, workers, args), false, tag), tag).collect();
            } catch (Exception e) {   // XGBoostError, or Spark's (checked, thrown through Scala) SparkException
                String what = "boost on Spark: the distributed round over " + workers + " training partitions failed";
                if (attempt >= ATTEMPTS) throw new IllegalStateException(what + " " + ATTEMPTS + " times: " + e.getMessage(), e);
                LOG.warn("{} (run {} of {}); rerunning with a new tracker: {}", what, attempt, ATTEMPTS, e.getMessage());
            } finally {
                if (tracker != null) {
                    try {
                        tracker.stop();
                    } catch (XGBoostError e) {
                        LOG.warn("XGBoost's tracker did not stop cleanly: {}", e.getMessage());
                    }
                }
            }
        }
    }

    /** The booster every worker returned; an error unless all {@code workers} saw a world of that size and returned the same bytes. */
    static byte[] agreed(List<Boosted> out, int workers) {
        if (out.size() != workers) throw new IllegalStateException("boost on Spark: " + out.size() + " of " + workers + " workers returned a booster");
        byte[] first = out.get(0).booster();
        for (Boosted b : out) {
            if (b.worldSize() != workers) {
                throw new IllegalStateException("boost on Spark: worker " + b.rank() + " saw " + b.worldSize() + " XGBoost workers, expected " + workers);
            }
            if (!Arrays.equals(first, b.booster())) {
                throw new IllegalStateException("boost on Spark: worker " + b.rank() + " grew different trees from worker " + out.get(0).rank());
            }
        }
        return first;
    }

    /** One worker's result: its rank, the collective's size as it saw it, and its booster after the round. */
    record Boosted(int rank, int worldSize, byte[] booster) implements Serializable {}

    /** The barrier task: joins the collective, boosts one round on the partition's rows, leaves the collective. */
    static final class Worker extends AbstractFunction1<scala.collection.Iterator<DistributedFits.Rows>, scala.collection.Iterator<Boosted>>
            implements Serializable {
        private final Round round;
        private final int workers;
        private final Map<String, Object> trackerArgs;

        Worker(Round round, int workers, Map<String, Object> trackerArgs) {
            this.round = round;
            this.workers = workers;
            this.trackerArgs = trackerArgs;
        }

        @Override
        public scala.collection.Iterator<Boosted> apply(scala.collection.Iterator<DistributedFits.Rows> it) {
            BarrierTaskContext ctx = BarrierTaskContext.get();
            int rank = ctx.partitionId();
            if (ctx.stageAttemptNumber() > 0) {
                throw new IllegalStateException("boost on Spark: stage attempt " + ctx.stageAttemptNumber() + " would join a spent tracker;"
                        + " the driver reruns the round with a new one");
            }
            if (rank == 1 && INJECTED_FAULTS.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
                throw new IllegalStateException("boost on Spark: fault injected by a test");
            }
            DistributedFits.Rows rows = it.hasNext() ? it.next() : null;
            if (it.hasNext()) throw new IllegalStateException("boost on Spark: partition " + rank + " holds more than one block");
            float[] x = rows == null ? new float[0] : rows.features();
            int[] y = rows == null ? new int[0] : rows.labels();
            float[] bias = rows == null ? new float[0] : rows.bias();
            Map<String, Object> args = new HashMap<>(trackerArgs);
            args.put("DMLC_TASK_ID", Integer.toString(rank));
            try {
                Communicator.init(args);
                try {
                    int world = Communicator.getWorldSize();
                    byte[] boosted = BoostRound.boostShipped(round.ensemble(), round.settings(), round.cuts(), x, y, bias, DistributedBoost::sumOverWorkers);
                    return scala.collection.JavaConverters.asScalaIterator(
                            Collections.singletonList(new Boosted(Communicator.getRank(), world, boosted)).iterator());
                } finally {
                    try {
                        Communicator.shutdown();
                    } catch (XGBoostError e) {
                        LOG.warn("XGBoost's collective did not shut down cleanly on worker {}: {}", rank, e.getMessage());
                    }
                }
            } catch (XGBoostError e) {
                throw new IllegalStateException("boost on Spark, worker " + rank + ": " + e.getMessage(), e);
            }
        }
    }

    /**
     * The element-wise sum over the workers of a double array, through XGBoost's float all-reduce:
     * each double d is sent as three floats hi = (float) d, mid = (float) (d - hi), lo = (float) (d - hi - mid),
     * whose double sum is d exactly (24 + 24 + 24 bits hold the 53 of a double, the remainders being
     * exact in double), so one worker gets its own doubles back unchanged; with more workers the
     * parts are added in float, the same result on every worker.
     */
    static double[] sumOverWorkers(double[] mine) {
        return join(Communicator.allReduce(split(mine), Communicator.OpType.SUM), mine.length);
    }

    /** [hi..., mid..., lo...] of each double (see {@link #sumOverWorkers}). */
    static float[] split(double[] v) {
        int c = v.length;
        float[] parts = new float[3 * c];
        for (int k = 0; k < c; k++) {
            float hi = (float) v[k];
            double r = v[k] - hi;
            float mid = (float) r;
            parts[k] = hi;
            parts[c + k] = mid;
            parts[2 * c + k] = (float) (r - mid);
        }
        return parts;
    }

    /** hi + mid + lo in double, per element: the inverse of {@link #split} (of sums of splits: the sums). */
    static double[] join(float[] parts, int c) {
        double[] out = new double[c];
        for (int k = 0; k < c; k++) out[k] = (double) parts[k] + (double) parts[c + k] + (double) parts[2 * c + k];
        return out;
    }
}
