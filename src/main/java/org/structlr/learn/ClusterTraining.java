package org.structlr.learn;

import java.util.Map;
import java.util.ServiceLoader;
import org.structlr.data.BadInputException;
import org.structlr.data.Dataset;
import org.structlr.data.DatasetSummary;
import org.structlr.oracle.FunctionSpec;

/**
 * Training on a cluster ({@code train --spark MASTER}): the same learning as {@link Training#train},
 * run by an implementation that only builds with a cluster framework on the classpath (the
 * {@code -Pspark} build's {@code org.structlr.spark.SparkTraining}), found through
 * {@link ServiceLoader} so that the default build neither compiles nor ships it.
 */
public interface ClusterTraining {

    /**
     * As {@link Training#train(Dataset, FunctionSpec, FunctionSpec, LearnSettings, int, LearnListener, LearnerState, StateSink)},
     * on {@code master}, with examples this machine holds (shipped to the cluster once).
     */
    Training.Outcome train(String master, Dataset data, FunctionSpec unary, FunctionSpec pair, LearnSettings settings,
                           int threads, LearnListener listener, LearnerState from, StateSink sink);

    /** As {@link #train(String, Dataset, FunctionSpec, FunctionSpec, LearnSettings, int, LearnListener, LearnerState, StateSink)}, the classes' options at their defaults. */
    default Training.Outcome train(String master, Dataset data, String unaryKind, String pairKind, LearnSettings settings,
                                   int threads, LearnListener listener, LearnerState from, StateSink sink) {
        return train(master, data, FunctionSpec.unary(unaryKind), FunctionSpec.pairwise(pairKind), settings, threads, listener, from, sink);
    }

    /** A session on {@code master}: the cluster is joined when first needed and left on {@link Session#close}. */
    Session session(String master);

    /** Training on a data set that the cluster's machines read themselves. */
    interface Session extends AutoCloseable {
        /**
         * The data set folder at {@code location} (an absolute path every machine sees, or a URI of
         * a file system they reach): listed here, read and checked by the cluster's machines, the
         * checks across files made here from what they report. Nothing is trained yet.
         *
         * @throws BadInputException naming the folder or file, as {@link Dataset#load} would
         */
        ClusterDataset read(String location);

        /** As {@link ClusterTraining#train}, on a data set {@link #read} by this session. */
        Training.Outcome train(ClusterDataset data, FunctionSpec unary, FunctionSpec pair, LearnSettings settings, int threads,
                               LearnListener listener, LearnerState from, StateSink sink);

        /** As {@link #train(ClusterDataset, FunctionSpec, FunctionSpec, LearnSettings, int, LearnListener, LearnerState, StateSink)}, the classes' options at their defaults. */
        default Training.Outcome train(ClusterDataset data, String unaryKind, String pairKind, LearnSettings settings, int threads,
                                       LearnListener listener, LearnerState from, StateSink sink) {
            return train(data, FunctionSpec.unary(unaryKind), FunctionSpec.pairwise(pairKind), settings, threads, listener, from, sink);
        }

        @Override
        void close();
    }

    /** What this machine knows of a data set the cluster holds: no examples. */
    interface ClusterDataset {
        DatasetSummary summary();

        /** The data set's {@link Dataset#INFO_FILE} contents (empty when it has none). */
        Map<String, Object> info();

        /** {@link Training#examplesHash} of the data set. */
        String examplesHash();
    }

    /** The implementation in this build; bad input naming {@code option} when there is none. */
    static ClusterTraining find(String option) {
        return ServiceLoader.load(ClusterTraining.class).findFirst().orElseThrow(() -> new BadInputException(
                option + ": this build has no Spark; build with -Pspark (mvn -B -Pspark package), then run bin/structlr, which finds the Spark jars, or spark-submit target/structlr-spark.jar"));
    }
}
