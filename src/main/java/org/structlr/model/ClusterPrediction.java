package org.structlr.model;

import java.io.Serializable;
import java.util.List;
import java.util.ServiceLoader;
import org.structlr.data.BadInputException;

/**
 * Prediction on a cluster ({@code predict --spark MASTER}): runs independent per-input tasks in
 * parallel, by an implementation that only builds with a cluster framework on the classpath (the
 * {@code -Pspark} build's {@code org.structlr.spark.SparkPrediction}), found through
 * {@link ServiceLoader} like {@link org.structlr.learn.ClusterTraining}.
 */
public interface ClusterPrediction {

    /** One input's work, run where the cluster puts it: reads its input, writes its outputs, returns a line of log. */
    interface Task extends Serializable {
        String run() throws Exception;
    }

    /** Runs every task on {@code master}; their log lines in task order. A failing task fails the whole run. */
    List<String> run(String master, List<? extends Task> tasks);

    /** The implementation in this build; bad input naming {@code option} when there is none. */
    static ClusterPrediction find(String option) {
        return ServiceLoader.load(ClusterPrediction.class).findFirst().orElseThrow(() -> new BadInputException(
                option + ": this build has no Spark; build with -Pspark (mvn -B -Pspark package), then run bin/structlr, which finds the Spark jars, or spark-submit target/structlr-spark.jar"));
    }
}
