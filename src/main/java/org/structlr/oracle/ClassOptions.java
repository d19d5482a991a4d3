package org.structlr.oracle;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.Serializable;
import java.util.Collections;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * The values of the options one {@link FunctionClass} declares ({@link FunctionClass#options()}),
 * for one role (a unary or a pairwise factor type): every declared option that applies
 * ({@link FunctionClass#inapplicable}), given or at its default, checked when made. These are the settings
 * that change a fit beyond the seed and thread count, so models and checkpoints record
 * {@link #values()} and a resume compares them ({@link #equals}); an option that does not apply with
 * the others' values ({@link FunctionClass#inapplicable}: fcn's depth beside arch=dilated, its
 * built-in architecture beside an own network) is left out of both, and refused when given.
 * Immutable and serialisable (the Spark learner ships oracles made from them).
 */
public final class ClassOptions implements Serializable {

    private static final long serialVersionUID = 1L;

    private final String className;   // null: no class known, every option at its default (see none)
    private final boolean unary;
    private final LinkedHashMap<String, Object> values;
    private final Set<String> inapplicable;   // declared options left out of values: they do not apply (their defaults if asked)

    private ClassOptions(String className, boolean unary, LinkedHashMap<String, Object> values, Set<String> inapplicable) {
        this.className = className;
        this.unary = unary;
        this.values = values;
        this.inapplicable = inapplicable;
    }

    /** No option given, for a class not named: {@link #get} returns every option's default for the role. */
    public static ClassOptions none(boolean unary) {
        return new ClassOptions(null, unary, new LinkedHashMap<>(), Set.of());
    }

    /** Every option of {@code c} at its default for the role. */
    public static ClassOptions defaults(FunctionClass c, boolean unary) {
        return of(c, unary, Map.of());
    }

    /**
     * The options of {@code c} for the role: {@code given} (name to text, e.g. from
     * {@code --unary-option NAME=VALUE}) read and checked, the others at their defaults; those that
     * do not apply with these values ({@link FunctionClass#inapplicable}) then left out.
     *
     * @throws Refused naming the class and the option: a name {@code c} does not declare (the
     *         message lists the ones it does), a value its option refuses, or an option given that
     *         does not apply with the others' values (it would change nothing)
     */
    public static ClassOptions of(FunctionClass c, boolean unary, Map<String, String> given) {
        return of(c, unary, given, Map.of());
    }

    /**
     * As {@link #of(FunctionClass, boolean, Map)} on top of the values {@code recorded} (name to
     * text; a model's, a checkpoint's): an option in {@code given} replaces the recorded value, one in
     * neither is at its default. A recorded option that does not apply is left out without a word
     * (older builds recorded every option); a given one is refused.
     */
    public static ClassOptions of(FunctionClass c, boolean unary, Map<String, String> given, Map<String, String> recorded) {
        List<ClassOption<?>> declared = declared(c);
        Map<String, ClassOption<?>> byName = new LinkedHashMap<>();
        for (ClassOption<?> o : declared) byName.put(o.name(), o);
        for (String k : given.keySet()) {
            if (!byName.containsKey(k)) throw new Refused(k, unknown(c, k, declared));
        }
        for (String k : recorded.keySet()) {
            if (!byName.containsKey(k)) throw new Refused(k, unknown(c, k, declared));
        }
        LinkedHashMap<String, Object> values = new LinkedHashMap<>();
        for (ClassOption<?> o : declared) {
            String text = given.containsKey(o.name()) ? given.get(o.name()) : recorded.get(o.name());
            Object v;
            if (text == null) {
                v = o.defaultValue(unary);
            } else {
                try {
                    v = o.parse(text);
                } catch (IllegalArgumentException e) {
                    throw new Refused(o.name(), c.name() + " option '" + o.name() + "': " + e.getMessage(), e);
                }
            }
            values.put(o.name(), v);
        }
        ClassOptions all = new ClassOptions(c.name(), unary, values, Set.of());
        java.util.LinkedHashSet<String> inapplicable = new java.util.LinkedHashSet<>();
        for (ClassOption<?> o : declared) {
            String why = c.inapplicable(o, all);
            if (why == null) continue;
            if (given.containsKey(o.name())) throw new Refused(o.name(), c.name() + " option '" + o.name() + "' does not apply: " + why);
            inapplicable.add(o.name());
        }
        if (inapplicable.isEmpty()) return all;
        LinkedHashMap<String, Object> applying = new LinkedHashMap<>(values);
        applying.keySet().removeAll(inapplicable);
        return new ClassOptions(c.name(), unary, applying, inapplicable);
    }

    /**
     * The options recorded as {@link #values()} in a JSON object (a model, a checkpoint), read back
     * as {@link #of} reads text; a missing or null {@code recorded} or a missing key means the
     * default (files written before the option existed), and a recorded option that does not apply
     * is left out (files written before structlr left such options out).
     *
     * @throws IllegalArgumentException as {@link #of}
     */
    public static ClassOptions fromJson(FunctionClass c, boolean unary, JsonNode recorded) {
        return of(c, unary, Map.of(), texts(c, recorded));
    }

    /** The values of a JSON object of options as the texts {@link #of} reads (empty for a missing or null one). */
    private static Map<String, String> texts(FunctionClass c, JsonNode recorded) {
        Map<String, String> out = new LinkedHashMap<>();
        if (recorded != null && !recorded.isNull() && !recorded.isMissingNode()) {
            if (!recorded.isObject()) throw new IllegalArgumentException(c.name() + " options: expected a JSON object, got " + recorded);
            for (Iterator<Map.Entry<String, JsonNode>> it = recorded.fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> e = it.next();
                out.put(e.getKey(), text(e.getValue()));
            }
        }
        return out;
    }

    /** These values as the texts {@link #of} reads back to them. */
    public Map<String, String> texts() {
        Map<String, String> out = new LinkedHashMap<>();
        for (Map.Entry<String, Object> e : values.entrySet()) out.put(e.getKey(), show(e.getValue()));
        return out;
    }

    /**
     * An option refused ({@link #of}): an unknown name, a bad value, or one that does not apply;
     * {@link #option()} names it, so a caller can say which of its own flags gave it.
     */
    public static final class Refused extends IllegalArgumentException {
        private static final long serialVersionUID = 1L;
        private final String option;

        Refused(String option, String message) {
            super(message);
            this.option = option;
        }

        Refused(String option, String message, Throwable cause) {
            super(message, cause);
            this.option = option;
        }

        /** The name of the option refused. */
        public String option() {
            return option;
        }
    }

    private static String text(JsonNode n) {
        if (!n.isArray()) return n.asText();
        StringBuilder b = new StringBuilder();
        for (JsonNode x : n) b.append(b.length() == 0 ? "" : ",").append(x.asText());
        return b.toString();
    }

    /** The options {@code c} declares, checked for duplicate names. */
    static List<ClassOption<?>> declared(FunctionClass c) {
        List<ClassOption<?>> d = c.options();
        Set<String> names = new HashSet<>();
        for (ClassOption<?> o : d) {
            if (!names.add(o.name())) throw new IllegalStateException("function class '" + c.name() + "' declares option '" + o.name() + "' twice");
        }
        return d;
    }

    private static String unknown(FunctionClass c, String name, List<ClassOption<?>> declared) {
        if (declared.isEmpty()) return c.name() + " has no options (given '" + name + "')";
        StringBuilder b = new StringBuilder(c.name() + " has no option '" + name + "'; its options:");
        for (ClassOption<?> o : declared) b.append("\n  ").append(o.helpLine());
        return b.toString();
    }

    /**
     * The value of {@code option}: given, or its default for this role (also for an option that
     * does not apply).
     *
     * @throws IllegalStateException when these are the options of a class that does not declare it
     */
    @SuppressWarnings("unchecked")
    public <T> T get(ClassOption<T> option) {
        Object v = values.get(option.name());
        if (v != null) return (T) v;
        if (className != null && !inapplicable.contains(option.name())) throw new IllegalStateException("function class '" + className + "' declares no option '" + option.name() + "'");
        return option.defaultValue(unary);
    }

    /** The class these options belong to (null for {@link #none}). */
    public String className() {
        return className;
    }

    /** Whether these are the options of a unary factor type (else pairwise). */
    public boolean unary() {
        return unary;
    }

    /**
     * Every declared option that applies and its value, in declaration order (empty for
     * {@link #none} and for classes without options): Integer, Double, Boolean, String or List of Integers, so a JSON
     * writer gives numbers, booleans, strings and arrays, and {@link #fromJson} reads it back.
     */
    public Map<String, Object> values() {
        return Collections.unmodifiableMap(values);
    }

    /**
     * Where {@code other} differs from these options: "name: this value vs other value" joined by
     * "; ", or null when they are equal.
     */
    public String difference(ClassOptions other) {
        StringBuilder b = new StringBuilder();
        Set<String> keys = new java.util.LinkedHashSet<>(values.keySet());
        keys.addAll(other.values.keySet());
        for (String k : keys) {
            Object a = values.get(k), o = other.values.get(k);
            if (!Objects.equals(a, o)) {
                b.append(b.length() == 0 ? "" : "; ").append(k).append(": ").append(show(a)).append(" vs ").append(show(o));
            }
        }
        if (b.length() == 0 && !Objects.equals(className, other.className)) return "class " + className + " vs " + other.className;
        return b.length() == 0 ? null : b.toString();
    }

    private static String show(Object v) {
        if (v == null) return "(none)";
        if (v instanceof List<?> l) return String.join(",", l.stream().map(String::valueOf).toList());
        return String.valueOf(v);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ClassOptions c && Objects.equals(className, c.className) && unary == c.unary && values.equals(c.values);
    }

    @Override
    public int hashCode() {
        return Objects.hash(className, unary, values);
    }

    /** {@code name=value, ...} in declaration order ("" when there are none). */
    @Override
    public String toString() {
        StringBuilder b = new StringBuilder();
        for (Map.Entry<String, Object> e : values.entrySet()) {
            b.append(b.length() == 0 ? "" : ", ").append(e.getKey()).append('=').append(show(e.getValue()));
        }
        return b.toString();
    }
}
