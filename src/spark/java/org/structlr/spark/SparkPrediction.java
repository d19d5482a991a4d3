package org.structlr.spark;

import java.util.ArrayList;
import java.util.List;
import org.apache.spark.api.java.JavaSparkContext;
import org.structlr.model.ClusterPrediction;

/**
 * {@code predict --spark MASTER}: the per-input tasks (paths and settings only) spread over
 * partitions in input order; each executor reads its own inputs, loads the model once per task
 * thread and writes its outputs atomically (the one-machine code, so the same files). The driver
 * has read and checked every input before (as on one machine), so a bad file is refused before any
 * task runs; the log lines come back in input order.
 */
public final class SparkPrediction implements ClusterPrediction {

    @Override
    public List<String> run(String master, List<? extends Task> tasks) {
        SparkTraining.checkReachable(master);
        try (JavaSparkContext sc = SparkTraining.open(master, "structlr predict")) {
            int parts = Math.max(1, Math.min(tasks.size(), sc.getConf().getInt("spark.structlr.partitions", sc.defaultParallelism())));
            List<Task> all = new ArrayList<>(tasks);
            return sc.parallelize(all, parts).map(Task::run).collect();
        }
    }
}
