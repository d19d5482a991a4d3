package org.structlr.inference;

import static net.bytebuddy.matcher.ElementMatchers.isStatic;
import static net.bytebuddy.matcher.ElementMatchers.isSubTypeOf;
import static net.bytebuddy.matcher.ElementMatchers.named;
import static net.bytebuddy.matcher.ElementMatchers.namedOneOf;
import static net.bytebuddy.matcher.ElementMatchers.not;
import static net.bytebuddy.matcher.ElementMatchers.isInterface;
import static net.bytebuddy.matcher.ElementMatchers.isAbstract;
import static net.bytebuddy.matcher.ElementMatchers.takesArguments;

import java.lang.instrument.Instrumentation;
import java.lang.reflect.Array;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import net.bytebuddy.agent.ByteBuddyAgent;
import net.bytebuddy.agent.builder.AgentBuilder;
import net.bytebuddy.asm.Advice;
import org.nd4j.linalg.api.buffer.DataBuffer;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;

/**
 * Counts the calls that move array data between ND4J and the Java heap, the copies that cross
 * the PCIe bus on the CUDA backend: reading values out of an array ({@code DataBuffer.asFloat},
 * {@code getDouble}, {@code INDArray.toFloatVector}, scalar results such as {@code sumNumber}) and
 * making an array from Java values ({@code Nd4j.create(float[] ...)}, {@code createFromArray}).
 * ({@code asLong} and {@code getLong} of a buffer are left out: ND4J reads its shape descriptors, which live on both sides, through them.)
 * Also the Java index arrays of {@code Nd4j.pullRows}, which the CUDA backend sends to the device at
 * every call (direction "index from host"); those of a {@code memory.RowGather} once per gather, at
 * its first use, as on CUDA, where it makes its index array once and keeps it on the device (its
 * pullRows is the CPU backend's way). Calls through a RowGather are attributed to its caller.
 * Only the outermost such call is counted (a {@code toFloatVector} that reads through
 * {@code asFloat} is one copy), with the number of values it moved, and attributed to the first
 * structlr method on the stack. Installed once per JVM with a Java agent (Byte Buddy, retransforming
 * the ND4J classes: advice only, no change to what they compute). Test support only.
 */
public final class HostCopies {
    /** Calls and values per (structlr method, ND4J method, direction). */
    public record Tally(long calls, long values) {}

    private static final Map<String, long[]> TALLY = new TreeMap<>();
    private static final ThreadLocal<int[]> DEPTH = ThreadLocal.withInitial(() -> new int[1]);
    private static volatile boolean installed, counting;

    private HostCopies() {}

    /** Installs the agent (once) and starts counting from zero. */
    public static synchronized void start() {
        if (!installed) {
            install(ByteBuddyAgent.install());
            installed = true;
        }
        reset();
        counting = true;
    }

    public static synchronized void stop() {
        counting = false;
    }

    public static synchronized void reset() {
        TALLY.clear();
    }

    /** A copy of the counts so far: "structlr caller | ND4J method | direction" -> calls and values. */
    public static synchronized Map<String, Tally> snapshot() {
        Map<String, Tally> out = new TreeMap<>();
        for (Map.Entry<String, long[]> e : TALLY.entrySet()) out.put(e.getKey(), new Tally(e.getValue()[0], e.getValue()[1]));
        return out;
    }

    /** Values moved in either direction so far. */
    public static synchronized long values() {
        long n = 0;
        for (long[] t : TALLY.values()) n += t[1];
        return n;
    }

    /** The counts as a Markdown table. */
    public static String table(Map<String, Tally> counts) {
        StringBuilder s = new StringBuilder("| structlr method | ND4J call | direction | calls | values |\n|---|---|---|---:|---:|\n");
        for (Map.Entry<String, Tally> e : counts.entrySet()) {
            String[] k = e.getKey().split(" \\| ");
            s.append(String.format(Locale.ROOT, "| %s | %s | %s | %,d | %,d |%n", k[0], k[1], k[2], e.getValue().calls(), e.getValue().values()));
        }
        return s.toString();
    }

    private static void install(Instrumentation inst) {
        new AgentBuilder.Default()
                .disableClassFormatChanges()
                .with(AgentBuilder.RedefinitionStrategy.RETRANSFORMATION)
                .ignore(not(named("org.nd4j.linalg.factory.Nd4j")).and(not(isSubTypeOf(DataBuffer.class))).and(not(isSubTypeOf(INDArray.class))))
                .type(isSubTypeOf(DataBuffer.class).and(not(isInterface())))
                .transform((b, type, loader, module, domain) -> b.visit(Advice.to(ToHost.class).on(not(isAbstract()).and(
                        namedOneOf("asFloat", "asDouble", "asInt").and(takesArguments(0))
                                .or(namedOneOf("getDouble", "getFloat", "getInt", "getNumber").and(takesArguments(long.class)))))))
                .type(isSubTypeOf(INDArray.class).and(not(isInterface())))
                .transform((b, type, loader, module, domain) -> b.visit(Advice.to(ToHost.class).on(not(isAbstract()).and(
                        namedOneOf("toFloatVector", "toDoubleVector", "toIntVector", "toLongVector", "toFloatMatrix", "toDoubleMatrix",
                                "toIntMatrix", "sumNumber", "maxNumber", "minNumber", "meanNumber", "getDouble", "getFloat", "getInt", "getLong")))))
                .type(named("org.nd4j.linalg.factory.Nd4j"))
                .transform((b, type, loader, module, domain) -> b.visit(Advice.to(FromHost.class).on(isStatic().and(
                        namedOneOf("create", "createFromArray")).and(takesArguments(1).or(takesArguments(2)).or(takesArguments(3)))))
                        .visit(Advice.to(IndexFromHost.class).on(isStatic().and(named("pullRows")))))
                .installOn(inst);
    }

    public static boolean enter() {
        int[] d = DEPTH.get();
        return d[0]++ == 0 && counting;
    }

    public static void exit(boolean outermost, String method, String direction, long values) {
        DEPTH.get()[0]--;
        if (!outermost || values < 0) return;
        String caller = StackWalker.getInstance().walk(s -> s.map(f -> f.getClassName() + "." + f.getMethodName())
                .filter(n -> n.startsWith("org.structlr.") && !n.startsWith(HostCopies.class.getName()) && !n.startsWith(ROW_GATHER + "."))
                .findFirst().orElse("(no structlr caller)"));
        String key = caller.replace("org.structlr.", "") + " | " + method + " | " + direction;
        synchronized (HostCopies.class) {
            long[] t = TALLY.computeIfAbsent(key, k -> new long[2]);
            t[0]++;
            t[1] += values;
        }
    }

    public static long length(Object r) {
        if (r == null) return 0;
        if (r.getClass().isArray()) {
            int n = Array.getLength(r);
            if (n > 0 && Array.get(r, 0) != null && Array.get(r, 0).getClass().isArray()) {
                long total = 0;
                for (int i = 0; i < n; i++) total += Array.getLength(Array.get(r, i));
                return total;
            }
            return n;
        }
        if (r instanceof INDArray a) return a.length();
        return 1;
    }

    /** Whether a create call copies Java values (not a shape given as int[] or long[]). */
    public static boolean fromJava(String method, Object[] args) {
        if (args.length == 0 || args[0] == null || !args[0].getClass().isArray()) return false;
        if (method.endsWith("createFromArray")) return true;
        Class<?> c = args[0].getClass();
        if (c == int[].class || c == long[].class) return args.length >= 2 && args[1] != null && (args[1] instanceof long[] || args[1] instanceof int[]);
        return true;
    }

    /**
     * The length of a {@code pullRows} call's Java index array; -1 for none, or for a
     * {@code memory.RowGather}'s index array seen before (its own array, one per gather: on CUDA sent once).
     */
    public static long indexLength(Object[] args) {
        boolean rowGather = StackWalker.getInstance().walk(s -> s.anyMatch(f -> f.getClassName().equals(ROW_GATHER)));
        for (Object a : args) {
            if (a instanceof int[] || a instanceof long[]) {
                if (rowGather) {
                    synchronized (SENT_ONCE) {
                        if (SENT_ONCE.put(a, Boolean.TRUE) != null) return -1;
                    }
                }
                return Array.getLength(a);
            }
        }
        return -1;
    }

    private static final String ROW_GATHER = "org.structlr.memory.RowGather";
    /** RowGathers' index arrays already counted (arrays hash by identity: a weak identity set). */
    private static final Map<Object, Boolean> SENT_ONCE = new java.util.WeakHashMap<>();

    /** Values read from an array into Java. */
    public static final class ToHost {
        @Advice.OnMethodEnter
        static boolean enter() {
            return HostCopies.enter();
        }

        @Advice.OnMethodExit(onThrowable = Throwable.class)
        static void exit(@Advice.Enter boolean outermost, @Advice.Origin("#t.#m") String method,
                         @Advice.Return(typing = net.bytebuddy.implementation.bytecode.assign.Assigner.Typing.DYNAMIC) Object r) {
            HostCopies.exit(outermost, method.replace("org.nd4j.linalg.", ""), "to host", HostCopies.length(r));
        }
    }

    /** Arrays made from Java values. */
    public static final class FromHost {
        @Advice.OnMethodEnter
        static boolean enter() {
            return HostCopies.enter();
        }

        @Advice.OnMethodExit(onThrowable = Throwable.class)
        static void exit(@Advice.Enter boolean outermost, @Advice.Origin("#t.#m") String method, @Advice.AllArguments Object[] args,
                         @Advice.Return(typing = net.bytebuddy.implementation.bytecode.assign.Assigner.Typing.DYNAMIC) Object r) {
            HostCopies.exit(outermost, method.replace("org.nd4j.linalg.", ""), "from host", HostCopies.fromJava(method, args) ? HostCopies.length(r) : -1);
        }
    }

    /** The Java index array of a row gather ({@code Nd4j.pullRows}), sent to the device at every call on CUDA. */
    public static final class IndexFromHost {
        @Advice.OnMethodEnter
        static boolean enter() {
            return HostCopies.enter();
        }

        @Advice.OnMethodExit(onThrowable = Throwable.class)
        static void exit(@Advice.Enter boolean outermost, @Advice.Origin("#t.#m") String method, @Advice.AllArguments Object[] args) {
            HostCopies.exit(outermost, method.replace("org.nd4j.linalg.", ""), "index from host", outermost ? HostCopies.indexLength(args) : -1);
        }
    }

    /** Keeps Nd4j loaded before the agent is installed (its static create methods are retransformed). */
    static {
        Nd4j.getBackend();
    }
}
