package org.structlr.model;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.InputStream;
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
import org.structlr.data.ClassTable;
import org.structlr.oracle.ScoreFunction;
import org.structlr.oracle.ScoreFunctions;

/**
 * A trained CRF: the label count, eps, the factor types and each type's function, plus the
 * settings and provenance that made it. Saved as a folder:
 * <pre>
 *   model.json          format, version, settings, provenance, class table, and a SHA-256 of every other file
 *   unary/              the unary function (ScoreFunction.save)
 *   pair-&lt;k&gt;/            the function of pairwise type k
 *   region-&lt;k&gt;/          the function of region type k (models with --regions)
 * </pre>
 * A model with region factors records its {@link RegionLayout} ("regions" in model.json) and is
 * written as format version 2, so that a build that knows no regions refuses it rather than
 * predicting without them; a model without regions stays version 1.
 * Loading checks the format, version and every checksum first, so a corrupted or foreign folder is
 * refused whole, never half-loaded. Saving writes a temporary folder beside the target and moves
 * it into place ({@link AtomicFiles#replaceFolder}).
 */
public final class CrfModel {
    public static final String FORMAT = "structlr-model";
    public static final int VERSION = 1;
    /** The format version of a model with region factors. */
    public static final int REGIONS_VERSION = 2;
    public static final String MANIFEST = "model.json";
    static final String MANIFEST_SHA = "manifest_sha256";
    static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    private final int numLabels;
    private final double eps;
    private final int unaryFeatures;
    private final int pairFeatures;
    private final List<String> pairTypes;
    private final ScoreFunction unary;
    private final List<ScoreFunction> pair;
    private final RegionLayout regionLayout;
    private final List<ScoreFunction> regions;
    private final Map<String, Object> settings;
    private final Map<String, Object> provenance;
    private final ClassTable classes;

    /**
     * {@code unaryFeatures} and {@code pairFeatures} are the feature widths of the data the model was
     * trained on (the functions of some classes, zero and constant, do not read features at all).
     * The classes are named "0".."L-1" ({@link ClassTable#numbered}).
     */
    public CrfModel(int numLabels, double eps, int unaryFeatures, int pairFeatures, List<String> pairTypes,
                    ScoreFunction unary, List<ScoreFunction> pair, Map<String, Object> settings, Map<String, Object> provenance) {
        this(numLabels, eps, unaryFeatures, pairFeatures, pairTypes, unary, pair, settings, provenance,
                ClassTable.numbered(Math.max(2, numLabels), ClassTable.DEFAULT_VOID));
    }

    /** As above, with the class table of the data it was trained on (one class per label). */
    public CrfModel(int numLabels, double eps, int unaryFeatures, int pairFeatures, List<String> pairTypes,
                    ScoreFunction unary, List<ScoreFunction> pair, Map<String, Object> settings, Map<String, Object> provenance,
                    ClassTable classes) {
        this(numLabels, eps, unaryFeatures, pairFeatures, pairTypes, unary, pair, RegionLayout.NONE, List.of(), settings, provenance, classes);
    }

    /** As above, with region factors: the layout and one function per region type of it (scoring its joint labels). */
    public CrfModel(int numLabels, double eps, int unaryFeatures, int pairFeatures, List<String> pairTypes,
                    ScoreFunction unary, List<ScoreFunction> pair, RegionLayout regionLayout, List<ScoreFunction> regions,
                    Map<String, Object> settings, Map<String, Object> provenance, ClassTable classes) {
        if (pair.size() != pairTypes.size()) throw new IllegalArgumentException(pair.size() + " pairwise functions for " + pairTypes.size() + " types");
        if (regions.size() != regionLayout.numTypes()) {
            throw new IllegalArgumentException(regions.size() + " region functions for the " + regionLayout.numTypes() + " region types of " + regionLayout.label());
        }
        this.regionLayout = regionLayout;
        this.regions = List.copyOf(regions);
        if (classes.numClasses() != numLabels) throw new IllegalArgumentException(classes.numClasses() + " classes for " + numLabels + " labels");
        this.classes = classes;
        this.numLabels = numLabels;
        this.eps = eps;
        this.unaryFeatures = unaryFeatures;
        this.pairFeatures = pairFeatures;
        this.pairTypes = List.copyOf(pairTypes);
        this.unary = unary;
        this.pair = List.copyOf(pair);
        this.settings = new LinkedHashMap<>(settings);
        this.provenance = new LinkedHashMap<>(provenance);
    }

    public int numLabels() { return numLabels; }
    public double eps() { return eps; }
    public List<String> pairTypes() { return pairTypes; }
    public ScoreFunction unary() { return unary; }
    public List<ScoreFunction> pair() { return pair; }
    /** Which region factors the model puts on each image ({@link RegionLayout#NONE}: pairs only). */
    public RegionLayout regionLayout() { return regionLayout; }
    /** The function of every region type of {@link #regionLayout()} (empty without regions). */
    public List<ScoreFunction> regions() { return regions; }
    public Map<String, Object> settings() { return settings; }
    public Map<String, Object> provenance() { return provenance; }
    /** What the labels mean: names, colours, void (saved in model.json as "classes"). */
    public ClassTable classes() { return classes; }

    /** {@code examples} as one batch with this model's factors (its pairwise types and region layout). */
    public ExampleBatch batch(List<org.structlr.data.Example> examples) {
        return new ExampleBatch(examples, numLabels, pairTypes, regionLayout);
    }

    public int unaryFeatures() { return unaryFeatures; }
    public int pairFeatures() { return pairFeatures; }

    public void save(Path dir) throws IOException {
        AtomicFiles.replaceFolder(dir, tmp -> {
            unary.save(tmp.resolve("unary"));
            for (int t = 0; t < pair.size(); t++) pair.get(t).save(tmp.resolve("pair-" + t));
            for (int t = 0; t < regions.size(); t++) regions.get(t).save(tmp.resolve("region-" + t));
            ObjectNode m = JSON.createObjectNode();
            m.put("format", FORMAT);
            m.put("version", regions.isEmpty() ? VERSION : REGIONS_VERSION);
            m.put("numLabels", numLabels);
            m.put("eps", eps);
            m.put("unaryKind", unary.kind());
            m.put("unaryFeatures", unaryFeatures);
            m.put("pairFeatures", pairFeatures);
            ArrayNode types = m.putArray("pairTypes");
            for (int t = 0; t < pairTypes.size(); t++) {
                ObjectNode o = types.addObject();
                o.put("name", pairTypes.get(t));
                o.put("kind", pair.get(t).kind());
                o.put("features", pair.get(t).numFeatures());
                o.put("folder", "pair-" + t);
            }
            if (!regions.isEmpty()) {
                ObjectNode r = m.putObject("regions");
                r.put("layout", regionLayout.label());
                ArrayNode rt = r.putArray("types");
                for (int t = 0; t < regions.size(); t++) {
                    ObjectNode o = rt.addObject();
                    o.put("name", regionLayout.typeNames().get(t));
                    o.put("kind", regions.get(t).kind());
                    o.put("features", regions.get(t).numFeatures());
                    o.put("folder", "region-" + t);
                }
            }
            m.set("settings", JSON.valueToTree(settings));
            m.set("provenance", JSON.valueToTree(provenance));
            m.set("classes", JSON.valueToTree(classes.toMap()));
            m.set("sha256", JSON.valueToTree(checksums(tmp)));
            m.put(MANIFEST_SHA, manifestHash(m));
            JSON.writeValue(tmp.resolve(MANIFEST).toFile(), m);
        }, existing -> Files.isRegularFile(existing.resolve(MANIFEST)));
    }

    public static CrfModel load(Path dir) {
        try {
            return org.structlr.data.Reading.guard(dir, () -> loadChecked(dir));
        } catch (IOException e) {
            throw new BadInputException(dir, "cannot read: " + e.getMessage(), e);
        }
    }

    private static CrfModel loadChecked(Path dir) {
        Path manifest = dir.resolve(MANIFEST);
        if (!Files.isDirectory(dir)) throw new BadInputException(dir, "no such model folder");
        if (!Files.isRegularFile(manifest)) throw new BadInputException(dir, "not a structlr model (no " + MANIFEST + ")");
        JsonNode m;
        try {
            org.structlr.data.InputLimits.JSON_BYTES.check(manifest, Files.size(manifest), "model manifest");
            m = JSON.readTree(manifest.toFile());
        } catch (IOException e) {
            throw new BadInputException(manifest, "unreadable model manifest: " + e.getMessage());
        }
        if (m == null || !m.isObject() || !FORMAT.equals(m.path("format").asText())) throw new BadInputException(manifest, "not a structlr model manifest");
        int version = m.path("version").asInt(-1);
        if (version != VERSION && version != REGIONS_VERSION) {
            throw new BadInputException(manifest, "model format version " + m.path("version") + " is not supported (this build reads "
                    + VERSION + " and " + REGIONS_VERSION + ")");
        }
        if ((version == REGIONS_VERSION) != m.has("regions")) {
            throw new BadInputException(manifest, "model format version " + version + (m.has("regions") ? " takes no" : " needs a") + " \"regions\" entry");
        }
        // The manifest covers itself too: a hash of its own content without this field.
        ObjectNode rest = ((ObjectNode) m).deepCopy();
        JsonNode own = rest.remove(MANIFEST_SHA);
        if (own == null || !own.asText().equals(manifestHash(rest))) {
            throw new BadInputException(manifest, "checksum mismatch: the model manifest is corrupted or was changed");
        }
        try {
            Map<String, String> actual = checksums(dir);
            Map<String, String> expected = new TreeMap<>();
            for (Iterator<Map.Entry<String, JsonNode>> it = m.path("sha256").fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> e = it.next();
                expected.put(e.getKey(), e.getValue().asText());
            }
            if (expected.isEmpty()) throw new BadInputException(manifest, "model manifest lists no checksums");
            for (Map.Entry<String, String> e : expected.entrySet()) {
                String got = actual.get(e.getKey());
                if (got == null) throw new BadInputException(dir.resolve(e.getKey()), "missing from the model folder");
                if (!got.equals(e.getValue())) throw new BadInputException(dir.resolve(e.getKey()), "checksum mismatch: the model file is corrupted or was changed");
            }
            ManifestFields f = ManifestFields.check(manifest, m);
            ScoreFunction unary = ScoreFunctions.load(inside(dir, "unary", manifest));
            f.checkFunction(manifest, unary, "unary", f.numLabels(), f.unaryFeatures());
            List<ScoreFunction> pair = new ArrayList<>();
            for (int t = 0; t < f.pairNames().size(); t++) {
                ScoreFunction g = ScoreFunctions.load(inside(dir, f.pairFolders().get(t), manifest));
                f.checkFunction(manifest, g, "pairwise type '" + f.pairNames().get(t) + "'", f.numLabels() * f.numLabels(), f.pairFeatures());
                pair.add(g);
            }
            List<ScoreFunction> regions = new ArrayList<>();
            for (int t = 0; t < f.regionFolders().size(); t++) {
                ScoreFunction g = ScoreFunctions.load(inside(dir, f.regionFolders().get(t), manifest));
                f.checkFunction(manifest, g, "region type '" + f.regionLayout().typeNames().get(t) + "'", f.regionLayout().jointLabels(f.numLabels()),
                        f.regionLayout().featureWidth(f.pairFeatures()));
                regions.add(g);
            }
            @SuppressWarnings("unchecked")
            Map<String, Object> settings = JSON.treeToValue(m.path("settings"), Map.class);
            @SuppressWarnings("unchecked")
            Map<String, Object> prov = JSON.treeToValue(m.path("provenance"), Map.class);
            int numLabels = f.numLabels();
            // models saved before class tables have none: classes "0".."L-1"
            ClassTable classes = m.has("classes") ? ClassTable.fromJson(m.get("classes"), manifest.toString(), null)
                    .requireClasses(numLabels, manifest.toString()) : ClassTable.numbered(Math.max(2, numLabels), ClassTable.DEFAULT_VOID);
            return new CrfModel(numLabels, f.eps(), f.unaryFeatures(), f.pairFeatures(), f.pairNames(), unary, pair, f.regionLayout(), regions,
                    settings == null ? Map.of() : settings, prov == null ? Map.of() : prov, classes);
        } catch (IOException e) {
            throw new BadInputException(dir, "cannot load model: " + e.getMessage(), e);
        }
    }

    /**
     * {@code dir/name} when {@code name} is a plain relative path that stays inside the model folder,
     * also after symbolic links are followed: a manifest naming "../x" or "/etc" would load files no
     * checksum covers.
     */
    static Path inside(Path dir, String name, Path manifest) throws IOException {
        if (name.isEmpty() || name.startsWith("/") || name.startsWith("\\") || name.contains(":")) {
            throw new BadInputException(manifest, "folder '" + name + "' is not a relative path inside the model folder");
        }
        Path base = dir.toAbsolutePath().normalize();
        Path p = base.resolve(name).normalize();
        if (!p.startsWith(base) || p.equals(base)) {
            throw new BadInputException(manifest, "folder '" + name + "' leads outside the model folder");
        }
        if (Files.exists(p) && !p.toRealPath().startsWith(base.toRealPath())) {
            throw new BadInputException(manifest, "folder '" + name + "' leads outside the model folder (through a link)");
        }
        return p;
    }

    /** SHA-256 of the manifest's JSON as this class writes it (the field {@value #MANIFEST_SHA} left out). */
    static String manifestHash(JsonNode manifest) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(JSON.writeValueAsBytes(manifest)));
        } catch (IOException | NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /** SHA-256 of every file under {@code dir} except the manifest, by relative path. */
    static Map<String, String> checksums(Path dir) throws IOException {
        Map<String, String> out = new TreeMap<>();
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path p : (Iterable<Path>) files.filter(Files::isRegularFile).sorted()::iterator) {
                String rel = dir.relativize(p).toString().replace('\\', '/');
                if (rel.equals(MANIFEST)) continue;
                out.put(rel, sha256(p));
            }
        }
        return out;
    }

    public static String sha256(Path file) throws IOException {
        try (InputStream in = Files.newInputStream(file)) {
            MessageDigest md = MessageDigest.getInstance("SHA-256");
            byte[] buf = new byte[1 << 16];
            for (int r; (r = in.read(buf)) > 0; ) md.update(buf, 0, r);
            return HexFormat.of().formatHex(md.digest());
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
