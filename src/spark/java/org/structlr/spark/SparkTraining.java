package org.structlr.spark;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.apache.spark.SparkConf;
import org.apache.spark.api.java.JavaSparkContext;
import org.slf4j.LoggerFactory;
import org.structlr.learn.DataHashes;
import org.structlr.data.BadInputException;
import org.structlr.data.Dataset;
import org.structlr.data.DatasetFiles;
import org.structlr.data.DatasetSummary;
import org.structlr.data.ExampleFacts;
import org.structlr.learn.AlternatingLearner;
import org.structlr.learn.ClusterTraining;
import org.structlr.learn.ClusterTraining.ClusterDataset;
import org.structlr.learn.LearnListener;
import org.structlr.learn.LearnSettings;
import org.structlr.learn.LearnerState;
import org.structlr.learn.Oracles;
import org.structlr.learn.StateSink;
import org.structlr.learn.Training;
import org.structlr.oracle.FunctionSpec;

/**
 * {@code train --spark MASTER}: opens a Spark context on {@code MASTER} (or joins the one
 * spark-submit made), runs the one learning loop ({@link AlternatingLearner}) over the examples in
 * Spark partitions ({@link PartitionStates}) and builds the model exactly as
 * {@link Training#train} does. Settings read from the Spark configuration:
 * {@code spark.structlr.partitions} (blocks per split; default: the context's default parallelism)
 * {@code spark.structlr.cutEvery} (iterations between lineage cuts; default 5),
 * {@code spark.structlr.lineageDir} (a folder the driver and every executor reach, e.g. on HDFS, for
 * the states at lineage cuts; default: Spark's checkpoint directory if set, else a temporary folder
 * on {@code local[N]}; on a cluster without one, or with the value {@code driver}, the states of a cut
 * pass through the driver),
 * {@code spark.structlr.averageEvery} (MLP/CNN: mini-batch steps between parameter averages; default 100),
 * {@code spark.structlr.boost.timeout} (boost: seconds XGBoost's workers wait for each other; default 300) and
 * {@code spark.structlr.boost.onDriver} (boost: fit on the driver from gathered rows instead; default false).
 */
public final class SparkTraining implements ClusterTraining {
    /** Spark property: the folder for the states at lineage cuts (see the class comment). */
    static final String LINEAGE_DIR = "spark.structlr.lineageDir";
    /** Its value for lineage cuts through the driver. */
    static final String LINEAGE_ON_DRIVER = "driver";

    /**
     * Not yet: void labels on Spark (issue 21 item 2). The partitions' oracle rows are assembled from
     * the blocks' labels (DistributedFits, FcnFits, DistributedBoost), which do not leave void
     * variables out as the one-machine learner does ({@code learn.VoidRows}): refused with one error.
     */
    static void refuseVoid(String example, boolean hasVoid) {
        if (hasVoid) {
            throw new BadInputException(example + ": has void labels (" + org.structlr.data.Example.VOID + " = no label); training on void labels"
                    + " with --spark is not supported yet (train without --spark)");
        }
    }

    @Override
    public Training.Outcome train(String master, Dataset data, FunctionSpec unary, FunctionSpec pair, LearnSettings settings,
                                  int threads, LearnListener listener, LearnerState from, StateSink sink) {
        Training.checkApplicable(data, unary.name(), pair.name());
        for (org.structlr.data.Example e : data.train()) refuseVoid(e.name(), e.hasVoid());
        try (Session s = new Session(master)) {
            BlockData blocks = BlockData.shipped(s.context(), data.train(), data.test(), s.partitions);
            try {
                AlternatingLearner.Result r = s.learn(data.summary(), blocks, unary, pair, settings, threads, from, listener, sink);
                return Training.outcome(data, unary, pair, settings, from, r);
            } finally {
                blocks.release();
            }
        }
    }

    @Override
    public Session session(String master) {
        return new Session(master);
    }

    /** A data set the executors hold: what the driver knows of it, and its blocks. */
    record ReadDataset(DatasetSummary summary, Map<String, Object> info, String examplesHash, BlockData data) implements ClusterDataset {}

    /** One Spark context, opened when first needed, for reading a data set and training on it. */
    static final class Session implements ClusterTraining.Session {
        private final String master;
        private JavaSparkContext sc;
        private int partitions, cutEvery;
        /** The folder Spark writes the cuts' states into, made by this session (deleted on close), or null. */
        private String lineage;
        private final List<BlockData> held = new ArrayList<>();

        Session(String master) {
            this.master = master;
        }

        private JavaSparkContext context() {
            if (sc == null) {
                checkReachable(master);
                sc = open(master);
                partitions = sc.getConf().getInt("spark.structlr.partitions", sc.defaultParallelism());
                cutEvery = sc.getConf().getInt("spark.structlr.cutEvery", 5);
                if (partitions < 1 || cutEvery < 1) throw new BadInputException("spark.structlr.partitions and spark.structlr.cutEvery must be at least 1");
                lineage = lineageFolder(sc);
            }
            return sc;
        }

        /** Sets Spark's checkpoint directory for the lineage cuts (see the class comment); the folder Spark made in it. */
        private static String lineageFolder(JavaSparkContext sc) {
            String dir = sc.getConf().get(LINEAGE_DIR, null);
            if (LINEAGE_ON_DRIVER.equals(dir)) return null;
            try {
                if (dir == null && sc.sc().getCheckpointDir().isDefined()) return null;   // the user's own: left alone
                if (dir == null && sc.sc().isLocal()) {
                    String temp = java.nio.file.Files.createTempDirectory("structlr-lineage").toUri().toString();
                    sc.setCheckpointDir(temp);
                    return temp;
                }
                if (dir == null) {
                    LoggerFactory.getLogger(SparkTraining.class).warn("no {}: the states of every lineage cut pass through the driver;"
                            + " set it to a folder the driver and every executor reach (hdfs://...) for data sets whose messages do not fit the driver", LINEAGE_DIR);
                    return null;
                }
                sc.setCheckpointDir(dir);
                return sc.sc().getCheckpointDir().get();
            } catch (IOException | RuntimeException e) {
                throw new BadInputException(LINEAGE_DIR + " " + dir + ": cannot make the lineage folder there: " + e.getMessage());
            }
        }

        /**
         * Lists the folder here (before Spark starts: a wrong path is an error at once), then the
         * executors read their blocks' files ({@link BlockData#read}) and send back each file's
         * facts, digest or error; the first error in file order (train, test, val, as one machine
         * reads them) is the one reported, then {@link Dataset#check} runs on the facts.
         */
        @Override
        public ClusterDataset read(String location) {
            Map<String, String> hadoop = HadoopFiles.settings(new SparkConf());
            DatasetFiles files = ExampleFiles.list(location, hadoop);
            Map<String, Object> info = ExampleFiles.info(location, hadoop);
            JavaSparkContext sc = context();
            hadoop = HadoopFiles.settings(sc.getConf());
            BlockData data = BlockData.read(sc, files, partitions, hadoop);
            held.add(data);
            List<ExampleFiles.FileRead> reads = data.reads();
            List<ExampleFiles.FileRead> val = BlockData.check(sc, files.val(), partitions, hadoop);
            List<ExampleFiles.FileRead> all = new ArrayList<>(reads);
            all.addAll(val);
            for (ExampleFiles.FileRead r : all) if (r.error() != null) throw new BadInputException(r.error());
            int nTrain = files.train().size(), nTest = files.test().size();
            List<ExampleFacts> facts = all.stream().map(ExampleFiles.FileRead::facts).toList();
            DatasetSummary summary = Dataset.check(location, facts.subList(0, nTrain), facts.subList(nTrain, nTrain + nTest),
                    facts.subList(nTrain + nTest, facts.size()));
            for (ExampleFacts f : facts.subList(0, nTrain)) refuseVoid(f.name(), f.labelledVariables() < f.numVariables());
            String hash = DataHashes.examplesHash(all.stream().map(ExampleFiles.FileRead::digest).toList());
            int[] edges = facts.stream().mapToInt(ExampleFacts::numEdges).toArray();
            BlockData withEdges = data.withEdges(Arrays.copyOfRange(edges, 0, nTrain), Arrays.copyOfRange(edges, nTrain, nTrain + nTest));
            return new ReadDataset(summary, info, hash, withEdges);
        }

        @Override
        public Training.Outcome train(ClusterDataset data, FunctionSpec unary, FunctionSpec pair, LearnSettings settings, int threads,
                                      LearnListener listener, LearnerState from, StateSink sink) {
            if (!(data instanceof ReadDataset d)) throw new IllegalArgumentException("not a data set read by this session");
            DatasetSummary s = d.summary();
            Training.checkApplicable(s, unary.name(), pair.name());
            AlternatingLearner.Result r = learn(s, d.data(), unary, pair, settings, threads, from, listener, sink);
            return Training.outcome(s, d.info(), Map.of(DataHashes.EXAMPLES_HASH, d.examplesHash()), unary, pair, settings, from, r);
        }

        /** The one learning loop over the blocks of {@code blocks} on this session's context, the oracles closed after. */
        AlternatingLearner.Result learn(DatasetSummary data, BlockData blocks, FunctionSpec unary, FunctionSpec pair, LearnSettings settings,
                                        int threads, LearnerState from, LearnListener listener, StateSink sink) {
            List<String> types = Training.pairTypeNames(data.numPairTypes());
            JavaSparkContext sc = context();
            Oracles oracles = Oracles.create(data, unary, pair, settings, threads);
            boolean lineageOnExecutors = !LINEAGE_ON_DRIVER.equals(sc.getConf().get(LINEAGE_DIR, null)) && sc.sc().getCheckpointDir().isDefined();
            try (oracles; PartitionStates states = new PartitionStates(sc, blocks, settings.eps(), settings.evaluatesErrors(), data.numLabels(), types,
                    data.unaryDim(), data.pairDim(), cutEvery, lineageOnExecutors)) {
                return new AlternatingLearner(settings, oracles.unary(), oracles.pair()).train(states, from, listener, sink);
            }
        }

        @Override
        public void close() {
            if (sc == null) return;
            try {
                for (BlockData d : held) d.release();
                if (lineage != null) {
                    org.apache.hadoop.fs.Path p = new org.apache.hadoop.fs.Path(lineage);
                    p.getFileSystem(sc.hadoopConfiguration()).delete(p, true);
                }
            } catch (IOException e) {
                LoggerFactory.getLogger(SparkTraining.class).warn("cannot delete the lineage folder {}: {}", lineage, e.getMessage());
            } finally {
                sc.close();
                sc = null;
            }
        }
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
}
