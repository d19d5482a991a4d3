package org.structlr.oracle;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.ServiceLoader;
import com.fasterxml.jackson.databind.JsonNode;

/**
 * The registry of {@link FunctionClass}es: every class listed in a
 * {@code META-INF/services/org.structlr.oracle.FunctionClass} on the class path (the built-ins are
 * listed in structlr's own jar), plus the classes given to {@link #register}. Names are looked up
 * case-insensitively; the CLI, models, checkpoints and experiment tables all store the name.
 */
public final class FunctionClasses {
    private static final Map<String, FunctionClass> BY_NAME = new LinkedHashMap<>();
    private static boolean discovered;

    private FunctionClasses() {}

    /**
     * Adds {@code c}, replacing a registered class of the same name (so a notebook can re-run the
     * cell that defines it). Its kind tags must not belong to another registered class.
     */
    public static synchronized void register(FunctionClass c) {
        discover();
        put(c);
    }

    private static void put(FunctionClass c) {
        String name = key(c.name());
        if (name.isEmpty() || !name.matches("[a-z0-9][a-z0-9_-]*")) {
            throw new IllegalArgumentException("function class name '" + c.name() + "' must be letters, digits, '-' or '_'");
        }
        for (FunctionClass other : BY_NAME.values()) {
            if (other.name().equals(name)) continue;
            for (String k : c.kinds()) {
                if (other.kinds().contains(k)) {
                    throw new IllegalArgumentException("function class '" + name + "': kind '" + k + "' already belongs to '" + other.name() + "'");
                }
            }
        }
        BY_NAME.put(name, c);
    }

    /** The class named {@code name}; IllegalArgumentException listing the registered names if none. */
    public static synchronized FunctionClass get(String name) {
        discover();
        FunctionClass c = name == null ? null : BY_NAME.get(key(name));
        if (c == null) throw new IllegalArgumentException("unknown function class '" + name + "'; expected one of " + names());
        return c;
    }

    /** The canonical (registered) spelling of {@code name}; IllegalArgumentException as {@link #get}. */
    public static String canonical(String name) {
        return get(name).name();
    }

    /** Every registered class, in registration order (the built-ins first). */
    public static synchronized List<FunctionClass> all() {
        discover();
        return List.copyOf(BY_NAME.values());
    }

    /** The registered names, comma separated. */
    public static synchronized String names() {
        discover();
        return String.join(", ", BY_NAME.keySet());
    }

    /** The class whose functions carry the kind tag {@code kind}; IOException-free lookup, null if none. */
    public static synchronized FunctionClass forKind(String kind) {
        discover();
        for (FunctionClass c : BY_NAME.values()) if (c.kinds().contains(kind)) return c;
        return null;
    }

    /** Restores a function saved by {@link ScoreFunction#save(Path)}, of any registered class. */
    public static ScoreFunction load(Path dir) throws IOException {
        JsonNode meta = ScoreFunctions.readMeta(dir);
        String kind = meta.path("kind").asText("");
        FunctionClass c = forKind(kind);
        if (c == null) {
            throw new IOException(dir.resolve(ScoreFunctions.META_FILE) + ": unknown score function kind '" + kind
                    + "' (registered kinds: " + kinds() + ")");
        }
        return c.load(dir, meta);
    }

    private static String kinds() {
        List<String> out = new ArrayList<>();
        for (FunctionClass c : BY_NAME.values()) out.addAll(c.kinds());
        return String.join(", ", out);
    }

    /** Reads the services files once: structlr's class loader, then the thread's (it may see more). */
    private static void discover() {
        if (discovered) return;
        discovered = true;
        List<ClassLoader> loaders = new ArrayList<>();
        loaders.add(FunctionClasses.class.getClassLoader());
        ClassLoader context = Thread.currentThread().getContextClassLoader();
        if (context != null && context != loaders.get(0)) loaders.add(context);
        List<FunctionClass> found = new ArrayList<>();
        for (ClassLoader l : loaders) {
            for (FunctionClass c : ServiceLoader.load(FunctionClass.class, l)) {
                if (found.stream().noneMatch(f -> f.getClass() == c.getClass())) found.add(c);
            }
        }
        // structlr's own classes (those shipped beside this interface) first, in their services file's
        // order, whatever the class path order; then the others in discovery order.
        java.security.CodeSource own = FunctionClass.class.getProtectionDomain().getCodeSource();
        List<FunctionClass> ordered = new ArrayList<>();
        for (FunctionClass c : found) if (sameSource(c, own)) ordered.add(c);
        for (FunctionClass c : found) if (!sameSource(c, own)) ordered.add(c);
        for (FunctionClass c : ordered) put(c);
    }

    private static boolean sameSource(FunctionClass c, java.security.CodeSource own) {
        java.security.CodeSource s = c.getClass().getProtectionDomain().getCodeSource();
        return own != null && s != null && java.util.Objects.equals(own.getLocation(), s.getLocation());
    }

    private static String key(String name) {
        return name.trim().toLowerCase(Locale.ROOT);
    }

}
