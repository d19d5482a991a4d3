package org.structlr.spark;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.SparkConf;
import org.apache.spark.api.java.JavaSparkContext;
import org.structlr.data.BadInputException;
import org.structlr.data.Dataset;
import org.structlr.learn.AlternatingLearner;
import org.structlr.learn.ClusterTraining;
import org.structlr.learn.LearnListener;
import org.structlr.learn.LearnSettings;
import org.structlr.learn.LearnerState;
import org.structlr.learn.StateSink;
import org.structlr.learn.Training;
import org.structlr.oracle.Oracle;

/**
 * {@code train --spark MASTER}: opens a Spark context on {@code MASTER} (or joins the one
 * spark-submit made), runs the {@link SparkLearner} and builds the model exactly as
 * {@link Training#train} does. Settings read from the Spark configuration:
 * {@code spark.structlr.partitions} (blocks per split; default: the context's default parallelism)
 * {@code spark.structlr.cutEvery} (iterations between lineage cuts; default 5),
 * {@code spark.structlr.averageEvery} (MLP/CNN: mini-batch steps between parameter averages; default 100),
 * {@code spark.structlr.boost.timeout} (boost: seconds XGBoost's workers wait for each other; default 300) and
 * {@code spark.structlr.boost.onDriver} (boost: fit on the driver from gathered rows instead; default false).
 */
public final class SparkTraining implements ClusterTraining {

    @Override
    public Training.Outcome train(String master, Dataset data, String unaryKind, String pairKind, LearnSettings settings,
                                  int threads, LearnListener listener, LearnerState from, StateSink sink) {
        Training.checkApplicable(data, unaryKind, pairKind);
        checkReachable(master);
        List<String> types = Training.pairTypeNames(data.numPairTypes());
        Oracle unaryOracle = org.structlr.oracle.FunctionClasses.get(unaryKind).create(new org.structlr.oracle.FunctionClass.Context(true, data.unaryDim(), settings.seed(), threads));
        List<Oracle> pairOracles = new ArrayList<>();
        for (int t = 0; t < types.size(); t++) pairOracles.add(org.structlr.oracle.FunctionClasses.get(pairKind).create(new org.structlr.oracle.FunctionClass.Context(false, data.pairDim(), settings.seed() + 1 + t, threads)));
        AlternatingLearner.Result r;
        try (JavaSparkContext sc = open(master)) {
            int partitions = sc.getConf().getInt("spark.structlr.partitions", sc.defaultParallelism());
            int cutEvery = sc.getConf().getInt("spark.structlr.cutEvery", 5);
            if (partitions < 1 || cutEvery < 1) throw new BadInputException("spark.structlr.partitions and spark.structlr.cutEvery must be at least 1");
            r = new SparkLearner(sc, settings, unaryOracle, pairOracles, partitions, cutEvery)
                    .train(data.train(), data.test(), data.numLabels(), types, data.unaryDim(), data.pairDim(), from, listener, sink);
        } finally {
            for (Oracle o : pairOracles) closeQuietly(o);
            closeQuietly(unaryOracle);
        }
        return Training.outcome(data, unaryKind, pairKind, settings, from, r);
    }

    static JavaSparkContext open(String master) {
        return open(master, "structlr train");
    }

    static JavaSparkContext open(String master, String app) {
        SparkConf conf = new SparkConf().setAppName(app).setMaster(master);
        if (master.startsWith("local")) {
            // an embedded Spark talks to itself only: keep it on the loopback interface
            conf.setIfMissing("spark.driver.host", "127.0.0.1").setIfMissing("spark.driver.bindAddress", "127.0.0.1");
            conf.setIfMissing("spark.ui.enabled", "false");
        }
        try {
            JavaSparkContext sc = new JavaSparkContext(conf);
            sc.setLogLevel("WARN");
            return sc;
        } catch (RuntimeException e) {
            throw new BadInputException("--spark " + master + ": cannot start Spark: " + e.getMessage());
        }
    }

    /**
     * A standalone master that does not answer would only show after Spark's three 20-second
     * registration attempts, as a log line; one connection attempt says it at once.
     */
    static void checkReachable(String master) {
        if (!master.startsWith("spark://")) return;
        for (String hostPort : master.substring("spark://".length()).split(",")) {
            URI u = URI.create("spark://" + hostPort);
            if (u.getHost() == null || u.getPort() < 0) throw new BadInputException("--spark " + master + ": not spark://HOST:PORT");
            try (Socket s = new Socket()) {
                s.connect(new InetSocketAddress(u.getHost(), u.getPort()), 5000);
                return;
            } catch (IOException e) {
                // try the next master of a list
            }
        }
        throw new BadInputException("--spark " + master + ": cannot reach the Spark master (nothing answers at that address)");
    }

    private static void closeQuietly(Oracle o) {
        if (o instanceof AutoCloseable c) {
            try {
                c.close();
            } catch (Exception ignored) {
                // a cache that cannot be freed is no reason to lose a trained model
            }
        }
    }
}
