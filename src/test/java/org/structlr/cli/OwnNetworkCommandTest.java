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
import org.deeplearning4j.nn.conf.ComputationGraphConfiguration;
import org.deeplearning4j.nn.conf.ConvolutionMode;
import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.nn.conf.layers.CnnLossLayer;
import org.deeplearning4j.nn.conf.layers.ConvolutionLayer;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.deeplearning4j.util.ModelSerializer;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.nd4j.linalg.activations.Activation;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.learning.config.Sgd;
import org.nd4j.linalg.lossfunctions.impl.LossMCXENT;
import org.structlr.data.Dataset;
import org.structlr.data.DenoisingGenerator;
import org.structlr.model.CrfModel;

/**
 * {@code train --unary fcn --unary-net FILE --freeze K}: a pretrained network from a zip trains,
 * checkpoints and resumes bit for bit without the file; the model records the file's SHA-256 and
 * exports; a resume with another file and bad files are refused (exit 2, the file named).
 */
class OwnNetworkCommandTest {
    @TempDir
    static Path shared;

    @TempDir
    Path tmp;

    static Path data, zip;
    static int features;
    static final String[] SETTINGS = {"--unary", "fcn", "--pairwise", "linear", "--unary-option", "epochs=1", "--sweeps", "3",
            "--eval-sweeps", "3", "--seed", "3", "--quiet", "--threads", "1"};

    @BeforeAll
    static void generate() throws IOException {
        data = shared.resolve("data");
        new DenoisingGenerator().generateTo(data, 2, 2, 12, 12, 17);
        features = Dataset.load(data).summary().unaryDim();
        ComputationGraphConfiguration.GraphBuilder b = new NeuralNetConfiguration.Builder().seed(3).dataType(DataType.FLOAT)
                .convolutionMode(ConvolutionMode.Same).updater(new Sgd(0.1)).graphBuilder().addInputs("in");
        b.addLayer("c1", new ConvolutionLayer.Builder(3, 3).nIn(features).nOut(4).activation(Activation.TANH).build(), "in");
        b.addLayer("c2", new ConvolutionLayer.Builder(3, 3).dilation(2, 2).nIn(4).nOut(4).activation(Activation.RELU).build(), "c1");
        b.addLayer("head", new ConvolutionLayer.Builder(1, 1).nIn(4).nOut(2).activation(Activation.IDENTITY).build(), "c2");
        b.addLayer("out", new CnnLossLayer.Builder(new LossMCXENT()).activation(Activation.SOFTMAX).build(), "head");
        ComputationGraph net = new ComputationGraph(b.setOutputs("out").build());
        net.init();
        zip = shared.resolve("pretrained.zip");
        ModelSerializer.writeModel(net, zip.toFile(), false);
    }

    static TrainPredictCommandTest.Run train(String... extra) {
        List<String> a = new ArrayList<>(List.of("train", "--data", data.toString()));
        a.addAll(List.of(SETTINGS));
        a.addAll(List.of(extra));
        return TrainPredictCommandTest.run(a.toArray(String[]::new));
    }

    /** Must show: a network from a zip, trained with a checkpoint after 2 of 4 iterations and resumed, equals the uninterrupted run exactly. */
    @Test
    void aNetworkFromAZipResumesBitForBit() throws Exception {
        Path plain = tmp.resolve("plain"), ck = tmp.resolve("ck"), resumed = tmp.resolve("resumed");
        TrainPredictCommandTest.Run r = train("--unary-net", zip.toString(), "--freeze", "1", "--iterations", "4",
                "--output", plain.resolve("model").toString(), "--report", plain.resolve("r.json").toString());
        assertEquals(0, r.code(), r.err());
        r = train("--unary-net", zip.toString(), "--freeze", "1", "--iterations", "2", "--checkpoint", ck.toString(), "--checkpoint-every", "1");
        assertEquals(0, r.code(), r.err());
        // the resume needs no network file: the checkpoint's function is the network
        r = TrainPredictCommandTest.run("train", "--resume", ck.toString(), "--data", data.toString(), "--iterations", "4", "--quiet",
                "--output", resumed.resolve("model").toString(), "--report", resumed.resolve("r.json").toString());
        assertEquals(0, r.code(), r.err());
        TrainPredictCommandTest.assertSameCurve(plain.resolve("r.json"), resumed.resolve("r.json"), 4, "resumed after 2");
        java.util.Map<String, byte[]> na = entries(plain.resolve("model/unary/model.zip")), nb = entries(resumed.resolve("model/unary/model.zip"));
        assertEquals(na.keySet(), nb.keySet());
        for (String e : na.keySet()) assertArrayEquals(na.get(e), nb.get(e), "the trained networks' " + e + ", byte for byte");
        CrfModel m = CrfModel.load(plain.resolve("model"));
        @SuppressWarnings("unchecked")
        java.util.Map<String, Object> options = (java.util.Map<String, Object>) m.settings().get("unaryOptions");
        assertTrue(String.valueOf(options.get("net")).matches("sha256:[0-9a-f]{64}"), "recorded: " + options);
        assertEquals(1, ((Number) options.get("freeze")).intValue());
        // only the options that apply: the built-in network's (arch, width, dilations, depth) are not the zip's
        assertEquals(List.of("epochs", "batch", "lr", "descent-check", "weight-decay", "recovery", "net", "freeze"), List.copyOf(options.keySet()));

        // export: a plain DL4J network again, its manifest showing the model's options
        Path out = tmp.resolve("export");
        r = TrainPredictCommandTest.run("export", "--model", plain.resolve("model").toString(), "--output", out.toString());
        assertEquals(0, r.code(), r.err());
        assertTrue(Files.isRegularFile(out.resolve("unary.zip")));
        JsonNode recorded = new ObjectMapper().readTree(plain.resolve("model/model.json").toFile()).path("settings").path("unaryOptions");
        assertEquals(recorded, new ObjectMapper().readTree(out.resolve("manifest.json").toFile()).path("settings").path("unaryOptions"));
        // evaluate's report too
        Path report = tmp.resolve("evaluate.json");
        r = TrainPredictCommandTest.run("evaluate", "--model", plain.resolve("model").toString(), "--data", data.toString(), "--output", report.toString());
        assertEquals(0, r.code(), r.err());
        assertEquals(recorded, new ObjectMapper().readTree(report.toFile()).path("settings").path("unaryOptions"));

        // resuming with another network is refused
        Path other = tmp.resolve("other.zip");
        Files.copy(zip, other);
        try (var fs = java.nio.file.FileSystems.newFileSystem(other)) {
            Files.writeString(fs.getPath("configuration.json"), Files.readString(fs.getPath("configuration.json")).replace("\"seed\" : 3", "\"seed\" : 4"));
        }
        r = TrainPredictCommandTest.run("train", "--resume", ck.toString(), "--data", data.toString(), "--iterations", "4", "--quiet",
                "--unary-net", other.toString());
        assertEquals(2, r.code(), r.err());
        assertTrue(r.err().contains("the checkpoint was trained with --unary-option net=sha256:"), r.err());
    }

    /**
     * {@code --pairwise fcn --pairwise-net FILE} (a ComputationGraph JSON whose output scores both edges'
     * joint labels, 2 L L channels): the model records the file's SHA-256 (not its name), predict works
     * from the saved model, and a checkpoint after 2 of 4 iterations resumes without the file to the
     * uninterrupted run, bit for bit (curve and the trained network's entries).
     */
    @Test
    void aPairwiseNetworkTrainsPredictsAndResumesBitForBit() throws Exception {
        ComputationGraphConfiguration.GraphBuilder g = new NeuralNetConfiguration.Builder().seed(5).dataType(DataType.FLOAT)
                .convolutionMode(ConvolutionMode.Same).updater(new Sgd(0.1)).graphBuilder().addInputs("in");
        g.addLayer("c1", new ConvolutionLayer.Builder(3, 3).nIn(features).nOut(3).activation(Activation.TANH).build(), "in");
        g.addLayer("edges", new ConvolutionLayer.Builder(1, 1).nIn(3).nOut(8).activation(Activation.IDENTITY).build(), "c1");
        Path json = tmp.resolve("pairwise-net.json");
        Files.writeString(json, g.setOutputs("edges").build().toJson());
        String[] settings = {"--unary", "linear", "--pairwise", "fcn", "--pairwise-net", json.toString(), "--pairwise-option", "epochs=1",
                "--sweeps", "3", "--eval-sweeps", "3", "--seed", "3", "--quiet", "--threads", "1"};
        Path plain = tmp.resolve("plain"), ck = tmp.resolve("ck"), resumed = tmp.resolve("resumed");
        List<String> a = new ArrayList<>(List.of("train", "--data", data.toString()));
        a.addAll(List.of(settings));
        List<String> whole = new ArrayList<>(a), half = new ArrayList<>(a);
        whole.addAll(List.of("--iterations", "4", "--output", plain.resolve("model").toString(), "--report", plain.resolve("r.json").toString()));
        half.addAll(List.of("--iterations", "2", "--checkpoint", ck.toString(), "--checkpoint-every", "1"));
        TrainPredictCommandTest.Run r = TrainPredictCommandTest.run(whole.toArray(String[]::new));
        assertEquals(0, r.code(), r.err());
        r = TrainPredictCommandTest.run(half.toArray(String[]::new));
        assertEquals(0, r.code(), r.err());
        r = TrainPredictCommandTest.run("train", "--resume", ck.toString(), "--data", data.toString(), "--iterations", "4", "--quiet",
                "--output", resumed.resolve("model").toString(), "--report", resumed.resolve("r.json").toString());
        assertEquals(0, r.code(), r.err());
        TrainPredictCommandTest.assertSameCurve(plain.resolve("r.json"), resumed.resolve("r.json"), 4, "resumed after 2");
        CrfModel m = CrfModel.load(plain.resolve("model"));
        java.util.Map<String, byte[]> na = new java.util.TreeMap<>(), nb = new java.util.TreeMap<>();
        try (java.util.stream.Stream<Path> files = Files.walk(plain.resolve("model"))) {
            for (Path f : files.filter(p -> p.toString().endsWith(".zip")).toList()) {
                Path other = resumed.resolve("model").resolve(plain.resolve("model").relativize(f));
                entries(f).forEach((k, v) -> na.put(f.getFileName() + "/" + k, v));
                entries(other).forEach((k, v) -> nb.put(f.getFileName() + "/" + k, v));
            }
        }
        assertFalse(na.isEmpty(), "the model holds the trained network");
        assertEquals(na.keySet(), nb.keySet());
        for (String e : na.keySet()) assertArrayEquals(na.get(e), nb.get(e), "the trained networks' " + e + ", byte for byte");
        @SuppressWarnings("unchecked")
        java.util.Map<String, Object> options = (java.util.Map<String, Object>) m.settings().get("pairwiseOptions");
        String digest = java.util.HexFormat.of().formatHex(java.security.MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(json)));
        assertEquals("sha256:" + digest, options.get("net"), "the file's SHA-256 is recorded: " + options);
        assertEquals("fcn", m.settings().get("pairwise"));
        assertFalse(Files.readString(plain.resolve("model/model.json")).contains(json.getFileName().toString()), "the file's name is not recorded");

        // predict from the saved model: the labels the model in memory gives
        Path example;
        try (java.util.stream.Stream<Path> s = Files.list(data.resolve("test"))) {
            example = s.sorted().findFirst().orElseThrow();
        }
        Path out = tmp.resolve("p.npz");
        r = TrainPredictCommandTest.run("predict", "--model", plain.resolve("model").toString(), "--input", example.toString(),
                "--output", out.toString(), "--quiet");
        assertEquals(0, r.code(), r.err());
        org.structlr.data.Example ex = Dataset.load(data).test().get(0);
        assertArrayEquals(org.structlr.model.Predictor.predictEach(m, List.of(ex), 100, 1e-5).get(0).labels(),
                org.structlr.data.Npz.read(out).get("labels").toIntArray());
    }

    /** A zip's entries and their bytes (its headers carry the time of writing). */
    static java.util.Map<String, byte[]> entries(Path zip) throws IOException {
        java.util.Map<String, byte[]> out = new java.util.TreeMap<>();
        try (java.util.zip.ZipInputStream in = new java.util.zip.ZipInputStream(Files.newInputStream(zip))) {
            for (java.util.zip.ZipEntry e; (e = in.getNextEntry()) != null; ) out.put(e.getName(), in.readAllBytes());
        }
        return out;
    }

    /** Bad files and options: exit 2 and one line naming the file or option, nothing written. */
    @Test
    void badNetworksAreOneClearError() throws IOException {
        Path notZip = tmp.resolve("not-a-model.zip"), model = tmp.resolve("model");
        Files.write(notZip, new byte[]{'P', 'K', 3, 4, 1, 2, 3});
        TrainPredictCommandTest.Run r = train("--unary-net", notZip.toString(), "--iterations", "1", "--output", model.toString());
        assertEquals(2, r.code(), r.err());
        assertTrue(r.err().startsWith("error: " + notZip + ": "), r.err());
        assertFalse(Files.exists(model));

        Path wide = tmp.resolve("wide.json");
        Files.writeString(wide, new NeuralNetConfiguration.Builder().convolutionMode(ConvolutionMode.Same).graphBuilder().addInputs("in")
                .addLayer("c", new ConvolutionLayer.Builder(1, 1).nIn(features).nOut(5).build(), "in").setOutputs("c").build().toJson());
        r = train("--unary-net", wide.toString(), "--iterations", "1", "--output", model.toString());
        assertEquals(2, r.code(), r.err());
        assertTrue(r.err().contains(wide + ": the scores ('c') have 5 channels"), r.err());
        assertFalse(Files.exists(model));

        r = TrainPredictCommandTest.run("train", "--data", data.toString(), "--unary", "linear", "--unary-net", zip.toString(), "--quiet");
        assertEquals(2, r.code(), r.err());
        assertTrue(r.err().contains("option '--unary-net' needs --unary fcn"), r.err());
        r = train("--freeze", "1", "--iterations", "1");
        assertEquals(2, r.code(), r.err());
        assertTrue(r.err().contains("option '--freeze' needs --unary-net or --pairwise-net"), r.err());
        r = train("--unary-net", zip.toString(), "--freeze", "9", "--iterations", "1");
        assertEquals(2, r.code(), r.err());
        assertTrue(r.err().contains("freeze 9 leaves no layer with parameters to train"), r.err());
    }
    /**
     * An fcn option given where it changes nothing is one error line naming the flag, the option and
     * why, exit 2, before any work (nothing written). The model and the checkpoints record only the
     * options that apply; a resume takes a given option where the checkpoint's values make it apply,
     * and a checkpoint whose manifest records every option (as older builds wrote) still resumes.
     */
    @Test
    void optionsThatDoNotApplyAreRefusedAndNotRecorded() throws IOException {
        Path model = tmp.resolve("M");
        TrainPredictCommandTest.Run r = train("--unary-option", "depth=3", "--iterations", "1", "--output", model.toString());
        TrainPredictCommandTest.assertUsageError(r, "option '--unary-option': fcn option 'depth' does not apply: arch is dilated");
        r = train("--unary-option", "arch=unet", "--unary-option", "dilations=1,2", "--iterations", "1", "--output", model.toString());
        TrainPredictCommandTest.assertUsageError(r, "option '--unary-option': fcn option 'dilations' does not apply: arch is unet");
        r = train("--unary-net", zip.toString(), "--unary-option", "width=8", "--iterations", "1", "--output", model.toString());
        TrainPredictCommandTest.assertUsageError(r, "option '--unary-option': fcn option 'width' does not apply: an own network (net)");
        r = train("--unary-option", "freeze=0", "--iterations", "1", "--output", model.toString());
        TrainPredictCommandTest.assertUsageError(r, "option '--unary-option': fcn option 'freeze' does not apply");
        r = TrainPredictCommandTest.run("train", "--data", data.toString(), "--pairwise", "fcn", "--pairwise-option", "descent-check=false",
                "--pairwise-option", "recovery=3", "--quiet", "--output", model.toString());
        TrainPredictCommandTest.assertUsageError(r, "option '--pairwise-option': fcn option 'recovery' does not apply: descent-check is false");
        assertFalse(Files.exists(model), "nothing written");

        // a unet run records depth, not dilations, in its model and its checkpoint
        Path ck = tmp.resolve("ck");
        r = train("--unary-option", "arch=unet", "--unary-option", "depth=1", "--unary-option", "width=4", "--iterations", "1",
                "--output", model.toString(), "--checkpoint", ck.toString());
        assertEquals(0, r.code(), r.err());
        List<String> unet = List.of("epochs", "batch", "arch", "width", "depth", "lr", "descent-check", "weight-decay", "recovery", "net");
        ObjectMapper json = new ObjectMapper();
        assertEquals(unet, fieldNames(json.readTree(model.resolve("model.json").toFile()).path("settings").path("unaryOptions")));
        assertEquals(unet, fieldNames(json.readTree(ck.resolve("iteration-000001/checkpoint.json").toFile()).path("unaryOptions")));
        // as an older build wrote it: every option recorded
        org.structlr.learn.CheckpointerAccess.rewriteManifest(ck.resolve("iteration-000001"), m -> {
            ((com.fasterxml.jackson.databind.node.ObjectNode) m.get("unaryOptions")).putArray("dilations").add(1).add(2).add(4).add(8);
            ((com.fasterxml.jackson.databind.node.ObjectNode) m.get("unaryOptions")).put("freeze", 0);
        });
        // resumed: depth applies to the checkpoint's unet (taken: the same value), dilations does not (refused)
        r = TrainPredictCommandTest.run("train", "--resume", ck.toString(), "--data", data.toString(), "--iterations", "3", "--quiet",
                "--unary-option", "dilations=1");
        TrainPredictCommandTest.assertUsageError(r, "option '--unary-option': fcn option 'dilations' does not apply: arch is unet");
        r = TrainPredictCommandTest.run("train", "--resume", ck.toString(), "--data", data.toString(), "--iterations", "2", "--quiet",
                "--unary-option", "depth=1");
        assertEquals(0, r.code(), r.err());
        assertEquals(unet, fieldNames(json.readTree(ck.resolve("iteration-000002/checkpoint.json").toFile()).path("unaryOptions")));
    }

    static List<String> fieldNames(JsonNode n) {
        List<String> out = new ArrayList<>();
        n.fieldNames().forEachRemaining(out::add);
        return out;
    }
}
