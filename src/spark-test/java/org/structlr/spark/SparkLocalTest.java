package org.structlr.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.structlr.learn.DataHashes;
import org.structlr.data.Dataset;
import org.structlr.data.DenoisingGenerator;
import org.structlr.learn.Checkpoint;
import org.structlr.learn.IterationRecord;
import org.structlr.learn.LearnListener;
import org.structlr.learn.LearnSettings;
import org.structlr.learn.LearnerState;
import org.structlr.learn.StateSink;
import org.structlr.learn.Training;

/**
 * The Spark learner on an embedded {@code local[2]} Spark gives the single-machine numbers: the
 * objective of every iteration within 1e-5 (relative), the same training and test errors, and
 * checkpoints that either learner resumes.
 */
class SparkLocalTest {
    static Dataset data;
    static final LearnSettings SETTINGS = new LearnSettings(4, 0.1, 10, 10, 3);

    @TempDir
    Path tmp;

    @BeforeAll
    static void data() {
        data = new DenoisingGenerator().generate(4, 4, 32, 32, 17);
    }

    static Training.Outcome single(String u, String p) {
        return Training.train(data, u, p, SETTINGS, 1, LearnListener.NONE);
    }

    static Training.Outcome spark(String master, String u, String p, LearnerState from, StateSink sink) {
        return new SparkTraining().train(master, data, u, p, SETTINGS, 1, LearnListener.NONE, from, sink);
    }

    /** Every iteration: objective within 1e-5 relative, identical errors. */
    static void assertSameCurve(Training.Outcome expected, Training.Outcome actual) {
        assertEquals(expected.curve().size(), actual.curve().size());
        for (int k = 0; k < expected.curve().size(); k++) {
            IterationRecord e = expected.curve().get(k), a = actual.curve().get(k);
            assertEquals(e.iteration(), a.iteration(), "the evaluated iterations");
            assertEquals(e.objective(), a.objective(), 1e-5 * Math.abs(e.objective()), "objective, iteration " + e.iteration());
            assertEquals(e.trainError(), a.trainError(), 0.0, "training error, iteration " + e.iteration());
            assertEquals(e.testError(), a.testError(), 0.0, "test error, iteration " + e.iteration());
        }
    }

    /**
     * (linear, linear): the curves agree, and a checkpoint either learner writes after iteration 2
     * is one the other resumes to the uninterrupted run's numbers.
     */
    @Test
    void linearLinearOnLocal2MatchesOneMachineAndCheckpointsCross() {
        String u = "linear", p = "linear";
        Path fromSpark = tmp.resolve("from-spark"), fromOne = tmp.resolve("from-one");
        Training.Outcome one = Training.train(data, u, p, SETTINGS, 1, LearnListener.NONE, null, new SaveAt(2, fromOne, u, p));
        Training.Outcome two = spark("local[2]", u, p, null, new SaveAt(2, fromSpark, u, p));
        assertSameCurve(one, two);
        IterationRecord first = one.curve().get(0), last = one.curve().get(one.curve().size() - 1);
        assertTrue(last.objective() < first.objective(), "the objective decreases");

        Training.Outcome resumedHere = Training.train(data, u, p, SETTINGS, 1, LearnListener.NONE, Checkpoint.load(fromSpark).state(), StateSink.NONE);
        assertSameCurve(one, resumedHere);
        Training.Outcome resumedOnSpark = spark("local[2]", u, p, Checkpoint.load(fromOne).state(), StateSink.NONE);
        assertSameCurve(one, resumedOnSpark);
    }

    /**
     * The schedules that pass adaptively (a Spark job per dual read) and extrapolate (the line's R
     * summed over partitions, a stage per move), evaluating every k-th iteration: one machine's rows
     * (the same iterations), objective within 1e-5 relative, the same errors. The schedule must
     * matter here: its final objective is not the paper schedule's.
     */
    @ParameterizedTest
    @CsvSource({"adaptive, 2, 10", "adaptive-extrapolate, 3, -1"})
    void everyScheduleWithEvalEveryOnLocal2MatchesOneMachine(String schedule, int evalEvery, int evalSweeps) {
        // evalSweeps -1 = auto: the executors count the test variables for K (LearnSettings.evalSweepsFor)
        LearnSettings s = new LearnSettings(5, 0.1, 5, evalSweeps, evalEvery, 3, schedule);
        Training.Outcome one = Training.train(data, "linear", "linear", s, 1, LearnListener.NONE);
        Training.Outcome paper = Training.train(data, "linear", "linear", s.withSchedule("paper"), 1, LearnListener.NONE);
        assertTrue(Math.abs(last(one).objective() - last(paper).objective()) > 1e-3 * last(paper).objective(),
                schedule + " ends where the paper schedule does: the test would not see it");
        Training.Outcome spark = new SparkTraining().train("local[2]", data, "linear", "linear", s, 1, LearnListener.NONE, null, StateSink.NONE);
        assertEquals(rows(s), one.curve().stream().map(IterationRecord::iteration).toList());
        assertSameCurve(one, spark);
    }

    /** The iterations a run with these settings evaluates. */
    static java.util.List<Integer> rows(LearnSettings s) {
        java.util.List<Integer> out = new java.util.ArrayList<>();
        for (int it = 1; it <= s.iterations(); it++) if (s.evaluates(it)) out.add(it);
        return out;
    }

    /**
     * The command line: {@code train --spark local[2] --schedule extrapolate --eval-every 5} on a
     * denoising set gives one machine's curve (rows 1, 5, 10; objective within 1e-5 relative, the
     * same errors), and extrapolation took steps (the paper schedule's curve is another).
     */
    @Test
    void extrapolateEvalEvery5FromTheCommandLineMatchesOneMachine() throws IOException {
        Path dataDir = tmp.resolve("cli-data");
        new DenoisingGenerator().generateTo(dataDir, 4, 4, 32, 32, 17);
        String[] common = {"train", "--data", dataDir.toString(), "--unary", "linear", "--pairwise", "linear", "--iterations", "10",
                "--sweeps", "10", "--eval-sweeps", "10", "--eval-every", "5", "--threads", "1", "--quiet"};
        java.util.List<double[]> one = csv(common, "--schedule", "extrapolate", "--csv", tmp.resolve("one.csv").toString());
        java.util.List<double[]> two = csv(common, "--schedule", "extrapolate", "--spark", "local[2]", "--csv", tmp.resolve("two.csv").toString());
        java.util.List<double[]> paper = csv(common, "--schedule", "paper", "--csv", tmp.resolve("paper.csv").toString());
        assertEquals(java.util.List.of(1.0, 5.0, 10.0), one.stream().map(r -> r[0]).toList());
        assertEquals(one.size(), two.size());
        for (int k = 0; k < one.size(); k++) {
            double[] a = one.get(k), b = two.get(k);
            assertEquals(a[0], b[0], 0.0, "iteration");
            assertEquals(a[1], b[1], 1e-5 * Math.abs(a[1]), "objective, iteration " + a[0]);
            assertEquals(a[2], b[2], 0.0, "training error, iteration " + a[0]);
            assertEquals(a[3], b[3], 0.0, "test error, iteration " + a[0]);
        }
        assertTrue(one.get(2)[1] < paper.get(2)[1] - 1e-3, "extrapolation ends below the paper schedule: " + one.get(2)[1] + " vs " + paper.get(2)[1]);
    }

    /** Runs {@code train} and reads its --csv: iteration, objective, train error, test error per row. */
    private java.util.List<double[]> csv(String[] common, String... more) throws IOException {
        String[] args = java.util.Arrays.copyOf(common, common.length + more.length);
        System.arraycopy(more, 0, args, common.length, more.length);
        SparkClusterTest.Run r = SparkClusterTest.cli(args);
        assertEquals(org.structlr.cli.Main.EXIT_OK, r.code(), r.err());
        Path file = Path.of(more[java.util.Arrays.asList(more).indexOf("--csv") + 1]);
        return java.nio.file.Files.readAllLines(file).stream().skip(1).map(l -> {
            String[] f = l.split(",");
            return new double[] {Double.parseDouble(f[0]), Double.parseDouble(f[1]), Double.parseDouble(f[2]), Double.parseDouble(f[3])};
        }).toList();
    }

    /** Constant unary (per-partition aggregates into the single-machine Newton), zero pairwise. */
    /** Not yet on Spark: void training labels are refused before Spark starts, with one error naming the example. */
    @Test
    void voidTrainingLabelsAreRefusedForNow() {
        java.util.List<org.structlr.data.Example> train = new java.util.ArrayList<>(data.train());
        org.structlr.data.Example e = train.get(1);
        int[] y = e.labels();
        y[3] = org.structlr.data.Example.VOID;
        org.structlr.data.Example.Builder b = org.structlr.data.Example.builder(e.unary(), e.unaryDim(), e.edges(), e.pairwise(), e.pairDim())
                .labels(y).numLabels(2).source(java.nio.file.Path.of("one-void.npz"));
        e.shape().ifPresent(s -> b.shape(s[0], s[1]));
        train.set(1, b.build());
        Dataset withVoid = Dataset.of(train, data.test(), java.util.List.of());
        org.structlr.data.BadInputException x = org.junit.jupiter.api.Assertions.assertThrows(org.structlr.data.BadInputException.class,
                () -> new SparkTraining().train("local[2]", withVoid, "linear", "linear", SETTINGS, 1, LearnListener.NONE, null, StateSink.NONE));
        assertTrue(x.getMessage().startsWith("one-void.npz: has void labels") && x.getMessage().contains("train without --spark"), x.getMessage());
    }

    @Test
    void constZeroOnLocal2MatchesOneMachine() {
        assertSameCurve(single("const", "zero"), spark("local[2]", "const", "zero", null, StateSink.NONE));
    }

    /**
     * Lineage cuts after every iteration, their states written by the executors into the lineage
     * folder (seen there during the run, gone after it) or passed through the driver: the same
     * curve as one machine either way.
     */
    @Test
    void lineageCutsEveryIterationOnExecutorsOrThroughTheDriverKeepTheCurve() throws IOException {
        Training.Outcome one = single("linear", "linear");
        Path lineage = tmp.resolve("lineage");
        java.nio.file.Files.createDirectories(lineage);
        long[] filesSeen = new long[1];
        System.setProperty("spark.structlr.cutEvery", "1");
        System.setProperty(SparkTraining.LINEAGE_DIR, lineage.toUri().toString());
        try {
            Training.Outcome executors = new SparkTraining().train("local[2]", data, "linear", "linear", SETTINGS, 1, (rec, total) -> {
                try (var w = java.nio.file.Files.walk(lineage)) {
                    filesSeen[0] = Math.max(filesSeen[0], w.filter(f -> f.getFileName().toString().startsWith("part-")).count());
                } catch (IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            }, null, StateSink.NONE);
            assertSameCurve(one, executors);
            assertEquals(4, filesSeen[0], "one states file per block (2 train + 2 test) in the lineage folder during the run");
            try (var l = java.nio.file.Files.list(lineage)) {
                assertEquals(0, l.count(), "the lineage folder is emptied after the run");
            }
            System.setProperty(SparkTraining.LINEAGE_DIR, SparkTraining.LINEAGE_ON_DRIVER);
            assertSameCurve(one, spark("local[2]", "linear", "linear", null, StateSink.NONE));
        } finally {
            System.clearProperty("spark.structlr.cutEvery");
            System.clearProperty(SparkTraining.LINEAGE_DIR);
        }
    }

    /** A lineage folder that cannot be made: one error naming the property and the folder, exit 2, no model. */
    @Test
    void lineageFolderThatCannotBeMadeIsOneError() throws IOException {
        Path dataDir = tmp.resolve("data"), model = tmp.resolve("model");
        new DenoisingGenerator().generateTo(dataDir, 2, 1, 8, 8, 5);
        Path file = java.nio.file.Files.writeString(tmp.resolve("a-file"), "not a folder");
        String lineage = file.resolve("lineage").toUri().toString();
        System.setProperty(SparkTraining.LINEAGE_DIR, lineage);
        try {
            SparkClusterTest.Run r = SparkClusterTest.cli("train", "--data", dataDir.toString(), "--spark", "local[1]", "--iterations", "1",
                    "--output", model.toString(), "--quiet");
            assertEquals(org.structlr.cli.Main.EXIT_USAGE, r.code(), r.err());
            assertTrue(r.err().startsWith("error: " + SparkTraining.LINEAGE_DIR + " " + lineage + ": cannot make the lineage folder there"), r.err());
            assertTrue(!java.nio.file.Files.exists(model), "no model written");
        } finally {
            System.clearProperty(SparkTraining.LINEAGE_DIR);
        }
    }

    static LearnSettings iterations(int n) {
        return new LearnSettings(n, SETTINGS.eps(), SETTINGS.sweepsPerFit(), SETTINGS.evalSweeps(), SETTINGS.seed());
    }

    /** Runs with the Spark property {@code spark.structlr.partitions} set (read by SparkTraining from the system properties). */
    static Training.Outcome withPartitions(int partitions, java.util.function.Supplier<Training.Outcome> run) {
        System.setProperty("spark.structlr.partitions", Integer.toString(partitions));
        try {
            return run.get();
        } finally {
            System.clearProperty("spark.structlr.partitions");
        }
    }

    /**
     * Parameter averaging over ONE partition is the single-machine MLP fit (same start, same
     * shuffle, the network's parameters and momentum through their float-array form and back),
     * also when each fit is cut into rounds of 3 mini-batch steps (10 steps per fit here: 4 rounds,
     * the state going through the driver between them): identical curves. This is what makes the
     * averaging's plumbing testable exactly.
     */
    @Test
    void mlpAveragedOverOnePartitionIsTheSingleMachineFit() {
        LearnSettings three = iterations(3);
        Training.Outcome one = Training.train(data, "mlp", "zero", three, 1, LearnListener.NONE);
        System.setProperty(DistributedFits.AVERAGE_EVERY, "3");
        try {
            Training.Outcome spark = withPartitions(1, () -> new SparkTraining().train("local[2]", data, "mlp", "zero", three, 1,
                    LearnListener.NONE, null, StateSink.NONE));
            assertSameCurve(one, spark);
        } finally {
            System.clearProperty(DistributedFits.AVERAGE_EVERY);
        }
    }

    /**
     * (mlp, linear), 10 iterations, two partitions: the MLP is fitted by parameter averaging (not the
     * single-machine SGD sequence), so only the learning is compared: test error within 0.005 of
     * one machine's, and far below the error of labelling by the noisy pixel alone (iteration 1).
     */
    @Test
    void mlpLinearAveragedOnLocal2WithinHalfAPercentOfOneMachine() {
        LearnSettings ten = iterations(10);
        Training.Outcome one = Training.train(data, "mlp", "linear", ten, 1, LearnListener.NONE);
        Training.Outcome spark = new SparkTraining().train("local[2]", data, "mlp", "linear", ten, 1, LearnListener.NONE, null, StateSink.NONE);
        double e1 = last(one).testError(), e2 = last(spark).testError();
        System.out.printf("(mlp, linear) 10 iterations: test error one machine %.5f, local[2] averaged %.5f%n", e1, e2);
        assertEquals(e1, e2, 0.005, "test error after 10 iterations");
        assertTrue(e2 < spark.curve().get(0).testError(), "the averaged run learns");
    }

    /**
     * (boost, boost), 10 iterations, with {@code spark.structlr.boost.onDriver}: the trees fitted on
     * the gathered rows by the single-machine oracle give the one-machine curve. (The default,
     * XGBoost's collective over the partitions, is tested in {@link SparkBoostTest}.)
     */
    @Test
    void boostOnTheDriverMatchesOneMachine() {
        LearnSettings ten = iterations(10);
        Training.Outcome one = Training.train(data, "boost", "boost", ten, 1, LearnListener.NONE);
        System.setProperty(DistributedFits.BOOST_ON_DRIVER, "true");
        try {
            Training.Outcome spark = new SparkTraining().train("local[2]", data, "boost", "boost", ten, 1, LearnListener.NONE, null, StateSink.NONE);
            assertSameCurve(one, spark);
        } finally {
            System.clearProperty(DistributedFits.BOOST_ON_DRIVER);
        }
    }

    static IterationRecord last(Training.Outcome o) {
        return o.curve().get(o.curve().size() - 1);
    }

    /** Saves the state after one given iteration into a folder. */
    record SaveAt(int at, Path dir, String u, String p) implements StateSink {
        @Override public boolean wants(int iteration, int total) { return iteration == at; }
        @Override public void accept(LearnerState s) throws IOException {
            new Checkpoint(u, p, SETTINGS, 1, DataHashes.dataHash(data), s).save(dir);
        }
    }
}
