package org.structlr.spark;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.structlr.learn.DataHashes;
import org.structlr.cli.Main;
import org.structlr.data.Dataset;
import org.structlr.data.DatasetSummary;
import org.structlr.data.DenoisingGenerator;
import org.structlr.data.Example;
import org.structlr.data.ExampleIO;
import org.structlr.learn.Checkpoint;
import org.structlr.learn.Checkpointer;
import org.structlr.learn.ClusterTraining;
import org.structlr.learn.LearnListener;
import org.structlr.learn.LearnSettings;
import org.structlr.learn.StateSink;
import org.structlr.learn.Training;
import org.structlr.model.CrfModel;
import org.structlr.oracle.ParametricScore;

/**
 * Executors read their own examples, and checkpoints live on a Hadoop file system. The data sits
 * on {@code blindfs://} ({@link DriverBlindFileSystem}), which refuses to open an example file on
 * the driver: a run that succeeds there read every example in Spark tasks.
 */
class SparkDataTest {
    static final LearnSettings SETTINGS = new LearnSettings(4, 0.1, 10, 10, 3);
    /** The CLI options of SETTINGS (linear, linear, one thread). */
    static final List<String> OPTIONS = List.of("--unary", "linear", "--pairwise", "linear", "--eps", "0.1", "--sweeps", "10",
            "--eval-sweeps", "10", "--seed", "3", "--threads", "1", "--quiet");

    @TempDir
    Path tmp;

    @BeforeAll
    static void register() {
        System.setProperty("spark.hadoop.fs.blindfs.impl", DriverBlindFileSystem.class.getName());
        System.setProperty("spark.hadoop.fs.blindfs.impl.disable.cache", "true");
    }

    @AfterAll
    static void unregister() {
        System.clearProperty("spark.hadoop.fs.blindfs.impl");
        System.clearProperty("spark.hadoop.fs.blindfs.impl.disable.cache");
    }

    @BeforeEach
    void reset() {
        DriverBlindFileSystem.reset();
    }

    static String blind(Path p) {
        return DriverBlindFileSystem.SCHEME + "://" + p.toAbsolutePath();
    }

    record Run(int code, String out, String err) {}

    static Run run(List<String> options, String... args) {
        List<String> all = new ArrayList<>(List.of(args));
        all.addAll(options);
        StringWriter out = new StringWriter(), err = new StringWriter();
        int code = Main.execute(new PrintWriter(out, true), new PrintWriter(err, true), all.toArray(new String[0]));
        return new Run(code, out.toString(), err.toString());
    }

    static Set<String> npzFiles(Path root) throws IOException {
        try (Stream<Path> s = Files.walk(root)) {
            return s.filter(p -> p.toString().endsWith(".npz")).map(p -> p.toAbsolutePath().toString()).collect(Collectors.toSet());
        }
    }

    static List<String> names(Path dir) throws IOException {
        if (!Files.isDirectory(dir)) return List.of();
        try (Stream<Path> s = Files.list(dir)) {
            return s.map(p -> p.getFileName().toString()).sorted().toList();
        }
    }

    /** The parameters of a model's (linear) functions, unary then pairwise types, bit for bit. */
    static List<String> parameters(CrfModel m) {
        List<String> out = new ArrayList<>();
        out.add(Arrays.toString(((ParametricScore) m.unary()).parameters()));
        for (var f : m.pair()) out.add(Arrays.toString(((ParametricScore) f).parameters()));
        return out;
    }

    static List<String> parameters(Path model) {
        return parameters(CrfModel.load(model));
    }

    /** A CSV curve without its time columns. */
    static List<String> curve(Path csv) throws IOException {
        return Files.readAllLines(csv).stream().map(l -> String.join(",", Arrays.copyOf(l.split(","), 4))).toList();
    }

    /** Curves (iteration, objective, train error, test error): objectives within 1e-5 relative, identical errors. */
    static void assertSameCurve(List<String> expected, List<String> actual) {
        assertEquals(expected.size(), actual.size(), "rows");
        assertEquals(expected.get(0), actual.get(0), "header");
        for (int k = 1; k < expected.size(); k++) {
            String[] e = expected.get(k).split(","), a = actual.get(k).split(",");
            assertEquals(e[0], a[0], "iteration");
            double oe = Double.parseDouble(e[1]), oa = Double.parseDouble(a[1]);
            assertEquals(oe, oa, 1e-5 * Math.abs(oe), "objective, iteration " + e[0]);
            assertEquals(e[2], a[2], "training error, iteration " + e[0]);
            assertEquals(e[3], a[3], "test error, iteration " + e[0]);
        }
    }

    /**
     * The executors read every example (the driver opened none) and the numbers are those of the
     * examples shipped from the driver bit for bit (same blocks, same row order), hence those of
     * one machine within 1e-5; the driver's summary and hash are those of the data set read here.
     */
    @Test
    void executorsReadTheirOwnExamplesWithTheShippedNumbers() throws IOException {
        Path dir = tmp.resolve("data");
        new DenoisingGenerator().generateTo(dir, 5, 3, 24, 24, 17);
        Dataset local = Dataset.load(dir);
        Training.Outcome one = Training.train(local, "linear", "linear", SETTINGS, 1, LearnListener.NONE);
        Training.Outcome shipped = new SparkTraining().train("local[2]", local, "linear", "linear", SETTINGS, 1, LearnListener.NONE, null, StateSink.NONE);
        Training.Outcome read;
        try (ClusterTraining.Session s = new SparkTraining().session("local[2]")) {
            ClusterTraining.ClusterDataset ds = s.read(blind(dir));
            DatasetSummary l = local.summary();
            assertEquals(new DatasetSummary(blind(dir), l.trainExamples(), l.testExamples(), l.valExamples(), l.numLabels(), l.unaryDim(),
                    l.pairDim(), l.numPairTypes(), l.trainImages(), l.allImages()), ds.summary());
            assertEquals(DataHashes.examplesHash(local), ds.examplesHash());
            assertEquals(npzFiles(dir), DriverBlindFileSystem.READ_IN_TASKS, "every example was read in a Spark task");
            read = s.train(ds, "linear", "linear", SETTINGS, 1, LearnListener.NONE, null, StateSink.NONE);
        }
        assertEquals(0, DriverBlindFileSystem.DRIVER_ATTEMPTS.get(), "the driver tried to open an example");
        assertEquals(shipped.curve().size(), read.curve().size());
        for (int k = 0; k < shipped.curve().size(); k++) {
            assertEquals(shipped.curve().get(k).objective(), read.curve().get(k).objective(), 0.0, "objective, iteration " + (k + 1));
            assertEquals(shipped.curve().get(k).trainError(), read.curve().get(k).trainError(), 0.0);
            assertEquals(shipped.curve().get(k).testError(), read.curve().get(k).testError(), 0.0);
        }
        SparkLocalTest.assertSameCurve(one, read);
        assertEquals(parameters(shipped.model()), parameters(read.model()), "the same functions, bit for bit");
        assertEquals(DataHashes.examplesHash(local), read.model().provenance().get(DataHashes.EXAMPLES_HASH));
        assertNull(read.model().provenance().get(DataHashes.DATA_HASH), "the driver cannot know the data hash");
    }

    /**
     * {@code spark.structlr.readData=driver}: the driver reads the data set and ships it (the way
     * before executors read their own; for data only the driver sees). On blindfs:// that is
     * refused, which shows who reads; on a local folder it gives the executors' run bit for bit.
     */
    @Test
    void readDataOnTheDriverShipsTheSameExamples() throws IOException {
        Path dir = tmp.resolve("data");
        new DenoisingGenerator().generateTo(dir, 3, 2, 12, 12, 7);
        Run executors = run(OPTIONS, "train", "--spark", "local[2]", "--data", blind(dir), "--iterations", "2",
                "--csv", tmp.resolve("executors.csv").toString(), "--output", tmp.resolve("executors").toString());
        assertEquals(Main.EXIT_OK, executors.code(), executors.err());
        System.setProperty("spark.structlr.readData", "driver");
        try {
            Run blindDriver = run(OPTIONS, "train", "--spark", "local[2]", "--data", blind(dir), "--iterations", "2");
            assertEquals(Main.EXIT_USAGE, blindDriver.code(), blindDriver.err());
            assertTrue(blindDriver.err().contains("the driver may not read example contents"), blindDriver.err());
            assertTrue(DriverBlindFileSystem.DRIVER_ATTEMPTS.get() > 0);
            Run driver = run(OPTIONS, "train", "--spark", "local[2]", "--data", dir.toString(), "--iterations", "2",
                    "--csv", tmp.resolve("driver.csv").toString(), "--output", tmp.resolve("driver").toString());
            assertEquals(Main.EXIT_OK, driver.code(), driver.err());
        } finally {
            System.clearProperty("spark.structlr.readData");
        }
        assertEquals(curve(tmp.resolve("executors.csv")), curve(tmp.resolve("driver.csv")));
        assertEquals(parameters(tmp.resolve("executors")), parameters(tmp.resolve("driver")));
    }

    /**
     * Bad input found by the executors is the one-machine error, naming the URI: a truncated .npz
     * among good ones, an example of another width (a check across files, made on the driver from
     * the executors' facts), a broken file in val/. Exit 2, one line, no model, no checkpoint.
     */
    @Test
    void badExamplesAreTheOneMachineErrorNamingTheUriAndNothingIsWritten() throws IOException {
        Path dir = tmp.resolve("data");
        new DenoisingGenerator().generateTo(dir, 12, 3, 8, 8, 5);
        Path broken = dir.resolve("train/005.npz");
        byte[] good = Files.readAllBytes(broken);
        Files.write(broken, Arrays.copyOf(good, 60));
        assertSameErrorAsOneMachine(dir, blind(dir) + "/train/005.npz: ");
        Files.write(broken, good);

        Example wide = Example.builder(new float[3 * 4], 3, new int[] {0, 1, 1, 2, 2, 3}, new float[3 * 2], 2).labels(new int[] {0, 1, 0, 1}).build();
        ExampleIO.write(dir.resolve("test/099.npz"), wide);
        assertSameErrorAsOneMachine(dir, blind(dir) + "/test/099.npz: unary feature width 3 differs from 2 in " + blind(dir) + "/train/000.npz");
        Files.delete(dir.resolve("test/099.npz"));

        Files.createDirectories(dir.resolve("val"));
        Files.write(dir.resolve("val/000.npz"), Arrays.copyOf(good, 100));
        assertSameErrorAsOneMachine(dir, blind(dir) + "/val/000.npz: ");
        assertEquals(0, DriverBlindFileSystem.DRIVER_ATTEMPTS.get(), "the driver tried to open an example");
    }

    private void assertSameErrorAsOneMachine(Path dir, String starts) throws IOException {
        Run one = run(OPTIONS, "train", "--data", dir.toString(), "--iterations", "1", "--output", tmp.resolve("one").toString());
        Run spark = run(OPTIONS, "train", "--spark", "local[2]", "--data", blind(dir), "--iterations", "1",
                "--output", blind(tmp.resolve("model")), "--checkpoint", blind(tmp.resolve("ck")));
        assertEquals(Main.EXIT_USAGE, one.code(), one.err());
        assertEquals(Main.EXIT_USAGE, spark.code(), spark.err());
        assertTrue(spark.err().startsWith("error: " + starts), spark.err());
        assertEquals(1, spark.err().strip().lines().count(), spark.err());
        assertEquals(one.err().replace(dir.toString(), blind(dir)), spark.err(), "the one-machine message, naming the URI");
        assertFalse(Files.exists(tmp.resolve("model")), "no model");
        assertFalse(Files.exists(tmp.resolve("ck")), "no checkpoint");
    }

    /**
     * Checkpoints on a Hadoop path: a Spark run stopped after iteration 2 and resumed from its
     * blindfs:// checkpoint ends with the uninterrupted Spark run's model bit for bit; the same
     * checkpoint, read from its local folder, resumes on one machine to the one-machine numbers,
     * and a one-machine checkpoint written to a blindfs:// URI resumes on Spark from it.
     */
    @Test
    void checkpointsOnAHadoopPathResumeBitForBitAndCrossOneMachine() throws IOException {
        Path dir = tmp.resolve("data");
        new DenoisingGenerator().generateTo(dir, 4, 3, 16, 16, 17);
        String data = blind(dir);
        Run a = run(OPTIONS, "train", "--spark", "local[2]", "--data", data, "--iterations", "4",
                "--output", blind(tmp.resolve("uninterrupted")), "--csv", tmp.resolve("a.csv").toString());
        assertEquals(Main.EXIT_OK, a.code(), a.err());
        Run b = run(OPTIONS, "train", "--spark", "local[2]", "--data", data, "--iterations", "2", "--checkpoint", blind(tmp.resolve("ck-spark")));
        assertEquals(Main.EXIT_OK, b.code(), b.err());
        assertEquals(List.of("iteration-000002"), names(tmp.resolve("ck-spark")), "one checkpoint, nothing temporary");
        Checkpoint saved = Checkpoint.load(tmp.resolve("ck-spark"));       // the one-machine reader, on the local folder
        assertNull(saved.dataHash());
        assertEquals(DataHashes.examplesHash(Dataset.load(dir)), saved.examplesHash());

        Run c = run(OPTIONS, "train", "--spark", "local[2]", "--data", data, "--resume", blind(tmp.resolve("ck-spark")), "--iterations", "4",
                "--checkpoint", blind(tmp.resolve("ck-resumed")), "--checkpoint-every", "1",
                "--output", blind(tmp.resolve("resumed")), "--csv", tmp.resolve("c.csv").toString());
        assertEquals(Main.EXIT_OK, c.code(), c.err());
        assertEquals(curve(tmp.resolve("a.csv")), curve(tmp.resolve("c.csv")), "the uninterrupted curve");
        assertEquals(parameters(tmp.resolve("uninterrupted")), parameters(tmp.resolve("resumed")), "the uninterrupted model, bit for bit");
        assertEquals(List.of("iteration-000003", "iteration-000004"), names(tmp.resolve("ck-resumed")),
                "older checkpoints than the two newest deleted once the newer is in place");

        // across: one machine resumes the Spark checkpoint (a plain local path), Spark resumes one machine's (a blindfs:// URI)
        Run e = run(OPTIONS, "train", "--data", dir.toString(), "--iterations", "4", "--csv", tmp.resolve("e.csv").toString());
        assertEquals(Main.EXIT_OK, e.code(), e.err());
        assertSameCurve(curve(tmp.resolve("e.csv")), curve(tmp.resolve("a.csv")));
        Run d = run(OPTIONS, "train", "--data", dir.toString(), "--resume", tmp.resolve("ck-spark").toString(), "--iterations", "4",
                "--csv", tmp.resolve("d.csv").toString());
        assertEquals(Main.EXIT_OK, d.code(), d.err());
        assertSameCurve(curve(tmp.resolve("e.csv")), curve(tmp.resolve("d.csv")));
        // one machine (the -Pspark build) writes its checkpoint to the Hadoop path too
        Run e2 = run(OPTIONS, "train", "--data", dir.toString(), "--iterations", "2", "--checkpoint", blind(tmp.resolve("ck-one")));
        assertEquals(Main.EXIT_OK, e2.code(), e2.err());
        assertEquals(List.of("iteration-000002"), names(tmp.resolve("ck-one")));
        Run f = run(OPTIONS, "train", "--spark", "local[2]", "--data", data, "--resume", blind(tmp.resolve("ck-one")), "--iterations", "4",
                "--csv", tmp.resolve("f.csv").toString());
        assertEquals(Main.EXIT_OK, f.code(), f.err());
        assertSameCurve(curve(tmp.resolve("e.csv")), curve(tmp.resolve("f.csv")));
        // both resumes went on checkpointing into the folder they resumed from (every 5, the default, and after the last)
        assertEquals(List.of("iteration-000002", "iteration-000004"), names(tmp.resolve("ck-spark")), "the local folder resumed from");
        assertEquals(List.of("iteration-000002", "iteration-000004"), names(tmp.resolve("ck-one")), "the URI resumed from");
        assertEquals(0, DriverBlindFileSystem.DRIVER_ATTEMPTS.get(), "the driver tried to open an example");
    }

    /**
     * A checkpoint write that fails on the remote file system (its rename into place refused)
     * leaves the previous checkpoint complete and nothing temporary; the run fails, with no model.
     */
    @Test
    void aFailedCheckpointWriteLeavesThePreviousOne() throws IOException {
        Path dir = tmp.resolve("data");
        new DenoisingGenerator().generateTo(dir, 2, 1, 8, 8, 5);
        DriverBlindFileSystem.RENAMES_LEFT.set(1);
        Run r = run(OPTIONS, "train", "--spark", "local[2]", "--data", blind(dir), "--iterations", "2", "--checkpoint", blind(tmp.resolve("ck")),
                "--checkpoint-every", "1", "--output", tmp.resolve("model").toString());
        assertNotEquals(Main.EXIT_OK, r.code(), r.err());
        assertTrue(r.err().contains("iteration 2"), r.err());
        assertFalse(Files.exists(tmp.resolve("model")), "no model");
        assertEquals(List.of("iteration-000001"), names(tmp.resolve("ck")), "the previous checkpoint, nothing temporary");
        DriverBlindFileSystem.RENAMES_LEFT.set(-1);
        Checkpoint c = Checkpointer.load(blind(tmp.resolve("ck")), new HadoopFiles(), note -> { });
        assertEquals(1, c.state().iteration());
        assertArrayEquals(Checkpoint.load(tmp.resolve("ck")).state().train().messages(), c.state().train().messages());
    }
}
