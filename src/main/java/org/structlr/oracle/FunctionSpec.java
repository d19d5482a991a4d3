package org.structlr.oracle;

import java.io.Serializable;
import java.util.Map;
import java.util.Objects;

/**
 * A function class chosen for one role (unary or pairwise factor types), with its option values:
 * what {@code --unary fcn --unary-option epochs=2} says. The name is the registered (canonical)
 * spelling. Made by {@link #unary} / {@link #pairwise}, which check the name and the options.
 */
public final class FunctionSpec implements Serializable {

    private static final long serialVersionUID = 1L;

    private final String name;
    private final ClassOptions options;

    private FunctionSpec(String name, ClassOptions options) {
        this.name = name;
        this.options = options;
    }

    /** The class {@code name} for unary factor types, every option at its default. */
    public static FunctionSpec unary(String name) {
        return of(name, true, Map.of());
    }

    /** The class {@code name} for pairwise factor types, every option at its default. */
    public static FunctionSpec pairwise(String name) {
        return of(name, false, Map.of());
    }

    /** The class {@code name} for unary factor types with the {@code options} given (name to text). */
    public static FunctionSpec unary(String name, Map<String, String> options) {
        return of(name, true, options);
    }

    /** The class {@code name} for pairwise factor types with the {@code options} given (name to text). */
    public static FunctionSpec pairwise(String name, Map<String, String> options) {
        return of(name, false, options);
    }

    /**
     * @throws IllegalArgumentException for an unregistered name (listing the registered ones) or an
     *         option the class does not declare or whose value it refuses (see {@link ClassOptions#of})
     */
    public static FunctionSpec of(String name, boolean unary, Map<String, String> options) {
        FunctionClass c = FunctionClasses.get(name);
        return new FunctionSpec(c.name(), ClassOptions.of(c, unary, options == null ? Map.of() : options));
    }

    /**
     * The class {@code name} with the options {@code given} on top of the values {@code recorded}
     * (name to text, a checkpoint's: {@link ClassOptions#texts()}), see
     * {@link ClassOptions#of(FunctionClass, boolean, Map, Map)}.
     */
    public static FunctionSpec of(String name, boolean unary, Map<String, String> given, Map<String, String> recorded) {
        FunctionClass c = FunctionClasses.get(name);
        return new FunctionSpec(c.name(), ClassOptions.of(c, unary, given, recorded));
    }

    /** The class {@code name} with the options recorded in a model or checkpoint ({@link ClassOptions#fromJson}). */
    public static FunctionSpec recorded(String name, boolean unary, com.fasterxml.jackson.databind.JsonNode options) {
        FunctionClass c = FunctionClasses.get(name);
        return new FunctionSpec(c.name(), ClassOptions.fromJson(c, unary, options));
    }

    /** The registered name. */
    public String name() {
        return name;
    }

    public boolean unary() {
        return options.unary();
    }

    public ClassOptions options() {
        return options;
    }

    public FunctionClass functionClass() {
        return FunctionClasses.get(name);
    }

    /** A fresh oracle of this class with these options for features of width {@code featureWidth}. */
    public Oracle create(int featureWidth, long seed, int threads) {
        return functionClass().create(new FunctionClass.Context(unary(), featureWidth, seed, threads, options));
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof FunctionSpec s && name.equals(s.name) && options.equals(s.options);
    }

    @Override
    public int hashCode() {
        return Objects.hash(name, options);
    }

    /** {@code name} or {@code name(option=value, ...)}. */
    @Override
    public String toString() {
        String o = options.toString();
        return o.isEmpty() ? name : name + "(" + o + ")";
    }
}
