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
import org.structlr.data.AtomicFiles;
import org.structlr.data.BadInputException;
import org.structlr.data.NpyArray;
import org.structlr.data.Npz;
import org.structlr.model.CrfModel;
import org.structlr.model.RegionLayout;
import org.structlr.oracle.FunctionSpec;
import org.structlr.oracle.ScoreFunction;
import org.structlr.oracle.ScoreFunctions;

/**
 * A learner's whole state plus what it takes to continue it: the function classes with their
 * options, the settings, the thread count and the hash of the data ({@link DataHashes}). Saved as a folder:
 * <pre>
 *   checkpoint.json   format, version, iteration, classes ("unary", "pairwise") and their option values
 *                     ("unaryOptions", "pairwiseOptions": every option the class declares), what the oracles said of
 *                     themselves ("oracles": "unary", "pairwise" per type, as in model.json; a resume with other
 *                     oracles is refused), settings, threads, data hash, seconds, the checkpoint interval of the run
 *                     ("checkpointEvery": a resume goes on checkpointing as often),
 *                     a SHA-256 of every other file, and one of its own content
 *   unary/            the unary function (ScoreFunction.save: weights, updater state, fit count, booster)
 *   pair-&lt;t&gt;/          the function of pairwise type t
 *   region-&lt;t&gt;/        the function of region type t (with --regions; "regions" in the manifest names the layout)
 *   messages.npz      float32, flat [E, 2, L]: train (the learner's engine), train_eval, test_eval, clamped (the
 *                     clamped void form's engine, {@link ClampedRows}) (where they exist)
 *   state.npz         float32: the same engines' exact states ({@link EngineState}); the manifest's
 *                     "engines" names the engine class of each
 *   curve.npz         "curve", float64 [rows, 6]: iteration, objective, train error, test error, seconds,
 *                     learning seconds (the evaluated iterations only; version 1 has the first 5 columns)
 * </pre>
 * Loading checks every checksum before reading anything, so a corrupted checkpoint is refused
 * whole, naming the file. Version 1 (messages only, every iteration evaluated) still loads: it
 * continues through the messages, which is exact for the engines of that time (they were re-seated
 * every iteration), and evaluates every iteration as it did. A checkpoint without option values
 * (written before classes had options) ran every option at its default, and loads so.
 *
 * <p>A run with region factors ({@code regions}, not {@link RegionLayout#NONE}) or row weights
 * ({@code weights}: "weights" in the manifest, as given, {@link RowWeights#given}) is written as
 * version 3, so that a build that knows neither refuses it rather than continuing without them.
 */
public record Checkpoint(FunctionSpec unary, FunctionSpec pair, LearnSettings settings, int threads, String dataHash,
                         String examplesHash, LearnerState state, RegionLayout regions, RowWeights weights, int interval) {
    public static final String FORMAT = "structlr-checkpoint";
    /** The version of a checkpoint without region factors or weights. */
    public static final int VERSION = 2;
    /** The version of a checkpoint with region factors or row weights (the newest this build reads). */
    public static final int REGIONS_VERSION = 3;
    /** The oldest version {@link #load} reads. */
    public static final int OLDEST_VERSION = 1;
    public static final String MANIFEST = "checkpoint.json";
    static final String MANIFEST_SHA = "manifest_sha256";
    static final String MESSAGES = "messages.npz";
    static final String STATE = "state.npz";
    static final String CURVE = "curve.npz";
    private static final String[] ENGINES = {"train", "train_eval", "test_eval", "clamped"};
    private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    /**
     * {@code dataHash} ({@link DataHashes#dataHash}) is null where it is not known (a data set that only
     * Spark executors read); {@code examplesHash} ({@link DataHashes#examplesHash}) is null in
     * checkpoints written before it was recorded. {@code interval} is the iterations between the
     * checkpoints of the run that wrote it ({@link Checkpointer}), 0 when not known (a checkpoint
     * saved on its own, or written before the interval was recorded and not in a folder that shows it).
     */
    public Checkpoint {
        if (interval < 0) throw new IllegalArgumentException("checkpoint interval " + interval);
        if (dataHash != null && dataHash.isEmpty()) dataHash = null;
        if (examplesHash != null && examplesHash.isEmpty()) examplesHash = null;
        if (regions == null) regions = RegionLayout.NONE;
        if (weights == null) weights = RowWeights.NONE;
        if (state.regions().size() != regions.numTypes()) {
            throw new IllegalArgumentException("the state has " + state.regions().size() + " region functions, layout " + regions.label()
                    + " has " + regions.numTypes() + " region types");
        }
    }

    /** Without region factors or row weights. */
    public Checkpoint(FunctionSpec unary, FunctionSpec pair, LearnSettings settings, int threads, String dataHash, String examplesHash,
                      LearnerState state) {
        this(unary, pair, settings, threads, dataHash, examplesHash, state, RegionLayout.NONE, RowWeights.NONE, 0);
    }

    /** A checkpoint of the two classes with every option at its default, with the data hash only (no examples hash). */
    public Checkpoint(String unaryKind, String pairKind, LearnSettings settings, int threads, String dataHash, LearnerState state) {
        this(FunctionSpec.unary(unaryKind), FunctionSpec.pairwise(pairKind), settings, threads, dataHash, null, state);
    }

    /** The unary class's registered name. */
    public String unaryKind() {
        return unary.name();
    }

    /** The pairwise class's registered name. */
    public String pairKind() {
        return pair.name();
    }

    /** This checkpoint with the checkpoint interval {@code every} (0: not known). */
    public Checkpoint withInterval(int every) {
        return new Checkpoint(unary, pair, settings, threads, dataHash, examplesHash, state, regions, weights, every);
    }

    /**
     * Writes this checkpoint as the folder {@code dir}, atomically (a complete folder or none); an
     * existing {@code dir} is replaced only when it is a checkpoint (holds a {@value #MANIFEST}).
     */
    public void save(Path dir) throws IOException {
        save(dir, existing -> Files.isRegularFile(existing.resolve(MANIFEST)));
    }

    /** As {@link #save(Path)}, an existing {@code dir} replaced when {@code replaceable} says so (else refused, naming it). */
    void save(Path dir, java.util.function.Predicate<Path> replaceable) throws IOException {
        AtomicFiles.replaceFolder(dir, tmp -> {
            state.unary().save(tmp.resolve("unary"));
            for (int t = 0; t < state.pair().size(); t++) state.pair().get(t).save(tmp.resolve("pair-" + t));
            for (int t = 0; t < state.regions().size(); t++) state.regions().get(t).save(tmp.resolve("region-" + t));
            Map<String, NpyArray> messages = new LinkedHashMap<>(), exact = new LinkedHashMap<>();
            EngineState[] engines = {state.train(), state.trainEval(), state.testEval(), state.clamped()};
            ObjectNode engineNames = JSON.createObjectNode();
            for (int k = 0; k < ENGINES.length; k++) {
                EngineState e = engines[k];
                if (e == null) continue;
                messages.put(ENGINES[k], NpyArray.ofFloats(e.messages(), e.messages().length));
                if (e.state() != null) {
                    exact.put(ENGINES[k], NpyArray.ofFloats(e.state(), e.state().length));
                    engineNames.put(ENGINES[k], e.engine());
                }
            }
            Npz.write(tmp.resolve(MESSAGES), messages);
            if (!exact.isEmpty()) Npz.write(tmp.resolve(STATE), exact);
            List<IterationRecord> curve = state.curve();
            double[] c = new double[curve.size() * 6];
            for (int k = 0; k < curve.size(); k++) {
                IterationRecord r = curve.get(k);
                System.arraycopy(new double[] {r.iteration(), r.objective(), r.trainError(), r.testError(), r.seconds(), r.learningSeconds()}, 0, c, 6 * k, 6);
            }
            Npz.write(tmp.resolve(CURVE), Map.of("curve", NpyArray.ofDoubles(c, curve.size(), 6)));

            ObjectNode m = JSON.createObjectNode();
            m.put("format", FORMAT);
            boolean newer = regions != RegionLayout.NONE || weights.any();
            m.put("version", newer ? REGIONS_VERSION : VERSION);
            m.put("iteration", state.iteration());
            m.put("unary", unary.name());
            m.put("pairwise", pair.name());
            m.set("unaryOptions", JSON.valueToTree(unary.options().values()));
            m.set("pairwiseOptions", JSON.valueToTree(pair.options().values()));
            m.put("pairTypes", state.pair().size());
            if (regions != RegionLayout.NONE) m.put("regions", regions.label());
            if (weights.any()) m.set("weights", JSON.valueToTree(weights.given()));
            if (interval > 0) m.put("checkpointEvery", interval);
            if (state.oracles() != null) {
                ObjectNode o = m.putObject("oracles");
                int T = state.pair().size();
                o.put("unary", state.oracles().get(0));
                state.oracles().subList(1, T + 1).forEach(o.putArray("pairwise")::add);
                if (regions != RegionLayout.NONE) state.oracles().subList(T + 1, state.oracles().size()).forEach(o.putArray("regions")::add);
            }
            ObjectNode s = m.putObject("settings");
            s.put("iterations", settings.iterations());
            s.put("eps", settings.eps());
            s.put("sweepsPerFit", settings.sweepsPerFit());
            s.set("evalSweeps", JSON.valueToTree(settings.evalSweepsRecorded()));
            s.put("evalEvery", settings.evalEvery());
            s.put("seed", settings.seed());
            s.put("schedule", settings.schedule());
            s.put("engine", settings.engine().label());
            s.put("voidForm", settings.voidForm().label());
            m.set("engines", engineNames);
            m.put("threads", threads);
            m.put("dataHash", dataHash == null ? "" : dataHash);
            if (examplesHash != null) m.put(DataHashes.EXAMPLES_HASH, examplesHash);
            ObjectNode sec = m.putObject("seconds");
            sec.put("oracleFits", state.fitSeconds());
            sec.put("messagePassing", state.passingSeconds());
            sec.put("evaluation", state.evalSeconds());
            sec.put("total", state.seconds());
            m.set("sha256", JSON.valueToTree(checksums(tmp)));
            m.put(MANIFEST_SHA, sha256(JSON.writeValueAsBytes(m)));
            JSON.writeValue(tmp.resolve(MANIFEST).toFile(), m);
        }, replaceable);
    }

    /**
     * Loads a checkpoint folder, or the latest checkpoint ({@code iteration-NNNNNN}) of a folder a
     * {@link Checkpointer} writes into.
     *
     * @throws BadInputException naming the file: missing, corrupted (checksum), or not a checkpoint
     */
    public static Checkpoint load(Path path) {
        return load(path, note -> { });
    }

    /**
     * Loads the checkpoint {@code path}, or when {@code path} is a folder of checkpoints
     * ({@link Checkpointer}) its newest; when the newest is damaged (any check below fails) the one
     * before it, telling {@code onFallback} which was skipped and why. Both damaged: the newest's error.
     */
    public static Checkpoint load(Path path, java.util.function.Consumer<String> onFallback) {
        if (Files.isRegularFile(path.resolve(MANIFEST))) return loadOne(path);
        List<Path> found = Checkpointer.newestFirst(path);
        BadInputException newest = null;
        for (Path dir : found.subList(0, Math.min(Checkpointer.KEPT, found.size()))) {
            try {
                Checkpoint c = loadOne(dir);
                if (newest != null) onFallback.accept(newest.getMessage() + "; resuming from the one before, " + dir);
                return c.interval() > 0 ? c : c.withInterval(Checkpointer.gap(found.stream().map(f -> f.getFileName().toString()).toList()));
            } catch (BadInputException e) {
                if (newest == null) newest = e;
            }
        }
        throw newest;
    }

    private static Checkpoint loadOne(Path dir) {
        try {
            return org.structlr.data.Reading.guard(dir, () -> loadChecked(dir));
        } catch (IOException e) {
            throw new BadInputException(dir, "cannot read: " + e.getMessage(), e);
        }
    }

    private static Checkpoint loadChecked(Path dir) {
        Path manifest = dir.resolve(MANIFEST);
        if (!Files.exists(manifest)) throw new BadInputException(manifest, "missing: the checkpoint is incomplete (a save or a copy cut short)");
        JsonNode m;
        try {
            m = JSON.readTree(manifest.toFile());
        } catch (IOException e) {
            throw new BadInputException(manifest, "unreadable checkpoint manifest: " + e.getMessage());
        }
        if (m == null || !m.isObject() || !FORMAT.equals(m.path("format").asText())) throw new BadInputException(manifest, "not a structlr checkpoint manifest");
        int version = m.path("version").asInt(-1);
        if (version < OLDEST_VERSION || version > REGIONS_VERSION) {
            throw new BadInputException(manifest, "checkpoint format version " + m.path("version") + " is not supported (this build reads "
                    + OLDEST_VERSION + " to " + REGIONS_VERSION + ")");
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

            // the classes with the options they ran (missing option values: the defaults they ran before options existed)
            FunctionSpec unarySpec = FunctionSpec.recorded(m.path("unary").asText(), true, m.path("unaryOptions"));
            FunctionSpec pairSpec = FunctionSpec.recorded(m.path("pairwise").asText(), false, m.path("pairwiseOptions"));
            JsonNode s = m.path("settings");
            LearnSettings settings = new LearnSettings(s.path("iterations").asInt(), s.path("eps").asDouble(),
                    s.path("sweepsPerFit").asInt(), s.path("evalSweeps").isMissingNode() ? 0 : LearnSettings.evalSweepsOf(s.path("evalSweeps")), s.path("evalEvery").asInt(1), s.path("seed").asLong(),
                    s.path("schedule").asText(org.structlr.schedule.Schedules.PAPER), // checkpoints before schedules: paper
                    engine(manifest, s.path("engine").asText("auto")), // before --engine: auto
                    voidForm(manifest, s.path("voidForm"))); // before --void-form: simple
            ScoreFunction unary = ScoreFunctions.load(dir.resolve("unary"));
            List<ScoreFunction> pair = new ArrayList<>();
            for (int t = 0; t < m.path("pairTypes").asInt(); t++) pair.add(ScoreFunctions.load(dir.resolve("pair-" + t)));
            RegionLayout regions = regions(manifest, m.path("regions"));
            List<ScoreFunction> regionFunctions = new ArrayList<>();
            for (int t = 0; t < regions.numTypes(); t++) regionFunctions.add(ScoreFunctions.load(dir.resolve("region-" + t)));
            RowWeights weights;
            try {
                weights = RowWeights.ofGiven(m.path("weights"));
            } catch (IllegalArgumentException e) {
                throw new BadInputException(manifest, "weights: " + e.getMessage());
            }
            Map<String, NpyArray> msg = Npz.read(dir.resolve(MESSAGES));
            Map<String, NpyArray> exact = version >= 2 && Files.isRegularFile(dir.resolve(STATE)) ? Npz.read(dir.resolve(STATE)) : Map.of();
            EngineState[] engines = new EngineState[ENGINES.length];
            for (int k = 0; k < ENGINES.length; k++) {
                NpyArray a = msg.get(ENGINES[k]);
                if (a == null) continue;
                NpyArray st = exact.get(ENGINES[k]);
                String engine = m.path("engines").path(ENGINES[k]).asText(null);
                engines[k] = st == null || engine == null ? new EngineState(null, null, a.toFloatArray())
                        : new EngineState(engine, st.toFloatArray(), a.toFloatArray());
            }
            if (engines[0] == null) throw new BadInputException(dir.resolve(MESSAGES), "lacks the training engine's messages ('train')");
            NpyArray ca = Npz.read(dir.resolve(CURVE)).get("curve");
            double[] c = ca.toDoubleArray();
            int w = ca.shape().length == 2 ? (int) ca.shape()[1] : 5; // 5 columns before learning seconds were kept
            List<IterationRecord> curve = new ArrayList<>();
            for (int k = 0; k < c.length / w; k++) {
                int o = w * k;
                curve.add(new IterationRecord((int) c[o], c[o + 1], c[o + 2], c[o + 3], c[o + 4], w > 5 ? c[o + 5] : c[o + 4]));
            }
            JsonNode sec = m.path("seconds");
            double total = sec.path("total").isNumber() ? sec.path("total").asDouble() : curve.isEmpty() ? 0 : curve.get(curve.size() - 1).seconds();
            LearnerState state = new LearnerState(m.path("iteration").asInt(), unary, pair, engines[0], engines[1], engines[2], curve,
                    total, sec.path("oracleFits").asDouble(), sec.path("messagePassing").asDouble(), sec.path("evaluation").asDouble(),
                    oracles(manifest, m.path("oracles"), pair.size(), regions.numTypes()), engines[3], regionFunctions);
            return new Checkpoint(unarySpec, pairSpec, settings, m.path("threads").asInt(), m.path("dataHash").asText(""),
                    m.path(DataHashes.EXAMPLES_HASH).asText(""), state, regions, weights, Math.max(0, m.path("checkpointEvery").asInt(0)));
        } catch (IOException | IllegalArgumentException e) {
            throw new BadInputException(dir, "cannot load checkpoint: " + e.getMessage(), e);
        }
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

    static String sha256(byte[] bytes) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The recorded --void-form (none: the form of the time, simple); a name that is none is an error naming the manifest. */
    private static VoidForm voidForm(Path manifest, JsonNode recorded) {
        if (recorded.isMissingNode()) return VoidForm.RECORDED_BEFORE;
        try {
            return VoidForm.parse(recorded.asText());
        } catch (IllegalArgumentException e) {
            throw new BadInputException(manifest, "settings: " + e.getMessage());
        }
    }

    /**
     * The recorded oracle descriptions, unary first, then each pairwise and region type (null when the
     * checkpoint predates them); malformed: an error naming the manifest.
     */
    private static List<String> oracles(Path manifest, JsonNode o, int pairTypes, int regionTypes) {
        if (o.isMissingNode()) return null;
        JsonNode pairs = o.path("pairwise"), regions = regionTypes == 0 ? JSON.createArrayNode() : o.path("regions");
        String expected = "\"oracles\" must hold a \"unary\" text and a \"pairwise\" list of " + pairTypes + " texts"
                + (regionTypes == 0 ? "" : " and a \"regions\" list of " + regionTypes + " texts");
        if (!o.path("unary").isTextual() || !pairs.isArray() || pairs.size() != pairTypes || !regions.isArray() || regions.size() != regionTypes) {
            throw new BadInputException(manifest, expected);
        }
        List<String> out = new ArrayList<>();
        out.add(o.path("unary").asText());
        for (JsonNode p : pairs) {
            if (!p.isTextual()) throw new BadInputException(manifest, expected);
            out.add(p.asText());
        }
        for (JsonNode p : regions) {
            if (!p.isTextual()) throw new BadInputException(manifest, expected);
            out.add(p.asText());
        }
        return out;
    }

    /** The recorded region layout (none: pairs only); a name that is none is an error naming the manifest. */
    private static RegionLayout regions(Path manifest, JsonNode recorded) {
        if (recorded.isMissingNode()) return RegionLayout.NONE;
        try {
            RegionLayout r = RegionLayout.of(recorded.asText());
            if (r == RegionLayout.NONE) throw new IllegalArgumentException("'none' is written as no \"regions\" entry");
            return r;
        } catch (IllegalArgumentException e) {
            throw new BadInputException(manifest, "regions: " + e.getMessage());
        }
    }

    /** The recorded --engine; a name that is none is an error naming the manifest. */
    private static org.structlr.inference.engines.EngineChoice engine(Path manifest, String name) {
        try {
            return org.structlr.inference.engines.EngineChoice.parse(name);
        } catch (IllegalArgumentException e) {
            throw new BadInputException(manifest, "settings: " + e.getMessage());
        }
    }
}
