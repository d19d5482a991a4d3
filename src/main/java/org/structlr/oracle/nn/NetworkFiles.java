package org.structlr.oracle.nn;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Iterator;
import java.util.Map;
import java.util.zip.ZipEntry;
import java.util.zip.ZipInputStream;
import org.deeplearning4j.nn.api.Model;
import org.deeplearning4j.nn.conf.ComputationGraphConfiguration;
import org.deeplearning4j.nn.conf.MultiLayerConfiguration;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.deeplearning4j.util.ModelSerializer;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;

/**
 * The one reader of DL4J network zips (ModelSerializer's layout: {@code configuration.json},
 * {@code coefficients.bin}, {@code updaterState.bin}) for everything structlr loads: saved functions,
 * checkpoints, the networks Spark ships, a user's own network.
 *
 * <p>Written by hand because ModelSerializer's readers deserialise any {@code preprocessor.bin} entry
 * with {@code ObjectInputStream.readObject()}: code chosen by whoever wrote the file. Here only the
 * three entries above are read, each with a size limit; any other entry is refused by name. The
 * configuration is JSON whose polymorphic {@code @class} names must be classes of DL4J, ND4J or
 * structlr (Jackson then also checks each is a subtype of the field's declared type), and the
 * arrays are ND4J's binary format ({@code Nd4j.read}), plain numbers. Writing stays with
 * ModelSerializer (it writes only these entries for networks without a normaliser).
 *
 * <p>Models saved before the function classes moved into their families name the loss classes by
 * their old package ({@code org.structlr.oracle.BiasedSoftmaxLoss}); those names are mapped to the
 * current ones, so older models and checkpoints keep loading.
 */
public final class NetworkFiles {
    static final String CONFIGURATION = "configuration.json";
    static final String COEFFICIENTS = "coefficients.bin";
    static final String UPDATER = "updaterState.bin";
    /** Largest configuration read (a network's JSON is kilobytes to a few megabytes). */
    static final long MAX_CONFIGURATION_BYTES = 64L << 20;
    /** Largest parameter or updater array read, in bytes (2^31 - 1 floats would not fit an INDArray view anyway). */
    static final long MAX_ARRAY_BYTES = Integer.MAX_VALUE - 64L;
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String[] ALLOWED_CLASS_PREFIXES = {"org.deeplearning4j.", "org.nd4j.", "org.structlr."};
    /**
     * The packages a user's own network file may name (a configuration of layers, graph vertices,
     * preprocessors, weight initialisations, activations, losses, updaters, schedules): narrower than
     * {@link #ALLOWED_CLASS_PREFIXES}, since the file comes from outside structlr.
     */
    private static final String[] OWN_CLASS_PREFIXES = {"org.deeplearning4j.nn.conf.", "org.deeplearning4j.nn.weights.",
            "org.nd4j.linalg.activations.", "org.nd4j.linalg.lossfunctions.", "org.nd4j.linalg.learning.", "org.nd4j.linalg.schedule."};
    /** A key or value that reads as a fully qualified Java class name (lower-case packages, then a capitalised name). */
    private static final java.util.regex.Pattern CLASS_NAME = java.util.regex.Pattern.compile("([a-z_][a-z0-9_]*\\.)+[A-Z][A-Za-z0-9_$]*");
    /** Largest own network file read (configuration and parameters). */
    public static final long MAX_OWN_BYTES = 1L << 30;
    /** Class names of structlr's own DL4J classes before the function-class families had their packages. */
    private static final Map<String, String> RENAMED = Map.of(
            "org.structlr.oracle.BiasedSoftmaxLoss", BiasedSoftmaxLoss.class.getName(),
            "org.structlr.oracle.FcnLoss", "org.structlr.oracle.fcn.FcnLoss");

    private NetworkFiles() {}

    /** Writes {@code net} (with its updater state when {@code withUpdater}) as a DL4J zip. */
    public static void write(Model net, Path file, boolean withUpdater) throws IOException {
        synchronized (net) {                    // DL4J networks are not safe for concurrent use
            ModelSerializer.writeModel(net, file.toFile(), withUpdater);
        }
    }

    /** {@link #write(Model, Path, boolean)} into bytes. */
    public static byte[] bytes(Model net, boolean withUpdater) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try {
            synchronized (net) {
                ModelSerializer.writeModel(net, out, withUpdater);
            }
        } catch (IOException e) {
            throw new java.io.UncheckedIOException("cannot serialise the network", e);
        }
        return out.toByteArray();
    }

    /** A MultiLayerNetwork from a zip file (its updater state too when {@code withUpdater} and present). */
    public static MultiLayerNetwork readMultiLayer(Path file, boolean withUpdater) throws IOException {
        return multiLayer(file.toString(), Files.newInputStream(requireFile(file)), withUpdater);
    }

    /** A MultiLayerNetwork from zip bytes ({@link #bytes}); {@code name} names the source in errors. */
    public static MultiLayerNetwork readMultiLayer(byte[] zip, String name, boolean withUpdater) throws IOException {
        return multiLayer(name, new ByteArrayInputStream(zip), withUpdater);
    }

    /** A ComputationGraph from a zip file. */
    public static ComputationGraph readGraph(Path file, boolean withUpdater) throws IOException {
        return graph(file.toString(), Files.newInputStream(requireFile(file)), withUpdater);
    }

    /** A ComputationGraph from zip bytes ({@link #bytes}). */
    public static ComputationGraph readGraph(byte[] zip, String name, boolean withUpdater) throws IOException {
        return graph(name, new ByteArrayInputStream(zip), withUpdater);
    }

    private static MultiLayerNetwork multiLayer(String name, InputStream in, boolean withUpdater) throws IOException {
        Entries e = read(name, in, false);
        MultiLayerNetwork net;
        try {
            net = new MultiLayerNetwork(MultiLayerConfiguration.fromJson(e.configuration));
        } catch (RuntimeException ex) {
            throw new IOException(name + ": not a DL4J MultiLayerNetwork configuration: " + firstLine(ex), ex);
        }
        net.init(e.params, false);
        if (withUpdater && e.updater != null) net.getUpdater().setStateViewArray(net, e.updater, false);
        return net;
    }

    private static ComputationGraph graph(String name, InputStream in, boolean withUpdater) throws IOException {
        Entries e = read(name, in, false);
        ComputationGraph net;
        try {
            net = new ComputationGraph(ComputationGraphConfiguration.fromJson(e.configuration));
        } catch (RuntimeException ex) {
            throw new IOException(name + ": not a DL4J ComputationGraph configuration: " + firstLine(ex), ex);
        }
        net.init(e.params, false);
        if (withUpdater && e.updater != null) net.getUpdater().setStateViewArray(e.updater);
        return net;
    }

    private static Path requireFile(Path file) throws IOException {
        if (!Files.isRegularFile(file)) throw new IOException(file + ": missing network file");
        return file;
    }

    private record Entries(String configuration, INDArray params, INDArray updater) {}

    /**
     * A user's own network ({@code --unary-net FILE}): a DL4J ComputationGraph configuration (JSON),
     * initialised with {@code seed}, or a DL4J ComputationGraph zip with its parameters (an updater
     * state in it is not read: training starts its own). Every class name in the JSON, the zip's
     * configuration.json included, is checked against {@link #OWN_CLASS_PREFIXES} before DL4J's
     * Jackson parses it (DL4J's configurations are polymorphic JSON that name the classes to make):
     * nothing from the file is made into an object of a class outside DL4J's configuration types.
     *
     * @param name the file as the user named it, for errors
     * @throws IOException naming the file and the problem
     */
    public static ComputationGraph readOwnGraph(byte[] content, String name, long seed) throws IOException {
        if (content.length >= 4 && content[0] == 'P' && content[1] == 'K' && content[2] == 3 && content[3] == 4) {
            Entries e = read(name, new ByteArrayInputStream(content), true);
            ComputationGraph net = new ComputationGraph(graphConfiguration(name, e.configuration));
            try {
                net.init(e.params, false);
            } catch (RuntimeException ex) {
                throw new IOException(name + ": the parameters (" + COEFFICIENTS + ") do not fit the configuration: " + firstLine(ex), ex);
            }
            return net;
        }
        if (content.length > MAX_CONFIGURATION_BYTES) {
            throw new IOException(name + ": a network configuration larger than " + MAX_CONFIGURATION_BYTES + " bytes (and not a zip)");
        }
        String json = checkedConfiguration(name, new String(content, StandardCharsets.UTF_8), true);
        ComputationGraphConfiguration conf = graphConfiguration(name, json);
        conf.getDefaultConfiguration().setSeed(seed);
        for (org.deeplearning4j.nn.conf.graph.GraphVertex v : conf.getVertices().values()) {
            if (v instanceof org.deeplearning4j.nn.conf.graph.LayerVertex lv && lv.getLayerConf() != null) lv.getLayerConf().setSeed(seed);
        }
        ComputationGraph net = new ComputationGraph(conf);
        try {
            net.init();
        } catch (RuntimeException ex) {
            throw new IOException(name + ": DL4J cannot build this network: " + firstLine(ex), ex);
        }
        return net;
    }

    private static ComputationGraphConfiguration graphConfiguration(String name, String json) throws IOException {
        if (JSON.readTree(json).has("confs")) {
            throw new IOException(name + ": a DL4J MultiLayerNetwork configuration; structlr takes a ComputationGraph"
                    + " (MultiLayerNetwork.toComputationGraph() converts one)");
        }
        try {
            return ComputationGraphConfiguration.fromJson(json);
        } catch (RuntimeException ex) {
            throw new IOException(name + ": not a DL4J ComputationGraph configuration: " + firstLine(ex), ex);
        }
    }

    /** The allowed entries of a network zip, size-limited; anything else is refused ({@code own}: a user's file, see {@link #readOwnGraph}). */
    private static Entries read(String name, InputStream raw, boolean own) throws IOException {
        String configuration = null;
        INDArray params = null, updater = null;
        try (ZipInputStream zip = new ZipInputStream(raw)) {
            for (ZipEntry entry; (entry = zip.getNextEntry()) != null; ) {
                String n = entry.getName();
                switch (n) {
                    case CONFIGURATION -> configuration = checkedConfiguration(name, new String(limited(zip, name, n, MAX_CONFIGURATION_BYTES), StandardCharsets.UTF_8), own);
                    case COEFFICIENTS -> params = array(zip, name, n);
                    case UPDATER -> updater = own ? null : array(zip, name, n);
                    default -> throw new IOException(name + ": unexpected entry '" + n + "' in a network file (only "
                            + CONFIGURATION + ", " + COEFFICIENTS + ", " + UPDATER + " are read; nothing is deserialised)");
                }
            }
        } catch (java.util.zip.ZipException e) {
            throw new IOException(name + ": not a readable network zip: " + e.getMessage(), e);
        }
        if (configuration == null) throw new IOException(name + ": network file without " + CONFIGURATION + (own ? " (not a DL4J model zip)" : ""));
        if (params == null) throw new IOException(name + ": network file without " + COEFFICIENTS);
        return new Entries(configuration, params, updater);
    }

    private static INDArray array(ZipInputStream zip, String name, String entry) throws IOException {
        byte[] b = limited(zip, name, entry, MAX_ARRAY_BYTES);
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(b))) {
            return Nd4j.read(in);
        } catch (RuntimeException | IOException e) {
            throw new IOException(name + ": " + entry + " is not an ND4J array: " + firstLine(e), e);
        }
    }

    private static byte[] limited(InputStream in, String name, String entry, long max) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        byte[] buf = new byte[1 << 16];
        long total = 0;
        for (int k; (k = in.read(buf)) > 0; ) {
            total += k;
            if (total > max) throw new IOException(name + ": entry " + entry + " is larger than " + max + " bytes");
            out.write(buf, 0, k);
        }
        return out.toByteArray();
    }

    /**
     * The configuration with legacy class names mapped; refuses class names outside DL4J, ND4J and
     * structlr, or, for a user's own file ({@code own}), outside {@link #OWN_CLASS_PREFIXES}; read
     * with a plain (untyped) ObjectMapper, before DL4J's Jackson makes any object from it.
     */
    static String checkedConfiguration(String name, String json, boolean own) throws IOException {
        for (Map.Entry<String, String> r : RENAMED.entrySet()) json = json.replace("\"" + r.getKey() + "\"", "\"" + r.getValue() + "\"");
        JsonNode root;
        try {
            root = JSON.readTree(json);
        } catch (IOException e) {
            throw new IOException(name + ": " + CONFIGURATION + " is not JSON: " + firstLine(e), e);
        }
        if (own && !root.isObject()) throw new IOException(name + ": not a DL4J network configuration (a JSON object) or model zip");
        checkClassNames(name, root, 0, own);
        return json;
    }

    private static void checkClassNames(String name, JsonNode node, int depth, boolean own) throws IOException {
        if (depth > 200) throw new IOException(name + ": " + CONFIGURATION + " is nested deeper than 200 levels");
        if (node.isObject()) {
            for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> f = it.next();
                if (own) {
                    // a user's file: every type name (an @class/@type value, or a key or text that reads as a class name) must be
                    // one of DL4J's or ND4J's configuration types
                    checkOwnName(name, f.getKey(), false);
                    boolean typeField = f.getKey().equals("@class") || f.getKey().equals("@type");
                    if (typeField && !f.getValue().isTextual()) throw new IOException(name + ": a " + f.getKey() + " that is not a class name");
                    if (f.getValue().isTextual()) checkOwnName(name, f.getValue().asText(), typeField);
                } else if (f.getKey().equals("@class") || f.getKey().equals("@type")) {
                    String cls = f.getValue().asText();
                    boolean ok = false;
                    for (String p : ALLOWED_CLASS_PREFIXES) ok |= cls.startsWith(p);
                    if (!ok && cls.contains(".")) {
                        throw new IOException(name + ": " + CONFIGURATION + " names class '" + cls
                                + "', outside DL4J, ND4J and structlr: refused");
                    }
                }
                checkClassNames(name, f.getValue(), depth + 1, own);
            }
        } else if (node.isArray()) {
            for (JsonNode c : node) checkClassNames(name, c, depth + 1, own);
        }
    }

    /** Refuses {@code text} when it is a type name ({@code typeName}) or reads as a class name, and is not in {@link #OWN_CLASS_PREFIXES}. */
    private static void checkOwnName(String name, String text, boolean typeName) throws IOException {
        if (!typeName && !CLASS_NAME.matcher(text).matches()) return;
        for (String p : OWN_CLASS_PREFIXES) if (text.startsWith(p)) return;
        throw refused(name, text, "outside DL4J's and ND4J's configuration types (" + String.join("*, ", OWN_CLASS_PREFIXES) + "*)");
    }

    private static IOException refused(String name, String cls, String why) {
        return new IOException(name + ": names class '" + cls + "', " + why + ": refused before DL4J reads it");
    }

    private static String firstLine(Throwable e) {
        String m = String.valueOf(e.getMessage());
        int nl = m.indexOf('\n');
        return nl < 0 ? m : m.substring(0, nl);
    }
}
