package org.structlr.data;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * What the labels of a segmentation data set mean: for each class index 0..L-1 its name, its
 * colour (colour masks and {@code predict --format color}) and the mask values that stand for it,
 * plus the void entry: the mask values and the colour of pixels without a label
 * ({@link Example#VOID} in the examples). It travels with the data set (the {@code classes} entry of
 * its {@link Dataset#INFO_FILE}) and with the model (model.json), so that evaluate, predict and the
 * metrics name classes.
 *
 * <p><b>JSON</b> ({@code images-data --classes FILE.json}, and how it is stored):
 * <pre>
 * {"classes": [{"name": "background", "index": 0, "color": [0, 0, 0]},
 *              {"name": "road", "index": 1, "color": "#804080", "values": [7]}, ...],
 *  "void": {"color": [224, 224, 192], "values": [255]}}
 * </pre>
 * or the list alone, with the void entry marked {@code "void": true}. Indices must be 0..L-1, each
 * once; colours are {@code [r, g, b]} (0..255) or {@code "#rrggbb"} and must differ; {@code values}
 * (optional) lists the values of 8- or 16-bit index masks that mean the class: without it a class
 * is its own index. The void entry's {@code values} default to {@link #DEFAULT_VOID} (Pascal VOC's
 * 255) and its colour to VOC's (224, 224, 192). A value may mean only one thing; mask values
 * outside every list are an error, not silently void (so a wrong table is noticed).
 *
 * <p>Without a file, {@link #numbered} names classes "0".."L-1" with the colours of Pascal VOC's
 * palette (class 0 black, 1 dark red, 2 dark green, ...), which is what VOC's own masks show.
 */
public final class ClassTable {
    /** The mask value of void pixels unless told otherwise (Pascal VOC's object boundaries). */
    public static final int DEFAULT_VOID = 255;
    /** Pascal VOC's void colour. */
    public static final int DEFAULT_VOID_COLOR = 0xE0E0C0;
    /** The most mask values an index mask can have (16-bit PNGs). */
    public static final int MAX_VALUE = 65535;

    /** One class: its index (its label), name, 0xRRGGBB colour and the index-mask values that mean it. */
    public record LabelClass(int index, String name, int color, List<Integer> values) {
        public LabelClass {
            values = List.copyOf(values);
        }
    }

    private final List<LabelClass> classes;
    private final int voidColor;
    private final List<Integer> voidValues;
    private final Map<Integer, Integer> labelOfValue = new HashMap<>();   // index-mask value -> label (VOID for void)
    private final Map<Integer, Integer> labelOfColor = new HashMap<>();   // 0xRRGGBB -> label (VOID for void)

    /**
     * @throws IllegalArgumentException naming the problem (indices not 0..L-1, fewer than 2
     *         classes, a colour or a mask value used twice, a value outside 0..{@value #MAX_VALUE})
     */
    public ClassTable(List<LabelClass> classes, int voidColor, List<Integer> voidValues) {
        if (classes.size() < 2) throw new IllegalArgumentException("a class table needs at least 2 classes, got " + classes.size());
        List<LabelClass> sorted = new ArrayList<>(classes);
        sorted.sort((a, b) -> Integer.compare(a.index(), b.index()));
        for (int k = 0; k < sorted.size(); k++) {
            if (sorted.get(k).index() != k) {
                throw new IllegalArgumentException("class indices must be 0.." + (sorted.size() - 1) + ", each once; "
                        + (k > 0 && sorted.get(k).index() == sorted.get(k - 1).index() ? "index " + sorted.get(k).index() + " is repeated"
                        : "index " + k + " is missing"));
            }
        }
        this.classes = List.copyOf(sorted);
        this.voidColor = voidColor & 0xFFFFFF;
        this.voidValues = List.copyOf(voidValues);
        Map<String, Integer> byName = new HashMap<>();
        for (LabelClass c : sorted) {
            if (c.name() == null || c.name().isBlank()) throw new IllegalArgumentException("class " + c.index() + " has no name");
            Integer same = byName.putIfAbsent(c.name(), c.index());
            if (same != null) throw new IllegalArgumentException("classes " + same + " and " + c.index() + " have the same name '" + c.name() + "'");
            Integer other = labelOfColor.putIfAbsent(c.color() & 0xFFFFFF, c.index());
            if (other != null) throw new IllegalArgumentException("classes " + other + " and " + c.index() + " have the same colour " + hex(c.color()));
            for (int v : c.values().isEmpty() ? List.of(c.index()) : c.values()) mapValue(v, c.index(), "class " + c.index());
        }
        Integer other = labelOfColor.putIfAbsent(this.voidColor, Example.VOID);
        if (other != null) throw new IllegalArgumentException("the void colour " + hex(voidColor) + " is also the colour of class " + other);
        for (int v : voidValues) mapValue(v, Example.VOID, "void");
    }

    private void mapValue(int value, int label, String what) {
        if (value < 0 || value > MAX_VALUE) throw new IllegalArgumentException(what + ": mask value " + value + " is outside 0.." + MAX_VALUE);
        Integer before = labelOfValue.putIfAbsent(value, label);
        if (before != null) {
            throw new IllegalArgumentException("mask value " + value + " stands for both " + (before == Example.VOID ? "void" : "class " + before)
                    + " and " + what);
        }
    }

    /** Classes "0".."L-1" with Pascal VOC's palette colours; void value {@code voidValue}, VOC's void colour. */
    public static ClassTable numbered(int numLabels, int voidValue) {
        if (numLabels < 2) throw new IllegalArgumentException("a class table needs at least 2 classes, got " + numLabels);
        List<LabelClass> cs = new ArrayList<>();
        for (int k = 0; k < numLabels; k++) cs.add(new LabelClass(k, String.valueOf(k), vocColor(k), List.of()));
        int voidColor = DEFAULT_VOID_COLOR;   // palette colour 255: taken only when L > 255
        while (voidColor == DEFAULT_VOID_COLOR ? numLabels > 255 : usesColor(cs, voidColor)) voidColor = (voidColor + 1) & 0xFFFFFF;
        return new ClassTable(cs, voidColor, List.of(voidValue));
    }

    private static boolean usesColor(List<LabelClass> cs, int rgb) {
        for (LabelClass c : cs) if (c.color() == rgb) return true;
        return false;
    }

    /**
     * Colour k of Pascal VOC's palette: the bits of k spread over the three channels from the
     * most significant bit down (k = 1: (128, 0, 0), 2: (0, 128, 0), 3: (128, 128, 0), ...).
     */
    public static int vocColor(int k) {
        int r = 0, g = 0, b = 0, c = k;
        for (int shift = 7; shift >= 0 && c > 0; shift--, c >>= 3) {
            r |= (c & 1) << shift;
            g |= ((c >> 1) & 1) << shift;
            b |= ((c >> 2) & 1) << shift;
        }
        return r << 16 | g << 8 | b;
    }

    public int numClasses() { return classes.size(); }
    public List<LabelClass> classes() { return classes; }
    public String name(int label) { return label == Example.VOID ? "void" : classes.get(label).name(); }
    /** 0xRRGGBB of a label ({@link Example#VOID}: the void colour). */
    public int color(int label) { return label == Example.VOID ? voidColor : classes.get(label).color(); }
    public int voidColor() { return voidColor; }
    public List<Integer> voidValues() { return voidValues; }

    /** The label an index-mask value stands for ({@link Example#VOID} for void), or null when none. */
    public Integer labelOfValue(int value) { return labelOfValue.get(value); }

    /** The label a 0xRRGGBB mask colour stands for ({@link Example#VOID} for void), or null when none. */
    public Integer labelOfColor(int rgb) { return labelOfColor.get(rgb & 0xFFFFFF); }

    /** The same table with {@code numClasses()} checked against a data set's or model's label count. */
    public ClassTable requireClasses(int numLabels, String where) {
        if (numLabels != classes.size()) {
            throw new BadInputException(where + ": the class table has " + classes.size() + " classes but the labels are 0.." + (numLabels - 1));
        }
        return this;
    }

    // ------------------------------------------------------------------------------------------
    // JSON

    /** The JSON form (see the class comment), as plain maps and lists. */
    public Map<String, Object> toMap() {
        List<Object> cs = new ArrayList<>();
        for (LabelClass c : classes) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("name", c.name());
            m.put("index", c.index());
            m.put("color", rgbList(c.color()));
            if (!c.values().isEmpty()) m.put("values", c.values());
            cs.add(m);
        }
        Map<String, Object> v = new LinkedHashMap<>();
        v.put("color", rgbList(voidColor));
        v.put("values", voidValues);
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("classes", cs);
        out.put("void", v);
        return out;
    }

    /** Reads a class table file ({@code --classes FILE.json}); every problem names the file. */
    public static ClassTable read(Path file) {
        if (!Files.isRegularFile(file)) throw new BadInputException(file, "no such class table file");
        try {
            if (Files.size(file) > (1 << 22)) throw new BadInputException(file, "a class table of " + Files.size(file) + " bytes is too large (at most 4 MB)");
            return fromJson(new ObjectMapper().readTree(file.toFile()), file.toString(), null);
        } catch (IOException e) {
            throw new BadInputException(file, "cannot be read as JSON: " + e.getMessage().lines().findFirst().orElse(""));
        }
    }

    /** A class table from its JSON form (a map or list parsed from JSON); {@code where} names it in errors. */
    public static ClassTable fromObject(Object json, String where) {
        return fromJson(new ObjectMapper().valueToTree(json), where, null);
    }

    /**
     * A class table from JSON; {@code voidValue} (not null) replaces the void values the JSON gives
     * or defaults ({@code --void V}).
     */
    public static ClassTable fromJson(JsonNode root, String where, Integer voidValue) {
        try {
            JsonNode list, voidNode = null;
            if (root != null && root.isArray()) {
                list = root;
            } else if (root != null && root.isObject() && root.path("classes").isArray()) {
                list = root.get("classes");
                voidNode = root.get("void");
            } else {
                throw new IllegalArgumentException("expected {\"classes\": [...], \"void\": {...}} or a list of classes");
            }
            List<LabelClass> cs = new ArrayList<>();
            for (int k = 0; k < list.size(); k++) {
                JsonNode c = list.get(k);
                if (!c.isObject()) throw new IllegalArgumentException("entry " + k + " of the class list is not an object");
                if (c.path("void").asBoolean(false)) {
                    if (voidNode != null) throw new IllegalArgumentException("two void entries");
                    voidNode = c;
                    continue;
                }
                if (!c.path("index").isInt()) throw new IllegalArgumentException("class entry " + k + " has no integer 'index'");
                int index = c.get("index").asInt();
                String name = c.path("name").isTextual() ? c.get("name").asText() : String.valueOf(index);
                int color = c.has("color") ? color(c.get("color"), "class " + index) : vocColor(index);
                cs.add(new LabelClass(index, name, color, values(c.get("values"), "class " + index)));
            }
            int vColor = voidNode != null && voidNode.has("color") ? color(voidNode.get("color"), "void") : DEFAULT_VOID_COLOR;
            List<Integer> vValues = voidValue != null ? List.of(voidValue)
                    : voidNode != null && voidNode.has("values") ? values(voidNode.get("values"), "void")
                    : voidNode != null && voidNode.has("index") ? List.of(voidNode.get("index").asInt()) : List.of(DEFAULT_VOID);
            return new ClassTable(cs, vColor, vValues);
        } catch (IllegalArgumentException e) {
            throw new BadInputException(where + ": bad class table: " + e.getMessage());
        }
    }

    private static List<Integer> values(JsonNode n, String what) {
        if (n == null || n.isNull()) return List.of();
        if (!n.isArray()) throw new IllegalArgumentException(what + ": 'values' must be a list of integers");
        List<Integer> out = new ArrayList<>();
        for (JsonNode v : n) {
            if (!v.isInt()) throw new IllegalArgumentException(what + ": 'values' holds " + v + ", not an integer");
            out.add(v.asInt());
        }
        return out;
    }

    /** [r, g, b] (each 0..255) or "#rrggbb" as 0xRRGGBB. */
    static int color(JsonNode n, String what) {
        if (n.isTextual()) {
            String s = n.asText().trim();
            if (s.matches("#[0-9a-fA-F]{6}")) return Integer.parseInt(s.substring(1), 16);
        } else if (n.isArray() && n.size() == 3) {
            int rgb = 0;
            boolean bytes = true;
            for (JsonNode c : n) {
                bytes &= c.isInt() && c.asInt() >= 0 && c.asInt() <= 255;
                rgb = rgb << 8 | (c.asInt() & 0xFF);
            }
            if (bytes) return rgb;
        }
        throw new IllegalArgumentException(what + ": colour " + n + " is neither [r, g, b] with values 0..255 nor \"#rrggbb\"");
    }

    private static List<Integer> rgbList(int rgb) {
        return List.of(rgb >> 16 & 0xFF, rgb >> 8 & 0xFF, rgb & 0xFF);
    }

    /** "#rrggbb". */
    public static String hex(int rgb) {
        return String.format(Locale.ROOT, "#%06x", rgb & 0xFFFFFF);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ClassTable t && t.classes.equals(classes) && t.voidColor == voidColor && t.voidValues.equals(voidValues);
    }

    @Override
    public int hashCode() {
        return classes.hashCode() * 31 + voidColor;
    }

    @Override
    public String toString() {
        return "ClassTable" + classes.stream().map(LabelClass::name).toList() + " void " + voidValues;
    }
}
