package org.structlr.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.factory.Nd4j;
import org.structlr.data.DenoisingGenerator;
import org.structlr.data.Example;
import org.structlr.data.ExampleIO;
import org.structlr.model.CrfModel;
import org.structlr.oracle.ScoreFunction;

/**
 * {@code train} on data where some of the model has nothing to fit (void labels, issue 21 item 2;
 * edge types): a training split whose every pixel is void is one error naming its folder, and so
 * is a val split void everywhere with --val-every; an
 * example whose every pixel is void trains with the others (in the simple form: the same functions
 * as without it); a pairwise type without a training row (every edge touching a void pixel in the
 * simple form, or no training edge at all) is not fitted, says so in one warning line, and the
 * run goes on. Never NaN, never an ND4J shape error.
 */
class NothingToFitTest {
    @TempDir
    static Path shared;

    @TempDir
    Path tmp;

    static Path data;
    static final ObjectMapper JSON = new ObjectMapper();

    @BeforeAll
    static void generate() throws IOException {
        data = shared.resolve("data");
        new DenoisingGenerator().generateTo(data, 3, 2, 8, 8, 11);   // edge_type 0 horizontal, 1 vertical
    }

    /** A copy of the data set with the training examples {@code change} selects rewritten (it gets the example and its index). */
    static Path copy(Path to, java.util.function.BiFunction<Example, Integer, Example> change) throws IOException {
        CheckpointTest.copyTree(data, to);
        List<Path> train;
        try (Stream<Path> s = Files.list(to.resolve("train"))) {
            train = s.sorted().toList();
        }
        for (int k = 0; k < train.size(); k++) ExampleIO.write(train.get(k), change.apply(ExampleIO.read(train.get(k)), k));
        return to;
    }

    /** {@code e} with its labels and edge types changed. */
    static Example with(Example e, UnaryOperator<int[]> labels, UnaryOperator<int[]> edgeTypes) {
        Example.Builder b = Example.builder(e.unary(), e.unaryDim(), e.edges(), e.pairwise(), e.pairDim())
                .labels(labels.apply(e.labels())).numLabels(2).edgeType(edgeTypes.apply(e.edgeTypes().orElseThrow()));
        e.shape().ifPresent(s -> b.shape(s[0], s[1]));
        return b.build();
    }

    static int[] allVoid(int[] y) {
        java.util.Arrays.fill(y, Example.VOID);
        return y;
    }

    /** The 8 x 8 images' odd rows void: every vertical edge (type 1) touches a void pixel, half the horizontal ones do not. */
    static int[] oddRowsVoid(int[] y) {
        for (int v = 0; v < y.length; v++) if ((v / 8) % 2 == 1) y[v] = Example.VOID;
        return y;
    }

    static TrainPredictCommandTest.Run train(Path d, Path out, String... extra) {
        List<String> a = new ArrayList<>(List.of(TrainPredictCommandTest.train(d, out)));
        a.addAll(List.of(extra));
        return TrainPredictCommandTest.run(a.toArray(String[]::new));
    }

    static List<String> warnings(TrainPredictCommandTest.Run r) {
        return r.err().lines().filter(l -> l.startsWith("warning:")).toList();
    }

    /** Every objective and error of a report's curve is a number. */
    static void assertFiniteCurve(Path report) throws IOException {
        JsonNode rows = JSON.readTree(report.toFile()).get("iterations");
        assertEquals(2, rows.size(), "two curve rows: " + rows);
        for (JsonNode row : rows) {
            for (String k : List.of("objective", "train_error", "test_error")) {
                assertTrue(row.has(k) && Double.isFinite(row.get(k).asDouble()) && row.get(k).isNumber(), k + " in " + row);
            }
        }
    }

    /** The scores of {@code f} on 20 fixed random rows of {@code width} features. */
    static double[] scores(ScoreFunction f, int width) {
        java.util.Random rnd = new java.util.Random(4);
        float[] x = new float[20 * width];
        for (int i = 0; i < x.length; i++) x[i] = (float) rnd.nextGaussian();
        return f.scores(Nd4j.create(x, new long[] {20, width}, 'c')).castTo(DataType.DOUBLE).data().asDouble();
    }

    /** The kind of each pairwise type's function in a model. */
    static List<String> pairKinds(Path model) throws IOException {
        List<String> out = new ArrayList<>();
        for (JsonNode t : JSON.readTree(model.resolve("model.json").toFile()).get("pairTypes")) out.add(t.get("kind").asText());
        return out;
    }

    @Test
    void aTrainingSplitWhoseEveryPixelIsVoidIsRefusedNamingItsFolder() throws IOException {
        Path d = copy(tmp.resolve("d"), (e, k) -> with(e, NothingToFitTest::allVoid, t -> t));
        Path out = tmp.resolve("out");
        for (String form : List.of("simple", "clamped")) {
            TrainPredictCommandTest.Run r = train(d, out, "--void-form", form);
            TrainPredictCommandTest.assertUsageError(r, d.resolve("train") + ": every training variable is void (label -1) in all 3 example(s)");
            assertFalse(Files.exists(out), "nothing written");
        }
    }

    /**
     * A val split void everywhere with --val-every: refused naming its folder, before training (every
     * check's mean IoU would be NaN, and the first check's functions were kept as the best: a 3-iteration
     * run saved iteration 1's).
     */
    @Test
    void aValSplitWhoseEveryPixelIsVoidIsRefusedForValidation() throws IOException {
        Path d = copy(tmp.resolve("d"), (e, k) -> e);
        Files.createDirectories(d.resolve("val"));
        try (Stream<Path> s = Files.list(d.resolve("test"))) {
            for (Path p : s.toList()) ExampleIO.write(d.resolve("val").resolve(p.getFileName()), with(ExampleIO.read(p), NothingToFitTest::allVoid, t -> t));
        }
        Path out = tmp.resolve("out");
        TrainPredictCommandTest.Run r = train(d, out, "--val-every", "1");
        TrainPredictCommandTest.assertUsageError(r, d.resolve("val") + ": every val variable is void (label -1): validation has nothing to score");
        assertFalse(Files.exists(out), "nothing written");
    }

    /**
     * One training example void everywhere: the run trains on the others with numbers all along; in
     * the simple form it adds no oracle row and no term but a constant, so every function learned
     * is the one learned without it (the same scores, to the last bit).
     */
    @ParameterizedTest
    @ValueSource(strings = {"simple", "clamped"})
    void anExampleWhoseEveryPixelIsVoidTrainsWithTheOthers(String form) throws IOException {
        Path d = copy(tmp.resolve("d"), (e, k) -> k == 0 ? with(e, NothingToFitTest::allVoid, t -> t) : e);
        TrainPredictCommandTest.Run r = train(d, tmp.resolve("out"), "--void-form", form);
        assertEquals(0, r.code(), r.err());
        assertEquals(List.of(), warnings(r), "every type has rows");
        assertFiniteCurve(tmp.resolve("out/r.json"));
        assertEquals(List.of("linear", "linear"), pairKinds(tmp.resolve("out/model")));
        if (!form.equals("simple")) return;

        Path without = tmp.resolve("without");
        CheckpointTest.copyTree(d, without);
        try (Stream<Path> s = Files.list(without.resolve("train"))) {
            Files.delete(s.sorted().findFirst().orElseThrow());
        }
        r = train(without, tmp.resolve("out-without"), "--void-form", form);
        assertEquals(0, r.code(), r.err());
        CrfModel a = CrfModel.load(tmp.resolve("out/model")), b = CrfModel.load(tmp.resolve("out-without/model"));
        assertArrayEquals(scores(b.unary(), b.unaryFeatures()), scores(a.unary(), a.unaryFeatures()), "the unary function learned without the void example");
        for (int t = 0; t < 2; t++) {
            assertArrayEquals(scores(b.pair().get(t), b.pairFeatures()), scores(a.pair().get(t), a.pairFeatures()), "pairwise type " + t + ", the same");
        }
        // the same errors on the labelled pixels of the same examples
        JsonNode ra = JSON.readTree(tmp.resolve("out/r.json").toFile()).get("iterations"),
                rb = JSON.readTree(tmp.resolve("out-without/r.json").toFile()).get("iterations");
        for (int i = 0; i < 2; i++) {
            assertEquals(rb.get(i).get("train_error").asDouble(), ra.get(i).get("train_error").asDouble(), 0, "train error, row " + i);
            assertEquals(rb.get(i).get("test_error").asDouble(), ra.get(i).get("test_error").asDouble(), 0, "test error, row " + i);
        }
    }

    /**
     * Odd rows void: in the simple form no vertical edge has two labelled ends, so type 1 is not
     * fitted: one warning line naming it, the run trains the rest, the model's type 1 stays zero. The
     * clamped form fits those edges (no warning, a linear type 1).
     */
    @Test
    void aTypeWhoseEveryTrainingEdgeTouchesAVoidPixelIsNotFittedAndSaysSo() throws IOException {
        Path d = copy(tmp.resolve("d"), (e, k) -> with(e, NothingToFitTest::oddRowsVoid, t -> t));
        TrainPredictCommandTest.Run r = train(d, tmp.resolve("simple"), "--void-form", "simple");
        assertEquals(0, r.code(), r.err());
        assertEquals(List.of("warning: " + d.resolve("train") + ": pairwise type 'pairwise-1' (edge_type 1): every training edge touches a void"
                + " variable, which --void-form simple leaves out: its function is not fitted and stays zero (--void-form clamped fits such edges)"),
                warnings(r));
        assertFiniteCurve(tmp.resolve("simple/r.json"));
        assertEquals(List.of("linear", "zero"), pairKinds(tmp.resolve("simple/model")));

        r = train(d, tmp.resolve("clamped"), "--void-form", "clamped");
        assertEquals(0, r.code(), r.err());
        assertEquals(List.of(), warnings(r));
        assertFiniteCurve(tmp.resolve("clamped/r.json"));
        assertEquals(List.of("linear", "linear"), pairKinds(tmp.resolve("clamped/model")));
    }

    /**
     * Edge type 1 only in the test split (every training edge is type 0), without void labels and
     * with one void pixel per training image in either form: type 1 is not fitted, one warning line
     * says so, and the run trains (without void it failed with 'features must be [N, D] with N, D >= 1').
     */
    @ParameterizedTest
    @ValueSource(strings = {"no void", "simple", "clamped"})
    void aTypeWithoutATrainingEdgeIsNotFittedAndSaysSo(String form) throws IOException {
        boolean labelled = form.equals("no void");
        Path d = copy(tmp.resolve("d"), (e, k) -> with(e, y -> {
            if (!labelled) y[0] = Example.VOID;
            return y;
        }, t -> new int[t.length]));
        TrainPredictCommandTest.Run r = labelled ? train(d, tmp.resolve("out")) : train(d, tmp.resolve("out"), "--void-form", form);
        assertEquals(0, r.code(), r.err());
        assertEquals(List.of("warning: " + d.resolve("train") + ": pairwise type 'pairwise-1' (edge_type 1) has no edge in the training examples:"
                + " its function is not fitted and stays zero"), warnings(r));
        assertFiniteCurve(tmp.resolve("out/r.json"));
        assertEquals(List.of("linear", "zero"), pairKinds(tmp.resolve("out/model")));
    }
}
