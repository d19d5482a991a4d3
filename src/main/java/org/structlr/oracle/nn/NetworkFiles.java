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
        Entries e = read(name, in);
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
        Entries e = read(name, in);
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

    /** The allowed entries of a network zip, size-limited; anything else is refused. */
    private static Entries read(String name, InputStream raw) throws IOException {
        String configuration = null;
        INDArray params = null, updater = null;
        try (ZipInputStream zip = new ZipInputStream(raw)) {
            for (ZipEntry entry; (entry = zip.getNextEntry()) != null; ) {
                String n = entry.getName();
                switch (n) {
                    case CONFIGURATION -> configuration = checkedConfiguration(name, new String(limited(zip, name, n, MAX_CONFIGURATION_BYTES), StandardCharsets.UTF_8));
                    case COEFFICIENTS -> params = array(zip, name, n);
                    case UPDATER -> updater = array(zip, name, n);
                    default -> throw new IOException(name + ": unexpected entry '" + n + "' in a network file (only "
                            + CONFIGURATION + ", " + COEFFICIENTS + ", " + UPDATER + " are read; nothing is deserialised)");
                }
            }
        } catch (java.util.zip.ZipException e) {
            throw new IOException(name + ": not a readable network zip: " + e.getMessage(), e);
        }
        if (configuration == null) throw new IOException(name + ": network file without " + CONFIGURATION);
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

    /** The configuration with legacy class names mapped; refuses class names outside DL4J, ND4J and structlr. */
    static String checkedConfiguration(String name, String json) throws IOException {
        for (Map.Entry<String, String> r : RENAMED.entrySet()) json = json.replace("\"" + r.getKey() + "\"", "\"" + r.getValue() + "\"");
        JsonNode root;
        try {
            root = JSON.readTree(json);
        } catch (IOException e) {
            throw new IOException(name + ": " + CONFIGURATION + " is not JSON: " + firstLine(e), e);
        }
        checkClassNames(name, root, 0);
        return json;
    }

    private static void checkClassNames(String name, JsonNode node, int depth) throws IOException {
        if (depth > 200) throw new IOException(name + ": " + CONFIGURATION + " is nested deeper than 200 levels");
        if (node.isObject()) {
            for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> f = it.next();
                if (f.getKey().equals("@class") || f.getKey().equals("@type")) {
                    String cls = f.getValue().asText();
                    boolean ok = false;
                    for (String p : ALLOWED_CLASS_PREFIXES) ok |= cls.startsWith(p);
                    if (!ok && cls.contains(".")) {
                        throw new IOException(name + ": " + CONFIGURATION + " names class '" + cls
                                + "', outside DL4J, ND4J and structlr: refused");
                    }
                }
                checkClassNames(name, f.getValue(), depth + 1);
            }
        } else if (node.isArray()) {
            for (JsonNode c : node) checkClassNames(name, c, depth + 1);
        }
    }

    private static String firstLine(Throwable e) {
        String m = String.valueOf(e.getMessage());
        int nl = m.indexOf('\n');
        return nl < 0 ? m : m.substring(0, nl);
    }
}
