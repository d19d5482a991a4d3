package org.structlr.extension;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.deeplearning4j.util.ModelSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.structlr.cli.Main;
import org.structlr.data.Dataset;
import org.structlr.data.DenoisingGenerator;
import org.structlr.data.ExampleIO;
import org.structlr.learn.Checkpoint;
import org.structlr.learn.LearnListener;
import org.structlr.learn.LearnSettings;
import org.structlr.learn.Training;
import org.structlr.model.CrfModel;
import org.structlr.model.ModelExport;
import org.structlr.oracle.FunctionClass;
import org.structlr.oracle.FunctionClasses;
import org.structlr.oracle.FunctionSpec;
import org.structlr.oracle.ScoreFunction;

/**
 * A function class defined only in the test sources ({@link GdLinearClass}, registered by a
 * services file in src/test/resources) is trained from the CLI by its name, saved, loaded,
 * checkpointed and resumed, and exported, with no change to structlr's code.
 */
class FunctionClassRegistryTest {

    record Run(int code, String out, String err) {}

    static Run run(String... args) {
        StringWriter out = new StringWriter(), err = new StringWriter();
        int code = Main.execute(new PrintWriter(out, true), new PrintWriter(err, true), args);
        return new Run(code, out.toString(), err.toString());
    }

    static final LearnSettings SETTINGS = new LearnSettings(3, 0.1, 3, 3, 7);
    static final String[] FAST = {"--iterations", "3", "--eps", "0.1", "--sweeps", "3", "--eval-sweeps", "3", "--seed", "7",
            "--threads", "1", "--quiet"};

    static Dataset data() {
        return new DenoisingGenerator().generate(2, 2, 12, 12, 5);
    }

    @Test
    void builtinsAndTheTestClassAreRegistered() {
        List<String> names = FunctionClasses.all().stream().map(FunctionClass::name).toList();
        assertEquals(List.of("zero", "const", "linear", "mlp", "boost", "cnn"), names.subList(0, 6));
        assertTrue(names.contains(GdLinearClass.NAME), names.toString());
        assertTrue(FunctionClasses.get("GD-Linear") instanceof GdLinearClass);
        assertSame(FunctionClasses.get("const"), FunctionClasses.forKind("constant"));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> FunctionClasses.get("forest"));
        assertEquals("unknown function class 'forest'; expected one of " + String.join(", ", names), e.getMessage());
    }

    @Test
    void registerAddsAClassAndRefusesAStolenKind() {
        FunctionClass other = new GdLinearClass() {
            @Override public String name() { return "gd-linear-copy"; }
        };
        // same kind tag as gd-linear: loading could not tell them apart
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> FunctionClasses.register(other));
        assertTrue(e.getMessage().contains("kind 'gd-linear' already belongs to 'gd-linear'"), e.getMessage());
        FunctionClass fresh = new GdLinearClass() {
            @Override public String name() { return "gd-linear-fresh"; }
            @Override public Set<String> kinds() { return Set.of("gd-linear-fresh"); }
        };
        FunctionClasses.register(fresh);
        assertSame(fresh, FunctionClasses.get("gd-linear-fresh"));
    }

    @Test
    void trainedSavedLoadedResumedAndExportedFromTheCli(@TempDir Path tmp) throws Exception {
        Dataset data = data();
        Path dataDir = tmp.resolve("data");
        ExampleIO.writeDataset(dataDir, data);
        Path model = tmp.resolve("model"), cp = tmp.resolve("cp"), exp = tmp.resolve("export");

        Run r = run(concat(new String[]{"train", "--data", dataDir.toString(), "--unary", "gd-linear", "--pairwise", "gd-linear",
                "--output", model.toString(), "--checkpoint", cp.toString(), "--checkpoint-every", "2"}, FAST));
        assertEquals(0, r.code(), r.err());

        // The CLI's model is the one the Java entry point trains (same seed, one thread), through save and load.
        Training.Outcome direct = Training.train(data, "gd-linear", "gd-linear", SETTINGS, 1, LearnListener.NONE);
        assertTrue(direct.curve().get(2).objective() < direct.curve().get(0).objective(), "the objective should go down");
        CrfModel loaded = CrfModel.load(model);
        assertEquals("gd-linear", loaded.settings().get("unary"));
        assertEquals("gd-linear", loaded.unary().kind());
        assertTrue(loaded.unary() instanceof GdLinearClass.GdScore);
        INDArray xu = features(data.unaryDim(), 1), xp = features(data.pairDim(), 2);
        assertClose(direct.model().unary().scores(xu), loaded.unary().scores(xu), 1e-9);
        for (int t = 0; t < loaded.pair().size(); t++) {
            assertClose(direct.model().pair().get(t).scores(xp), loaded.pair().get(t).scores(xp), 1e-9);
        }

        // The checkpoint holds the class's functions and resumes by name.
        Checkpoint c = Checkpoint.load(cp);
        assertEquals("gd-linear", c.unaryKind());
        assertTrue(c.state().unary() instanceof GdLinearClass.GdScore);
        Run resumed = run("train", "--data", dataDir.toString(), "--resume", cp.toString(), "--iterations", "4", "--quiet",
                "--output", tmp.resolve("model4").toString());
        assertEquals(0, resumed.code(), resumed.err());
        assertTrue(resumed.out().contains("final: iteration 4"), resumed.out());

        // export: the class writes a DL4J network that reproduces g.
        Run e = run("export", "--model", model.toString(), "--output", exp.toString());
        assertEquals(0, e.code(), e.err());
        JsonNode unary = ModelExport.readManifest(exp).path("factorTypes").get(0);
        assertEquals("gd-linear", unary.path("functionClass").asText());
        assertEquals("dl4j-multilayernetwork", unary.path("format").asText());
        MultiLayerNetwork net = ModelSerializer.restoreMultiLayerNetwork(exp.resolve(unary.path("file").asText()).toFile(), false);
        INDArray xd = xu.castTo(DataType.DOUBLE);
        assertClose(loaded.unary().scores(xd), net.output(xd, false), 1e-12);
    }

    @Test
    void anUnknownNameIsOneClearErrorListingTheRegisteredNames(@TempDir Path tmp) throws Exception {
        Path dataDir = tmp.resolve("data");
        ExampleIO.writeDataset(dataDir, data());
        Run r = run(concat(new String[]{"train", "--data", dataDir.toString(), "--unary", "forest", "--output", tmp.resolve("m").toString()}, FAST));
        assertEquals(2, r.code());
        assertTrue(r.err().contains("unknown function class 'forest'; expected one of zero, const, linear, mlp, boost, cnn"), r.err());
        assertTrue(r.err().contains("gd-linear"), r.err());
        assertTrue(Files.notExists(tmp.resolve("m")));
    }

    /**
     * A user's class declares options like the built-ins: given on the CLI they reach its oracle
     * (the model is the Java entry point's with the same options and differs from the defaults'),
     * the model records every option's value, {@code classes} lists them, and a bad one is one
     * clear error (exit 2, nothing written).
     */
    @Test
    void aUserClassDeclaresOptionsThatReachItsOracleAndAreRecorded(@TempDir Path tmp) throws Exception {
        Dataset data = data();
        Path dataDir = tmp.resolve("data");
        ExampleIO.writeDataset(dataDir, data);
        Path model = tmp.resolve("model");
        Run r = run(concat(new String[]{"train", "--data", dataDir.toString(), "--unary", "gd-linear", "--pairwise", "gd-linear",
                "--unary-option", "steps=3", "--pairwise-option", "step=0.25", "--pairwise-option", "lambda=0.5",
                "--output", model.toString()}, FAST));
        assertEquals(0, r.code(), r.err());
        FunctionSpec u = FunctionSpec.unary("gd-linear", java.util.Map.of("steps", "3"));
        FunctionSpec p = FunctionSpec.pairwise("gd-linear", java.util.Map.of("step", "0.25", "lambda", "0.5"));
        Training.Outcome direct = Training.train(data, u, p, SETTINGS, 1, LearnListener.NONE);
        Training.Outcome defaults = Training.train(data, "gd-linear", "gd-linear", SETTINGS, 1, LearnListener.NONE);
        CrfModel loaded = CrfModel.load(model);
        INDArray xu = features(data.unaryDim(), 1), xp = features(data.pairDim(), 2);
        assertClose(direct.model().unary().scores(xu), loaded.unary().scores(xu), 1e-9);
        assertClose(direct.model().pair().get(0).scores(xp), loaded.pair().get(0).scores(xp), 1e-9);
        double moved = defaults.model().unary().scores(xu).sub(loaded.unary().scores(xu)).amaxNumber().doubleValue();
        assertTrue(moved > 1e-3, "3 steps instead of 40 must change the unary function; moved " + moved);
        assertEquals(java.util.Map.of("step", 1.0, "steps", 3, "lambda", 1e-4), loaded.settings().get("unaryOptions"));
        assertEquals(java.util.Map.of("step", 0.25, "steps", 40, "lambda", 0.5), loaded.settings().get("pairwiseOptions"));

        Run listed = run("classes");
        assertEquals(0, listed.code(), listed.err());
        assertTrue(listed.out().contains("gd-linear: linear, plain gradient descent"), listed.out());
        assertTrue(listed.out().contains("  step (a number > 0; default 1.0 unary, 0.5 pairwise): gradient step"), listed.out());

        Run bad = run(concat(new String[]{"train", "--data", dataDir.toString(), "--unary", "gd-linear", "--unary-option", "stpes=3",
                "--output", tmp.resolve("m").toString()}, FAST));
        assertEquals(2, bad.code());
        assertTrue(bad.err().startsWith("error: option '--unary-option': gd-linear has no option 'stpes'; its options:"), bad.err());
        assertTrue(bad.err().contains("steps (an integer >= 1; default 40): gradient steps per fit"), bad.err());
        Run badValue = run(concat(new String[]{"train", "--data", dataDir.toString(), "--pairwise", "gd-linear", "--pairwise-option",
                "lambda=-1", "--output", tmp.resolve("m").toString()}, FAST));
        assertEquals(2, badValue.code());
        assertTrue(badValue.err().contains("error: option '--pairwise-option': gd-linear option 'lambda': must be a finite number >= 0, got -1"),
                badValue.err());
        Run noOptions = run(concat(new String[]{"train", "--data", dataDir.toString(), "--unary", "zero", "--unary-option", "steps=3",
                "--output", tmp.resolve("m").toString()}, FAST));
        assertEquals(2, noOptions.code());
        assertTrue(noOptions.err().contains("error: option '--unary-option': zero has no options (given 'steps')"), noOptions.err());
        assertTrue(Files.notExists(tmp.resolve("m")));
    }

    @Test
    void aSavedFunctionOfAnUnregisteredKindIsRefusedByName(@TempDir Path tmp) throws Exception {
        ScoreFunction f = new GdLinearClass.GdScore(new double[][]{{1, 2}});
        f.save(tmp.resolve("f"));
        assertClose(f.scores(features(1, 3)), FunctionClasses.load(tmp.resolve("f")).scores(features(1, 3)), 0);
        Path meta = tmp.resolve("f").resolve("score-function.json");
        Files.writeString(meta, Files.readString(meta).replace("\"gd-linear\"", "\"gd-forest\""));
        java.io.IOException e = assertThrows(java.io.IOException.class, () -> FunctionClasses.load(tmp.resolve("f")));
        assertTrue(e.getMessage().contains("unknown score function kind 'gd-forest'"), e.getMessage());
    }

    static INDArray features(int d, long seed) {
        Random rng = new Random(seed);
        double[] v = new double[50 * d];
        for (int i = 0; i < v.length; i++) v[i] = rng.nextDouble();
        return Nd4j.create(v, new long[]{50, d}, DataType.DOUBLE).castTo(DataType.FLOAT);
    }

    static void assertClose(INDArray want, INDArray got, double tol) {
        assertTrue(java.util.Arrays.equals(want.shape(), got.shape()));
        double[] a = want.castTo(DataType.DOUBLE).dup().data().asDouble(), b = got.castTo(DataType.DOUBLE).dup().data().asDouble();
        for (int i = 0; i < a.length; i++) assertEquals(a[i], b[i], tol * Math.max(1, Math.abs(a[i])), "entry " + i);
    }

    static String[] concat(String[] a, String[] b) {
        String[] out = java.util.Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }
}
