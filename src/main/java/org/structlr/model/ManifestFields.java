package org.structlr.model;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.structlr.data.BadInputException;
import org.structlr.data.InputLimits;
import org.structlr.oracle.ScoreFunction;

/**
 * The fields of a model's {@code model.json}, each checked before it is used: types, ranges (label
 * and type counts within {@link InputLimits}, eps positive and finite, feature widths positive) and
 * their agreement with the functions loaded. A checksum-valid manifest is only as trustworthy as
 * whoever computed the checksum (there is no key), so nothing in it is taken on trust.
 */
record ManifestFields(int numLabels, double eps, int unaryFeatures, int pairFeatures, List<String> pairNames, List<String> pairFolders,
                      RegionLayout regionLayout, List<String> regionFolders) {
    /** Feature widths beyond this are not a model structlr wrote (a row of them would not fit an array). */
    static final int MAX_FEATURES = 1 << 24;

    static ManifestFields check(Path manifest, JsonNode m) {
        int labels = integer(manifest, m, "numLabels", 2, (int) Math.min(Integer.MAX_VALUE, InputLimits.LABELS.value()), InputLimits.LABELS);
        JsonNode e = m.path("eps");
        if (!e.isNumber() || !(e.asDouble() > 0) || Double.isInfinite(e.asDouble())) {
            throw new BadInputException(manifest, "eps must be a positive finite number, got " + e);
        }
        int du = integer(manifest, m, "unaryFeatures", 1, MAX_FEATURES, null);
        int dp = integer(manifest, m, "pairFeatures", 1, MAX_FEATURES, null);
        JsonNode types = m.path("pairTypes");
        if (!types.isArray() || types.isEmpty()) throw new BadInputException(manifest, "pairTypes must be a non-empty list");
        InputLimits.EDGE_TYPES.check(manifest, types.size(), "pairTypes");
        List<String> names = new ArrayList<>(), folders = new ArrayList<>();
        for (JsonNode t : types) {
            if (!t.path("name").isTextual() || !t.path("folder").isTextual()) {
                throw new BadInputException(manifest, "every pairTypes entry needs a text name and folder, got " + abbreviate(t));
            }
            if (folders.contains(t.path("folder").asText())) throw new BadInputException(manifest, "folder '" + t.path("folder").asText() + "' is named twice");
            names.add(t.path("name").asText());
            folders.add(t.path("folder").asText());
        }
        RegionLayout layout = RegionLayout.NONE;
        List<String> regionFolders = new ArrayList<>();
        if (m.has("regions")) {
            JsonNode r = m.path("regions");
            if (!r.path("layout").isTextual()) throw new BadInputException(manifest, "regions.layout must be text, got " + abbreviate(r.path("layout")));
            try {
                layout = RegionLayout.of(r.path("layout").asText());
                layout.checkLabels(labels);
            } catch (IllegalArgumentException x) {
                throw new BadInputException(manifest, "regions: " + x.getMessage());
            }
            JsonNode rt = r.path("types");
            if (!rt.isArray() || rt.size() != layout.numTypes()) {
                throw new BadInputException(manifest, "regions.types must list the " + layout.numTypes() + " region types of " + layout.label() + ", got " + abbreviate(rt));
            }
            for (int t = 0; t < rt.size(); t++) {
                JsonNode o = rt.get(t);
                if (!o.path("folder").isTextual() || !layout.typeNames().get(t).equals(o.path("name").asText())) {
                    throw new BadInputException(manifest, "regions.types entry " + t + " must be named '" + layout.typeNames().get(t) + "' with a text folder, got " + abbreviate(o));
                }
                String folder = o.path("folder").asText();
                if (folders.contains(folder) || regionFolders.contains(folder)) throw new BadInputException(manifest, "folder '" + folder + "' is named twice");
                regionFolders.add(folder);
            }
            if (layout == RegionLayout.NONE) throw new BadInputException(manifest, "regions.layout 'none' is written as no \"regions\" entry");
        }
        for (String key : new String[] {"settings", "provenance"}) {
            JsonNode v = m.path(key);
            if (!v.isMissingNode() && !v.isObject()) throw new BadInputException(manifest, key + " must be an object, got " + abbreviate(v));
        }
        return new ManifestFields(labels, e.asDouble(), du, dp, List.copyOf(names), List.copyOf(folders), layout, List.copyOf(regionFolders));
    }

    /** The loaded function agrees with the manifest: {@code classes} outputs, {@code features} inputs (when it reads features). */
    void checkFunction(Path manifest, ScoreFunction f, String role, int classes, int features) {
        if (f.numClasses() != classes) {
            throw new BadInputException(manifest, "the " + role + " function has " + f.numClasses() + " outputs but numLabels " + numLabels
                    + " needs " + classes);
        }
        if (f.numFeatures() >= 0 && f.numFeatures() != features) {
            throw new BadInputException(manifest, "the " + role + " function reads " + f.numFeatures() + " features but the manifest says " + features);
        }
    }

    private static int integer(Path manifest, JsonNode m, String name, int min, int max, InputLimits.Limit limit) {
        JsonNode v = m.path(name);
        if (!v.isIntegralNumber() || !v.canConvertToInt()) throw new BadInputException(manifest, name + " must be an integer, got " + abbreviate(v));
        int x = v.asInt();
        if (limit != null && x > max) throw limit.exceeded(manifest, name, x);
        if (x < min || x > max) throw new BadInputException(manifest, name + " must be in " + min + ".." + max + ", got " + x);
        return x;
    }

    private static String abbreviate(JsonNode v) {
        String s = String.valueOf(v);
        return s.length() > 80 ? s.substring(0, 80) + "..." : s;
    }
}
