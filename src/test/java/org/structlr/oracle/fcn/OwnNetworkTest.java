package org.structlr.oracle.fcn;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.zip.ZipEntry;
import java.util.zip.ZipOutputStream;
import org.deeplearning4j.nn.conf.ComputationGraphConfiguration;
import org.deeplearning4j.nn.conf.ConvolutionMode;
import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.nn.conf.graph.FrozenVertex;
import org.deeplearning4j.nn.conf.graph.MergeVertex;
import org.deeplearning4j.nn.conf.layers.CnnLossLayer;
import org.deeplearning4j.nn.conf.layers.ConvolutionLayer;
import org.deeplearning4j.nn.conf.layers.misc.FrozenLayer;
import org.deeplearning4j.nn.conf.layers.misc.FrozenLayerWithBackprop;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.deeplearning4j.util.ModelSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.nd4j.linalg.activations.Activation;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.learning.config.Sgd;
import org.nd4j.linalg.lossfunctions.impl.LossMCXENT;
import org.structlr.oracle.BiasedLogisticProblem;
import org.structlr.oracle.FunctionClass;
import org.structlr.oracle.FunctionSpec;
import org.structlr.oracle.ImageRows;
import org.structlr.oracle.ImageScoreFunction;
import org.structlr.oracle.Oracle;
import org.structlr.oracle.ScoreFunction;
import org.structlr.oracle.ScoreFunctions;

/**
 * A user's own network as the fcn class's network ({@link OwnNetwork}, {@link NetworkSource}):
 * frozen layers keep their parameters, a zip's parameters are where fine-tuning starts, the class
 * option records the file's SHA-256, and bad files are refused with the file named.
 */
class OwnNetworkTest {

    @TempDir
    Path tmp;

    /**
     * Three 3x3/1x1 convolutions {@code in -> c1 -> c2 -> head}, and (with {@code lossHead}) a
     * softmax CnnLossLayer {@code out} on top, as a user would write it to train it alone.
     */
    static ComputationGraphConfiguration config(int d, int out, boolean lossHead) {
        ComputationGraphConfiguration.GraphBuilder b = new NeuralNetConfiguration.Builder().seed(3).dataType(DataType.FLOAT)
                .convolutionMode(ConvolutionMode.Same).updater(new Sgd(0.1)).graphBuilder().addInputs("in");
        b.addLayer("c1", new ConvolutionLayer.Builder(3, 3).nIn(d).nOut(4).activation(Activation.TANH).build(), "in");
        b.addLayer("c2", new ConvolutionLayer.Builder(3, 3).nIn(4).nOut(4).activation(Activation.RELU).build(), "c1");
        b.addLayer("head", new ConvolutionLayer.Builder(1, 1).nIn(4).nOut(out).activation(Activation.IDENTITY).build(), "c2");
        if (lossHead) {
            b.addLayer("out", new CnnLossLayer.Builder(new LossMCXENT()).activation(Activation.SOFTMAX).build(), "head");
            b.setOutputs("out");
        } else {
            b.setOutputs("head");
        }
        return b.build();
    }

    Path write(String name, String text) throws IOException {
        Path p = tmp.resolve(name);
        Files.writeString(p, text);
        return p;
    }

    static FcnOracle oracle(boolean pairwise, Path file, int freeze) {
        return new FcnOracle(FcnSettings.builder(pairwise).architecture(new OwnNetwork(NetworkSource.read(file), freeze)).epochs(3)
                .learningRate(2e-2).seed(5).batch(1).descentCheck(false).build());
    }

    static float[] params(ScoreFunction f, String layer) {
        return ((FullyConvolutionalScore) f).net.getLayer(layer).params().dup().reshape(-1).toFloatVector();
    }

    /** Must show: a frozen layer's parameters do not move over fits; the layers after it do; without freeze, all move. */
    @Test
    void frozenLayersKeepTheirParameters() throws IOException {
        Path file = write("net.json", config(3, 2, true).toJson());
        INDArray px = FcnOracleTest.pixels(FcnOracleTest.RAGGED, 3, 11, DataType.FLOAT);
        BiasedLogisticProblem p = FcnOracleTest.problem(px, ImageRows.pixels(px, FcnOracleTest.RAGGED), 2, 13);
        // with the descent check, whose halved steps go through DL4J's setLearningRate (frozen layers have none)
        FcnOracle frozen = oracle(false, file, 2).with(b -> b.descentCheck(true).learningRate(0.5)), free = oracle(false, file, 0);
        ScoreFunction start = frozen.score(frozen.start(null, 3, 2, DataType.FLOAT).net(), 0);
        ScoreFunction f = frozen.fit(p, frozen.fit(p, null));
        for (String layer : new String[]{"c1", "c2"}) assertArrayEquals(params(start, layer), params(f, layer), "frozen " + layer);
        assertFalse(java.util.Arrays.equals(params(start, "head"), params(f, "head")), "the head is trained");
        assertTrue(p.loss(f) < p.loss(start), "the fits lower the loss: " + p.loss(start) + " -> " + p.loss(f));
        ScoreFunction g = free.fit(p, null);
        assertFalse(java.util.Arrays.equals(params(start, "c1"), params(g, "c1")), "without freeze the first layer moves");
        assertTrue(((FullyConvolutionalScore) f).describe().contains("frozen:conv3x3x4 frozen:conv3x3x4 conv1x1x2"),
                ((FullyConvolutionalScore) f).describe());
    }

    /**
     * Frozen parts the step policy ({@link DescentSteps}) must get past: layers the file froze itself
     * (DL4J's FrozenLayer and FrozenLayerWithBackprop around a convolution whose updater is the file's
     * Sgd 0.1, which the oracle's fine-tuning does not reach) and a non-layer vertex among the frozen
     * ({@code freeze} over a merge: DL4J's FrozenVertex). The policy halves the oracle's Adam rate on
     * every trainable layer (DL4J's network-wide setLearningRate; structlr never sets one layer's
     * rate, which throws a NullPointerException on the file-frozen networks): 0.02, 0.01, 0.005,
     * then 0.0025 kept, where it halved the file's 0.1 before. A fit through the oracle with halvings
     * leaves the frozen layers' parameters where they were.
     */
    @Test
    void stepsHalveTheOraclesRateOverFrozenLayersAndVertices() throws IOException {
        INDArray px = FcnOracleTest.pixels(FcnOracleTest.RAGGED, 3, 11, DataType.FLOAT);
        BiasedLogisticProblem p = FcnOracleTest.problem(px, ImageRows.pixels(px, FcnOracleTest.RAGGED), 2, 13);
        ComputationGraphConfiguration.GraphBuilder m = builder();
        m.addLayer("a", new ConvolutionLayer.Builder(3, 3).nIn(3).nOut(2).activation(Activation.TANH).build(), "in");
        m.addLayer("b", new ConvolutionLayer.Builder(3, 3).nIn(3).nOut(2).activation(Activation.TANH).build(), "in");
        m.addVertex("m", new MergeVertex(), "a", "b");
        Map<String, Integer> freeze = new java.util.LinkedHashMap<>();
        Map<String, ComputationGraphConfiguration> nets = new java.util.LinkedHashMap<>();
        nets.put("merge", finish(m, "m", 4));
        freeze.put("merge", 3);                                   // a, b, c2: the merge between them is frozen too
        for (boolean backprop : new boolean[]{false, true}) {
            ComputationGraphConfiguration.GraphBuilder g = builder();
            var inner = new ConvolutionLayer.Builder(3, 3).nIn(3).nOut(4).activation(Activation.TANH).build();
            g.addLayer("a", backprop ? new FrozenLayerWithBackprop(inner) : new FrozenLayer(inner), "in");
            String name = backprop ? "FrozenLayerWithBackprop" : "FrozenLayer";
            nets.put(name, finish(g, "a", 4));
            freeze.put(name, 0);
        }
        for (Map.Entry<String, ComputationGraphConfiguration> e : nets.entrySet()) {
            String what = e.getKey();
            Path file = write(what + ".json", e.getValue().toJson());
            FcnOracle o = oracle(false, file, freeze.get(what));
            ComputationGraph start = o.start(null, 3, 2, DataType.FLOAT).net();
            assertTrue(FcnGraph.frozen(start.getConfiguration(), "a"), what + ": layer a is frozen");
            if (what.equals("merge")) {
                assertTrue(start.getConfiguration().getVertices().get("m") instanceof FrozenVertex, what + ": the merge is a FrozenVertex");
            }
            assertEquals(List.of(2e-2), trainableRates(start), what + ": the oracle's rate on the trainable layers");
            assertEquals(2e-2, FcnGraph.learningRate(start), what);
            List<List<Double>> tries = new ArrayList<>();
            ComputationGraph kept = o.steps().descend(start, Double.NEGATIVE_INFINITY, n -> tries.add(trainableRates(n)), n -> 0.0);
            assertEquals(List.of(List.of(2e-2), List.of(1e-2), List.of(5e-3)), tries, what + ": the rates of the three tries");
            assertEquals(List.of(2.5e-3), trainableRates(kept), what + ": the rate kept after three tries");

            ScoreFunction s0 = o.score(o.start(null, 3, 2, DataType.FLOAT).net(), 0);
            ScoreFunction f = o.with(b -> b.descentCheck(true).learningRate(0.5)).fit(p, null);
            assertArrayEquals(params(s0, "a"), params(f, "a"), what + ": the frozen layer a kept its parameters");
            assertFalse(java.util.Arrays.equals(params(s0, "head"), params(f, "head")), what + ": the head is trained");
        }
    }

    private static ComputationGraphConfiguration.GraphBuilder builder() {
        return new NeuralNetConfiguration.Builder().seed(3).dataType(DataType.FLOAT).convolutionMode(ConvolutionMode.Same)
                .updater(new Sgd(0.1)).graphBuilder().addInputs("in");
    }

    /** {@code from} (of {@code channels}) -> c2 -> head -> a softmax loss. */
    private static ComputationGraphConfiguration finish(ComputationGraphConfiguration.GraphBuilder b, String from, int channels) {
        b.addLayer("c2", new ConvolutionLayer.Builder(3, 3).nIn(channels).nOut(4).activation(Activation.RELU).build(), from);
        b.addLayer("head", new ConvolutionLayer.Builder(1, 1).nIn(4).nOut(2).activation(Activation.IDENTITY).build(), "c2");
        b.addLayer("out", new CnnLossLayer.Builder(new LossMCXENT()).activation(Activation.SOFTMAX).build(), "head");
        return b.setOutputs("out").build();
    }

    /** The distinct learning rates of the layers that train (parameters, not frozen), in layer order. */
    private static List<Double> trainableRates(ComputationGraph net) {
        List<Double> rates = new ArrayList<>();
        for (String l : FcnGraph.layerOrder(net)) {
            if (FcnGraph.frozen(net.getConfiguration(), l) || net.getLayer(l).numParams() == 0) continue;
            Double r = net.getLearningRate(l);
            if (!rates.contains(r)) rates.add(r);
        }
        return rates;
    }

    /**
     * A zip (a network with its parameters, as export writes it): the first network of a fit is that
     * network (its scores before any fit are the zip's output), and a fitted, saved and loaded function
     * exports to a zip whose output is the function's.
     */
    @Test
    void aZipIsWhereFineTuningStartsAndRoundTrips() throws IOException {
        ComputationGraph user = new ComputationGraph(config(3, 2, true));
        user.init();
        Path zip = tmp.resolve("pretrained.zip");
        ModelSerializer.writeModel(user, zip.toFile(), false);
        INDArray px = FcnOracleTest.pixels(FcnOracleTest.RAGGED, 3, 21, DataType.FLOAT);
        BiasedLogisticProblem p = FcnOracleTest.problem(px, ImageRows.pixels(px, FcnOracleTest.RAGGED), 2, 23);
        FcnOracle o = oracle(false, zip, 1);
        ScoreFunction start = o.score(o.start(null, 3, 2, DataType.FLOAT).net(), 0);
        INDArray image = ImageTensors.image(px, FcnOracleTest.RAGGED, 0, DataType.FLOAT);
        // the zip's own output is a softmax over its scores; structlr's scores are the layer before it
        INDArray want = user.feedForward(image, false).get("head");
        assertArrayEquals(want.reshape(-1).toFloatVector(), ((FullyConvolutionalScore) start).outputImage(image).reshape(-1).toFloatVector(),
                "before any fit, the scores are the zip network's");
        ScoreFunction f = o.fit(p, null);
        Path dir = tmp.resolve("saved");
        f.save(dir);
        ImageScoreFunction back = (ImageScoreFunction) ScoreFunctions.load(dir);
        assertArrayEquals(((ImageScoreFunction) f).imageScores(px, FcnOracleTest.RAGGED).toFloatMatrix(),
                back.imageScores(px, FcnOracleTest.RAGGED).toFloatMatrix(), "saved and loaded");
        ComputationGraph plain = ((FullyConvolutionalScore) back).plainNetwork();
        assertArrayEquals(((FullyConvolutionalScore) back).outputImage(image).reshape(-1).toFloatVector(),
                plain.outputSingle(image).reshape(-1).toFloatVector(), "the plain (exported) network gives the scores");
        assertEquals(1, plain.getConfiguration().getNetworkInputs().size(), "no bias input in the export");
    }

    /** The option records the file's SHA-256; a recorded value equals the file's, so a resume compares contents. */
    @Test
    void theOptionRecordsTheDigest() throws IOException {
        Path file = write("net.json", config(3, 2, false).toJson());
        FunctionSpec spec = FunctionSpec.unary("fcn", Map.of("net", file.toString(), "freeze", "1"));
        NetworkSource s = spec.options().get(FcnClass.NET);
        assertTrue(s.toString().matches("sha256:[0-9a-f]{64}"), s.toString());
        String json = new com.fasterxml.jackson.databind.ObjectMapper().writeValueAsString(spec.options().values());
        assertTrue(json.contains("\"net\":\"" + s + "\"") && json.contains("\"freeze\":1"), json);
        FunctionSpec recorded = FunctionSpec.recorded("fcn", true, new com.fasterxml.jackson.databind.ObjectMapper().readTree(json));
        assertEquals(spec, recorded, "a recorded spec equals the file's");
        assertFalse(recorded.options().get(FcnClass.NET).hasContent());
        Path other = write("other.json", config(3, 2, false).toJson().replace("\"seed\" : 3", "\"seed\" : 4"));
        assertFalse(NetworkSource.read(other).equals(s), "another file, another value");
        Oracle o = recorded.create(3, 1, 1);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> ((FcnOracle) o).start(null, 3, 2, DataType.FLOAT));
        assertTrue(e.getMessage().contains("is not here"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> FunctionSpec.unary("fcn", Map.of("freeze", "1")).create(3, 1, 1),
                "freeze without a network");
    }

    /**
     * With an own network the built-in network's options (arch, width, dilations, depth) do not
     * apply: they are left out of the recorded values (model.json, checkpoints) and asked for give
     * their defaults; the values an older build recorded (every option) read back equal, so its
     * models and checkpoints load and resume; without a network they are recorded (those of the
     * chosen arch: FcnOptionsApplyTest).
     */
    @Test
    void anOwnNetworkRecordsOnlyTheOptionsThatApply() throws IOException {
        Path file = write("net.json", config(3, 2, false).toJson());
        FunctionSpec spec = FunctionSpec.unary("fcn", Map.of("net", file.toString(), "epochs", "2"));
        java.util.List<String> builtIn = java.util.List.of("arch", "width", "dilations", "depth");
        assertEquals(java.util.List.of("epochs", "batch", "lr", "descent-check", "weight-decay", "recovery", "net", "freeze"),
                java.util.List.copyOf(spec.options().values().keySet()));
        assertEquals(DilatedConvolutions.DEFAULT_WIDTH, spec.options().get(FcnClass.WIDTH), "not applying, its default");
        FunctionSpec plain = FunctionSpec.unary("fcn", Map.of("epochs", "2"));
        assertTrue(plain.options().values().keySet().containsAll(builtIn.subList(0, 3)), "the built-in network's: " + plain.options().values());
        // what an older build recorded: every option, the built-in network's at their defaults
        com.fasterxml.jackson.databind.ObjectMapper json = new com.fasterxml.jackson.databind.ObjectMapper();
        com.fasterxml.jackson.databind.node.ObjectNode old = json.valueToTree(plain.options().values());
        old.put("depth", UNet.DEFAULT_DEPTH);
        old.put("net", spec.options().get(FcnClass.NET).toString());
        old.put("freeze", 0);
        FunctionSpec recorded = FunctionSpec.recorded("fcn", true, old);
        assertEquals(spec, recorded, "an older record reads back as the spec");
        assertEquals(spec.options().values(), recorded.options().values());
        assertEquals(spec, FunctionSpec.recorded("fcn", true, json.valueToTree(spec.options().values())), "and the new record");
    }

    /** Pairwise: a network of 2 L L output channels is a pairwise fcn's network; L channels are refused. */
    @Test
    void aPairwiseNetworkScoresTheJointLabelsOfBothEdges() throws IOException {
        Path good = write("pair.json", config(3, 8, false).toJson()), bad = write("pair-bad.json", config(3, 2, false).toJson());
        INDArray px = FcnOracleTest.pixels(FcnOracleTest.RAGGED, 3, 31, DataType.FLOAT);
        ImageRows im = ImageRows.edges(px, FcnOracleTest.RAGGED, FcnOracleTest.allEdges(FcnOracleTest.RAGGED));
        BiasedLogisticProblem p = FcnOracleTest.problem(px, im, 4, 33);
        ScoreFunction f = oracle(true, good, 0).fit(p, null);
        assertEquals("fcn-pair", f.kind());
        assertTrue(p.loss(f) < p.loss((ScoreFunction) null), "a pairwise fit lowers the loss");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> oracle(true, bad, 0).fit(p, null));
        assertTrue(e.getMessage().startsWith(bad + ": ") && e.getMessage().contains("8 (2 edges x 4 joint labels)"), e.getMessage());
    }

    /** Must show: bad files, one clear error naming the file and the problem. */
    @Test
    void badFilesAreRefusedNamingTheFile() throws IOException {
        FunctionClass fcn = new FcnClass();
        // one score per class per pixel: 3 channels for 2 labels
        Path wrongOut = write("three.json", config(3, 3, true).toJson());
        assertRefused(wrongOut, 3, 2, "have 3 channels; structlr needs one score per class per pixel: 2 (the 2 labels)");
        // input channels
        Path wrongIn = write("five.json", config(5, 2, true).toJson());
        assertRefused(wrongIn, 3, 2, "takes 5 input channels, the data has 3 pixel features");
        // a network that shrinks the image (no same padding)
        String valid = config(3, 2, false).toJson().replace("\"convolutionMode\" : \"Same\"", "\"convolutionMode\" : \"Truncate\"");
        assertRefused(write("shrinks.json", valid), 3, 2, "are [1, 2, 12, 20]; structlr needs one score per class per pixel at the image's size, [1, 2, 16, 24]");
        // a class outside DL4J's configuration types, in a JSON and in a zip's configuration.json
        String hostile = config(3, 2, true).toJson().replaceFirst("org\\.nd4j\\.linalg\\.activations\\.impl\\.ActivationTanH",
                "com.sun.rowset.JdbcRowSetImpl");
        assertTrue(hostile.contains("JdbcRowSetImpl"));
        assertParseRefused(write("hostile.json", hostile), "names class 'com.sun.rowset.JdbcRowSetImpl'");
        Path zip = tmp.resolve("hostile.zip");
        try (ZipOutputStream z = new ZipOutputStream(Files.newOutputStream(zip))) {
            z.putNextEntry(new ZipEntry("configuration.json"));
            z.write(hostile.getBytes(StandardCharsets.UTF_8));
        }
        assertParseRefused(zip, "names class 'com.sun.rowset.JdbcRowSetImpl'");
        // DL4J classes outside its configuration types are refused too
        String util = config(3, 2, true).toJson().replaceFirst("org\\.nd4j\\.linalg\\.activations\\.impl\\.ActivationTanH",
                "org.deeplearning4j.util.ModelSerializer");
        assertParseRefused(write("util.json", util), "names class 'org.deeplearning4j.util.ModelSerializer'");
        // not a DL4J model: a zip of something else, text that is not JSON, a MultiLayerNetwork configuration
        Path other = tmp.resolve("other.zip");
        try (ZipOutputStream z = new ZipOutputStream(Files.newOutputStream(other))) {
            z.putNextEntry(new ZipEntry("readme.txt"));
            z.write("hello".getBytes(StandardCharsets.UTF_8));
        }
        assertParseRefused(other, "unexpected entry 'readme.txt'");
        assertParseRefused(write("notes.txt", "not a network"), "is not JSON");
        assertParseRefused(write("mln.json", new NeuralNetConfiguration.Builder().list()
                .layer(new org.deeplearning4j.nn.conf.layers.DenseLayer.Builder().nIn(3).nOut(2).build()).build().toJson()),
                "a DL4J MultiLayerNetwork configuration");
        assertParseRefused(tmp.resolve("missing.json"), "no such network file");
        // the class's data check (what training calls first) says the same, naming the file
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> fcn.checkData(FunctionSpec.unary("fcn", Map.of("net", wrongIn.toString())).options(), 3, 2));
        assertTrue(e.getMessage().startsWith(wrongIn + ": "), e.getMessage());
    }

    private void assertRefused(Path file, int d, int c, String problem) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> new OwnNetwork(NetworkSource.read(file), 0).newNetwork(d, c, 1,
                        new FcnArchitecture.Optimisation(1, DataType.FLOAT, new org.nd4j.linalg.learning.config.Adam(), 0)));
        assertTrue(e.getMessage().startsWith(file + ": ") && e.getMessage().contains(problem), e.getMessage());
    }

    private static void assertParseRefused(Path file, String problem) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> NetworkSource.read(file));
        assertTrue(e.getMessage().startsWith(file + ": ") && e.getMessage().contains(problem), e.getMessage());
    }
}
