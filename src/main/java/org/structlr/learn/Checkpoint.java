package org.structlr.learn;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.structlr.data.AtomicFiles;
import org.structlr.data.BadInputException;
import org.structlr.data.NpyArray;
import org.structlr.data.Npz;
import org.structlr.model.CrfModel;
import org.structlr.oracle.ScoreFunction;
import org.structlr.oracle.ScoreFunctions;

/**
 * A learner's whole state plus what it takes to continue it: the oracle kinds, the settings, the
 * thread count and the hash of the data ({@link Training#dataHash}). Saved as a folder:
 * <pre>
 *   checkpoint.json   format, version, iteration, kinds, settings, threads, data hash, seconds,
 *                     a SHA-256 of every other file, and one of its own content
 *   unary/            the unary function (ScoreFunction.save: weights, updater state, fit count, booster)
 *   pair-&lt;t&gt;/          the function of pairwise type t
 *   messages.npz      float32 [E, 2, L]: train (the learner's engine), train_eval, test_eval (where they exist)
 *   curve.npz         "curve", float64 [iterations, 6]: iteration, objective, train error, test error, seconds, learning seconds
 * </pre>
 * Loading checks every checksum before reading anything, so a corrupted checkpoint is refused
 * whole, naming the file.
 */
public record Checkpoint(OracleKind unaryKind, OracleKind pairKind, LearnSettings settings, int threads, String dataHash,
                         LearnerState state) {
    public static final String FORMAT = "structlr-checkpoint";
    public static final int VERSION = 1;
    public static final String MANIFEST = "checkpoint.json";
    static final String MANIFEST_SHA = "manifest_sha256";
    static final String MESSAGES = "messages.npz";
    static final String CURVE = "curve.npz";
    private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    /** Writes this checkpoint as the folder {@code dir}, atomically (a complete folder or none). */
    public void save(Path dir) throws IOException {
        AtomicFiles.replaceFolder(dir, tmp -> {
            state.unary().save(tmp.resolve("unary"));
            for (int t = 0; t < state.pair().size(); t++) state.pair().get(t).save(tmp.resolve("pair-" + t));
            Map<String, NpyArray> messages = new LinkedHashMap<>();
            messages.put("train", NpyArray.fromINDArray(state.trainMessages()));
            if (state.trainEvalMessages() != null) messages.put("train_eval", NpyArray.fromINDArray(state.trainEvalMessages()));
            if (state.testEvalMessages() != null) messages.put("test_eval", NpyArray.fromINDArray(state.testEvalMessages()));
            Npz.write(tmp.resolve(MESSAGES), messages);
            List<IterationRecord> curve = state.curve();
            double[] c = new double[curve.size() * 6];
            for (int k = 0; k < curve.size(); k++) {
                IterationRecord r = curve.get(k);
                System.arraycopy(new double[] {r.iteration(), r.objective(), r.trainError(), r.testError(), r.seconds(), r.learningSeconds()}, 0, c, 6 * k, 6);
            }
            Npz.write(tmp.resolve(CURVE), Map.of("curve", NpyArray.ofDoubles(c, curve.size(), 6)));

            ObjectNode m = JSON.createObjectNode();
            m.put("format", FORMAT);
            m.put("version", VERSION);
            m.put("iteration", state.iteration());
            m.put("unary", unaryKind.cliName());
            m.put("pairwise", pairKind.cliName());
            m.put("pairTypes", state.pair().size());
            ObjectNode s = m.putObject("settings");
            s.put("iterations", settings.iterations());
            s.put("eps", settings.eps());
            s.put("sweepsPerFit", settings.sweepsPerFit());
            s.put("evalSweeps", settings.evalSweeps());
            s.put("seed", settings.seed());
            s.put("schedule", settings.schedule());
            m.put("threads", threads);
            m.put("dataHash", dataHash);
            ObjectNode sec = m.putObject("seconds");
            sec.put("oracleFits", state.fitSeconds());
            sec.put("messagePassing", state.passingSeconds());
            sec.put("evaluation", state.evalSeconds());
            m.set("sha256", JSON.valueToTree(checksums(tmp)));
            m.put(MANIFEST_SHA, sha256(JSON.writeValueAsBytes(m)));
            JSON.writeValue(tmp.resolve(MANIFEST).toFile(), m);
        }, existing -> Files.isRegularFile(existing.resolve(MANIFEST)));
    }

    /**
     * Loads a checkpoint folder, or the latest checkpoint ({@code iteration-NNNNNN}) of a folder a
     * {@link Checkpointer} writes into.
     *
     * @throws BadInputException naming the file: missing, corrupted (checksum), or not a checkpoint
     */
    public static Checkpoint load(Path path) {
        Path dir = Files.isRegularFile(path.resolve(MANIFEST)) ? path : Checkpointer.latest(path);
        Path manifest = dir.resolve(MANIFEST);
        JsonNode m;
        try {
            m = JSON.readTree(manifest.toFile());
        } catch (IOException e) {
            throw new BadInputException(manifest, "unreadable checkpoint manifest: " + e.getMessage());
        }
        if (m == null || !m.isObject() || !FORMAT.equals(m.path("format").asText())) throw new BadInputException(manifest, "not a structlr checkpoint manifest");
        if (m.path("version").asInt(-1) != VERSION) {
            throw new BadInputException(manifest, "checkpoint format version " + m.path("version") + " is not supported (this build reads " + VERSION + ")");
        }
        ObjectNode rest = ((ObjectNode) m).deepCopy();
        JsonNode own = rest.remove(MANIFEST_SHA);
        try {
            if (own == null || !own.asText().equals(sha256(JSON.writeValueAsBytes(rest)))) {
                throw new BadInputException(manifest, "checksum mismatch: the checkpoint manifest is corrupted or was changed");
            }
            Map<String, String> actual = checksums(dir);
            int listed = 0;
            for (Iterator<Map.Entry<String, JsonNode>> it = m.path("sha256").fields(); it.hasNext(); listed++) {
                Map.Entry<String, JsonNode> e = it.next();
                String got = actual.get(e.getKey());
                if (got == null) throw new BadInputException(dir.resolve(e.getKey()), "missing from the checkpoint folder");
                if (!got.equals(e.getValue().asText())) {
                    throw new BadInputException(dir.resolve(e.getKey()), "checksum mismatch: the checkpoint file is corrupted or was changed");
                }
            }
            if (listed == 0) throw new BadInputException(manifest, "checkpoint manifest lists no checksums");

            OracleKind unaryKind = OracleKind.parse(m.path("unary").asText());
            OracleKind pairKind = OracleKind.parse(m.path("pairwise").asText());
            JsonNode s = m.path("settings");
            LearnSettings settings = new LearnSettings(s.path("iterations").asInt(), s.path("eps").asDouble(),
                    s.path("sweepsPerFit").asInt(), s.path("evalSweeps").asInt(), s.path("seed").asLong(),
                    s.path("schedule").asText(org.structlr.schedule.Schedules.PAPER)); // checkpoints before schedules: paper
            ScoreFunction unary = ScoreFunctions.load(dir.resolve("unary"));
            List<ScoreFunction> pair = new ArrayList<>();
            for (int t = 0; t < m.path("pairTypes").asInt(); t++) pair.add(ScoreFunctions.load(dir.resolve("pair-" + t)));
            Map<String, NpyArray> msg = Npz.read(dir.resolve(MESSAGES));
            NpyArray ca = Npz.read(dir.resolve(CURVE)).get("curve");
            double[] c = ca.toDoubleArray();
            int w = ca.shape().length == 2 ? (int) ca.shape()[1] : 5; // 5 columns before learning seconds were kept
            List<IterationRecord> curve = new ArrayList<>();
            for (int k = 0; k < c.length / w; k++) {
                int o = w * k;
                curve.add(new IterationRecord((int) c[o], c[o + 1], c[o + 2], c[o + 3], c[o + 4], w > 5 ? c[o + 5] : c[o + 4]));
            }
            JsonNode sec = m.path("seconds");
            LearnerState state = new LearnerState(m.path("iteration").asInt(), unary, pair, array(msg, "train"),
                    array(msg, "train_eval"), array(msg, "test_eval"), curve,
                    sec.path("oracleFits").asDouble(), sec.path("messagePassing").asDouble(), sec.path("evaluation").asDouble());
            return new Checkpoint(unaryKind, pairKind, settings, m.path("threads").asInt(), m.path("dataHash").asText(), state);
        } catch (IOException | IllegalArgumentException e) {
            throw new BadInputException(dir, "cannot load checkpoint: " + e.getMessage(), e);
        }
    }

    private static INDArray array(Map<String, NpyArray> arrays, String name) {
        NpyArray a = arrays.get(name);
        return a == null ? null : a.toINDArray();
    }

    /** SHA-256 of every file under {@code dir} except the manifest, by relative path. */
    private static Map<String, String> checksums(Path dir) throws IOException {
        Map<String, String> out = new TreeMap<>();
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path p : (Iterable<Path>) files.filter(Files::isRegularFile).sorted()::iterator) {
                String rel = dir.relativize(p).toString().replace('\\', '/');
                if (!rel.equals(MANIFEST)) out.put(rel, CrfModel.sha256(p));
            }
        }
        return out;
    }

    private static String sha256(byte[] bytes) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
