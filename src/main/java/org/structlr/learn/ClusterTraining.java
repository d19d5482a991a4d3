package org.structlr.learn;

import java.util.ServiceLoader;
import org.structlr.data.BadInputException;
import org.structlr.data.Dataset;

/**
 * Training on a cluster ({@code train --spark MASTER}): the same learning as {@link Training#train},
 * run by an implementation that only builds with a cluster framework on the classpath (the
 * {@code -Pspark} build's {@code org.structlr.spark.SparkTraining}), found through
 * {@link ServiceLoader} so that the default build neither compiles nor ships it.
 */
public interface ClusterTraining {

    /** As {@link Training#train(Dataset, String, String, LearnSettings, int, LearnListener, LearnerState, StateSink)}, on {@code master}. */
    Training.Outcome train(String master, Dataset data, String unaryKind, String pairKind, LearnSettings settings,
                           int threads, LearnListener listener, LearnerState from, StateSink sink);

    /** The implementation in this build; bad input naming {@code option} when there is none. */
    static ClusterTraining find(String option) {
        return ServiceLoader.load(ClusterTraining.class).findFirst().orElseThrow(() -> new BadInputException(
                option + ": this build has no Spark; build with -Pspark (mvn -B -Pspark package, then spark-submit target/structlr-spark.jar)"));
    }
}
