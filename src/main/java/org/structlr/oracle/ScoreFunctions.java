package org.structlr.oracle;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.nd4j.linalg.api.ndarray.INDArray;

/**
 * Loading saved {@link ScoreFunction}s, and the small JSON file every saved one carries:
 * <pre>
 *   score-function.json   {"format": 1, "kind": "linear", "numClasses": 3, "numFeatures": 2, ...kind fields}
 * </pre>
 * beside the kind's own files (a DL4J ModelSerializer zip for linear, mlp and cnn, an XGBoost model
 * for boost; zero and constant need nothing else). The kind selects the {@link FunctionClass} whose
 * {@link FunctionClass#load} restores the function; a class of one's own writes this file with
 * {@link #meta} and {@link #writeMeta} in its {@link ScoreFunction#save}.
 */
public final class ScoreFunctions {

    public static final String META_FILE = "score-function.json";
    static final int FORMAT = 1;
    static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    private ScoreFunctions() {
    }

    /** Restores a function saved by {@link ScoreFunction#save(Path)}, of any registered class ({@link FunctionClasses#load}). */
    public static ScoreFunction load(Path dir) throws IOException {
        return FunctionClasses.load(dir);
    }

    static JsonNode readMeta(Path dir) throws IOException {
        Path file = dir.resolve(META_FILE);
        if (!Files.isRegularFile(file)) throw new IOException(file + ": no saved score function here");
        JsonNode meta = JSON.readTree(file.toFile());
        if (meta == null || !meta.isObject()) throw new IOException(file + ": not a JSON object");
        int format = meta.path("format").asInt(-1);
        if (format != FORMAT) throw new IOException(file + ": unsupported format " + format + " (expected " + FORMAT + ")");
        if (meta.path("numClasses").asInt(0) < 1) throw new IOException(file + ": numClasses missing or < 1");
        return meta;
    }

    /** The common fields; the caller adds its own and passes the node to {@link #writeMeta}. */
    public static ObjectNode meta(ScoreFunction f) {
        ObjectNode n = JSON.createObjectNode();
        n.put("format", FORMAT);
        n.put("kind", f.kind());
        n.put("numClasses", f.numClasses());
        n.put("numFeatures", f.numFeatures());
        n.put("description", f.describe());
        return n;
    }

    /** Writes {@value #META_FILE} into {@code dir} (created if missing): every saved function must. */
    public static void writeMeta(Path dir, ObjectNode meta) throws IOException {
        Files.createDirectories(dir);
        JSON.writeValue(dir.resolve(META_FILE).toFile(), meta);
    }

    /** Checks {@code features} is [N, D] (D = expected unless expected < 0) and FLOAT/DOUBLE. */
    public static void checkFeatures(INDArray features, int expected, String who) {
        if (features == null || features.rank() != 2) {
            throw new IllegalArgumentException(who + ": features must be [N, D], got "
                    + (features == null ? "null" : Arrays.toString(features.shape())));
        }
        if (expected >= 0 && features.size(1) != expected) {
            throw new IllegalArgumentException(who + ": expects " + expected + " features per row, got " + features.size(1));
        }
        if (!features.dataType().isFPType()) {
            throw new IllegalArgumentException(who + ": features must be floating point, got " + features.dataType());
        }
    }

    /** Checks a previous function handed to an oracle has the problem's number of classes. */
    public static void checkClasses(ScoreFunction previous, BiasedLogisticProblem p, String who) {
        checkClasses(previous, p.numFeatures(), p.numClasses(), who);
    }

    /** As {@link #checkClasses(ScoreFunction, BiasedLogisticProblem, String)}, for rows of that many features and classes. */
    public static void checkClasses(ScoreFunction previous, int numFeatures, int numClasses, String who) {
        if (previous != null && previous.numClasses() != numClasses) {
            throw new IllegalArgumentException(who + ": previous function has " + previous.numClasses()
                    + " classes, the problem " + numClasses);
        }
        if (previous != null && previous.numFeatures() >= 0 && previous.numFeatures() != numFeatures) {
            throw new IllegalArgumentException(who + ": previous function expects " + previous.numFeatures()
                    + " features, the problem has " + numFeatures);
        }
    }
}
