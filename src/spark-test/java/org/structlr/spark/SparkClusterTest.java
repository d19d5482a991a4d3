package org.structlr.spark;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.structlr.cli.Main;
import org.structlr.data.DenoisingGenerator;
import org.structlr.learn.IterationRecord;
import org.structlr.learn.LearnListener;
import org.structlr.learn.LearnSettings;
import org.structlr.learn.StateSink;
import org.structlr.learn.Training;
import org.structlr.model.ExampleBatch;

/**
 * The Spark learner on a standalone cluster of two workers on the loopback interface, started by
 * the test ({@link LoopbackCluster}): the single-machine numbers, a worker killed during training
 * changing nothing, and bad input refused with one clear error before anything is written.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class SparkClusterTest {
    @TempDir
    static Path tmp;
    static LoopbackCluster cluster;
    static Training.Outcome undisturbed;

    @BeforeAll
    static void startCluster() throws IOException, InterruptedException {
        SparkLocalTest.data();
        cluster = new LoopbackCluster(Files.createDirectories(tmp.resolve("cluster")), 2);
        for (Map.Entry<String, String> e : cluster.driverProperties().entrySet()) System.setProperty(e.getKey(), e.getValue());
    }

    @AfterAll
    static void stopCluster() {
        if (cluster != null) {
            for (String k : cluster.driverProperties().keySet()) System.clearProperty(k);
            cluster.close();
        }
    }

    /** Two iterations: each linear fit is one Spark job per L-BFGS evaluation, which costs most of a run's time here. */
    static final LearnSettings SETTINGS = new LearnSettings(2, 0.1, 10, 10, 3);

    static Training.Outcome onCluster(LearnListener listener) {
        return new SparkTraining().train(cluster.url(), SparkLocalTest.data, "linear", "linear",
                SETTINGS, 1, listener, null, StateSink.NONE);
    }

    @Test
    @Order(1)
    void linearLinearOnTwoWorkersMatchesOneMachine() {
        undisturbed = onCluster(LearnListener.NONE);
        SparkLocalTest.assertSameCurve(Training.train(SparkLocalTest.data, "linear", "linear", SETTINGS, 1, LearnListener.NONE), undisturbed);
    }

    /**
     * A worker (and with it its executor and the partitions cached there) killed after iteration 1,
     * before iteration 2 starts: the listener kills it and waits until the driver has seen the
     * executor go, so the kill cannot land after training (the learner waits for the listener);
     * iteration 2's stages then find the partitions gone, Spark reruns the lost tasks from the
     * lineage, and the run ends with the undisturbed run's model, bit for bit.
     */
    @Test
    @Order(9)
    void workerKilledDuringTrainingChangesNothing() {
        if (undisturbed == null) undisturbed = onCluster(LearnListener.NONE);
        int[] executorsBefore = new int[1], executorsAfter = new int[1];
        Training.Outcome disturbed = onCluster((rec, total) -> {
            if (rec.iteration() != 1) return;
            org.apache.spark.SparkContext sc = org.apache.spark.SparkContext.getOrCreate();
            executorsBefore[0] = sc.statusTracker().getExecutorInfos().length;   // the driver counts too
            cluster.killWorker(1);
            long deadline = System.nanoTime() + 120_000_000_000L;
            while ((executorsAfter[0] = sc.statusTracker().getExecutorInfos().length) >= executorsBefore[0] && System.nanoTime() < deadline) {
                try {
                    Thread.sleep(200);
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
            }
        });
        assertEquals(3, executorsBefore[0], "two executors and the driver before the kill");
        assertEquals(2, executorsAfter[0], "the driver saw the killed worker's executor go before iteration 2");
        assertEquals(undisturbed.curve().size(), disturbed.curve().size());
        for (int k = 0; k < undisturbed.curve().size(); k++) {
            IterationRecord a = undisturbed.curve().get(k), b = disturbed.curve().get(k);
            assertEquals(a.objective(), b.objective(), 0.0, "objective, iteration " + a.iteration());
            assertEquals(a.trainError(), b.trainError(), 0.0);
            assertEquals(a.testError(), b.testError(), 0.0);
        }
        var data = SparkLocalTest.data;
        ExampleBatch batch = new ExampleBatch(data.train(), data.numLabels(), Training.pairTypeNames(data.numPairTypes()));
        assertArrayEquals(scores(undisturbed, batch, -1), scores(disturbed, batch, -1), "unary function");
        for (int t = 0; t < data.numPairTypes(); t++) assertArrayEquals(scores(undisturbed, batch, t), scores(disturbed, batch, t), "pairwise type " + t);
    }

    /** The function's scores on the training rows: -1 the unary type, t the pairwise type t. */
    private static float[] scores(Training.Outcome o, ExampleBatch batch, int type) {
        INDArray s = type >= 0 ? o.model().pair().get(type).scores(batch.pairFeatures(type)) : o.model().unary().scores(batch.unaryFeatures());
        return s.reshape(-1).toFloatVector();
    }

    record Run(int code, String out, String err) {}

    static Run cli(String... args) {
        StringWriter out = new StringWriter(), err = new StringWriter();
        int code = Main.execute(new PrintWriter(out, true), new PrintWriter(err, true), args);
        return new Run(code, out.toString(), err.toString());
    }

    @Test
    @Order(2)
    void brokenNpzAmongGoodOnesIsOneErrorNamingIt() throws IOException {
        Path data = tmp.resolve("broken");
        new DenoisingGenerator().generateTo(data, 12, 2, 8, 8, 5);
        Path bad;
        try (var s = Files.list(data.resolve("train"))) {
            bad = s.sorted().toList().get(7);
        }
        Files.write(bad, new byte[] {'P', 'K', 3, 4, 0, 0});        // a truncated zip
        Path model = tmp.resolve("broken-model");
        Run r = cli("train", "--data", data.toString(), "--spark", cluster.url(), "--iterations", "1", "--output", model.toString(), "--quiet");
        assertEquals(Main.EXIT_USAGE, r.code(), r.err());
        assertTrue(r.err().startsWith("error: " + bad), r.err());
        assertEquals(1, r.err().lines().filter(l -> l.startsWith("error:")).count(), r.err());
        assertFalse(Files.exists(model), "no model written");
    }

    @Test
    @Order(3)
    void missingDataPathIsOneErrorNamingIt() {
        Path missing = tmp.resolve("no-such-data");
        Path model = tmp.resolve("missing-model");
        Run r = cli("train", "--data", missing.toString(), "--spark", cluster.url(), "--iterations", "1", "--output", model.toString(), "--quiet");
        assertEquals(Main.EXIT_USAGE, r.code(), r.err());
        assertTrue(r.err().startsWith("error: " + missing), r.err());
        assertFalse(Files.exists(model), "no model written");
    }

    @Test
    @Order(4)
    void unreachableMasterIsOneErrorNamingTheAddress() throws IOException {
        Path data = tmp.resolve("good");
        new DenoisingGenerator().generateTo(data, 2, 1, 8, 8, 5);
        int closed;
        try (java.net.ServerSocket s = new java.net.ServerSocket(0)) {
            closed = s.getLocalPort();
        }
        String master = "spark://127.0.0.1:" + closed;
        Path model = tmp.resolve("unreachable-model");
        Run r = cli("train", "--data", data.toString(), "--spark", master, "--iterations", "1", "--output", model.toString(), "--quiet");
        assertEquals(Main.EXIT_USAGE, r.code(), r.err());
        assertTrue(r.err().startsWith("error: --spark " + master + ": cannot reach the Spark master"), r.err());
        assertFalse(Files.exists(model), "no model written");
    }

    /**
     * The command line on the cluster with file: URIs for data and model (constant and zero classes:
     * a few Spark jobs per iteration): the single-machine final line.
     */
    @Test
    @Order(5)
    void trainOnTheClusterFromTheCommandLine() throws IOException {
        Path data = tmp.resolve("cli-data");
        new DenoisingGenerator().generateTo(data, 2, 2, 16, 16, 9);
        Path model = tmp.resolve("cli-model");
        String[] common = {"train", "--data", data.toUri().toString(), "--unary", "const", "--pairwise", "zero", "--iterations", "2",
                "--sweeps", "5", "--eval-sweeps", "5", "--quiet"};
        Run r = cli(concat(common, "--spark", cluster.url(), "--output", model.toUri().toString()));
        assertEquals(Main.EXIT_OK, r.code(), r.err());
        Run local = cli(common);
        assertEquals(Main.EXIT_OK, local.code(), local.err());
        // the final line: iteration, objective (5 decimals), errors; the seconds differ
        assertEquals(local.out().lines().findFirst().orElseThrow().replaceAll("\\s+[0-9.]+ s$", ""),
                r.out().lines().findFirst().orElseThrow().replaceAll("\\s+[0-9.]+ s$", ""));
        assertTrue(Files.isDirectory(model));
    }

    /**
     * Parameter averaging across executor JVMs: (mlp, zero), 2 iterations, on the two workers gives
     * the local[2] run bit for bit (same blocks, each block's network fitted from the same broadcast
     * start, the average taken in block order), and its networks score identically.
     */
    @Test
    @Order(6)
    void mlpAveragedOnTwoWorkersIsTheLocalRunBitForBit() {
        LearnSettings three = new LearnSettings(2, SETTINGS.eps(), SETTINGS.sweepsPerFit(), SETTINGS.evalSweeps(), SETTINGS.seed());
        var data = SparkLocalTest.data;
        Training.Outcome onWorkers = new SparkTraining().train(cluster.url(), data, "mlp", "zero", three, 1, LearnListener.NONE, null, StateSink.NONE);
        Training.Outcome local = new SparkTraining().train("local[2]", data, "mlp", "zero", three, 1, LearnListener.NONE, null, StateSink.NONE);
        assertEquals(local.curve().size(), onWorkers.curve().size());
        for (int k = 0; k < local.curve().size(); k++) {
            IterationRecord a = local.curve().get(k), b = onWorkers.curve().get(k);
            assertEquals(a.objective(), b.objective(), 0.0, "objective, iteration " + a.iteration());
            assertEquals(a.testError(), b.testError(), 0.0, "test error, iteration " + a.iteration());
        }
        ExampleBatch batch = new ExampleBatch(data.train(), data.numLabels(), Training.pairTypeNames(data.numPairTypes()));
        assertArrayEquals(scores(local, batch, -1), scores(onWorkers, batch, -1), "unary network");
    }

    /** predict --spark on the two workers: the executors read and write the (shared) files; the one-machine outputs. */
    @Test
    @Order(7)
    void predictOnTwoWorkersGivesTheOneMachineOutputs() throws IOException {
        Path data = tmp.resolve("predict-data"), in = tmp.resolve("predict-in"), model = tmp.resolve("predict-model");
        new DenoisingGenerator().generateTo(data, 2, 4, 12, 12, 11);
        Run t = cli("train", "--data", data.toString(), "--unary", "linear", "--pairwise", "linear", "--iterations", "1", "--sweeps", "5",
                "--eval-sweeps", "0", "--output", model.toString(), "--quiet");
        assertEquals(Main.EXIT_OK, t.code(), t.err());
        Run one = cli("predict", "--model", model.toString(), "--input", data.resolve("test").toString(), "--output", tmp.resolve("p-one").toString(), "--quiet");
        assertEquals(Main.EXIT_OK, one.code(), one.err());
        Run two = cli("predict", "--spark", cluster.url(), "--model", model.toUri().toString(), "--input", data.resolve("test").toUri().toString(),
                "--output", tmp.resolve("p-two").toUri().toString(), "--quiet");
        assertEquals(Main.EXIT_OK, two.code(), two.err());
        try (var s = Files.list(tmp.resolve("p-one"))) {
            List<Path> files = s.sorted().toList();
            assertEquals(4, files.size());
            for (Path f : files) {
                assertEquals(org.structlr.data.Npz.read(f), org.structlr.data.Npz.read(tmp.resolve("p-two").resolve(f.getFileName())), f.toString());
            }
        }
    }

    /**
     * Boosted trees through XGBoost's collective across the two executor JVMs (tracker on the
     * driver, one worker per training partition in a barrier stage): (boost, boost), 2 iterations,
     * gives the local[2] run bit for bit (same partitions, the same all-reduced histograms), and
     * its functions score identically.
     */
    @Test
    @Order(8)
    void boostOnTwoWorkersIsTheLocalRunBitForBit() {
        LearnSettings two = new LearnSettings(2, SETTINGS.eps(), SETTINGS.sweepsPerFit(), SETTINGS.evalSweeps(), SETTINGS.seed());
        var data = SparkLocalTest.data;
        Training.Outcome onWorkers = SparkLocalTest.withPartitions(2, () -> new SparkTraining().train(cluster.url(), data, "boost", "boost", two, 1,
                LearnListener.NONE, null, StateSink.NONE));
        Training.Outcome local = SparkLocalTest.withPartitions(2, () -> new SparkTraining().train("local[2]", data, "boost", "boost", two, 1,
                LearnListener.NONE, null, StateSink.NONE));
        SparkBoostTest.assertSameBits(data, local, onWorkers);
    }

    private static String[] concat(String[] a, String... b) {
        String[] out = java.util.Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }
}
