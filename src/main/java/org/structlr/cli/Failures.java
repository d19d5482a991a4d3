package org.structlr.cli;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.IdentityHashMap;
import java.util.Map;
import org.structlr.data.BadInputException;

/**
 * The command line's contract for anything a command throws, {@link Error}s included:
 * <ul>
 *   <li>input-caused (a {@link BadInputException} anywhere in the cause chain; readers turn an
 *       {@code OutOfMemoryError} or {@code StackOverflowError} raised by an input into one):
 *       exit 2 and the one line {@code error: FILE: problem};</li>
 *   <li>anything else: exit 1 and one line {@code failed: } with the short cause chain
 *       (type and message of each cause, at most {@value #MAX_CAUSES});</li>
 *   <li>{@code --stacktrace}: the whole trace after that line.</li>
 * </ul>
 */
final class Failures {
    static final int MAX_CAUSES = 4;

    private Failures() {}

    /** The bad input in {@code t}'s cause chain, or null. */
    static BadInputException badInput(Throwable t) {
        Map<Throwable, Boolean> seen = new IdentityHashMap<>();
        for (Throwable c = t; c != null && seen.put(c, true) == null; c = c.getCause()) {
            if (c instanceof BadInputException b) return b;
        }
        return null;
    }

    /** Prints {@code t}'s line (and trace when asked) to {@code err}; returns the exit code. */
    static int report(Throwable t, PrintWriter err, boolean stacktrace) {
        BadInputException bad = badInput(t);
        int code;
        if (bad != null) {
            err.println("error: " + Staging.unstage(bad.getMessage()));
            code = Main.EXIT_USAGE;
        } else {
            err.println("failed: " + Staging.unstage(chain(t)) + (stacktrace ? "" : " (--stacktrace prints the whole trace)"));
            code = Main.EXIT_FAILURE;
        }
        if (stacktrace) {
            StringWriter w = new StringWriter();
            t.printStackTrace(new PrintWriter(w));
            err.print(Staging.unstage(w.toString()));
        }
        err.flush();
        return code;
    }

    /** "Type: message; caused by Type: message; ..." with wrappers that only repeat their cause left out. */
    static String chain(Throwable t) {
        StringBuilder b = new StringBuilder();
        Map<Throwable, Boolean> seen = new IdentityHashMap<>();
        int n = 0;
        String last = null;
        for (Throwable c = t; c != null && seen.put(c, true) == null; c = c.getCause()) {
            if (c.getCause() != null && c.getMessage() != null && c.getMessage().equals(c.getCause().toString())) continue;  // a bare wrapper
            String m = c instanceof java.nio.file.FileSystemException f && f.getReason() != null ? f.getReason() : c.getMessage();
            if (last != null && m != null && last.contains(m)) continue;                  // a cause its wrapper already quotes
            last = c.getMessage();
            if (n == MAX_CAUSES) {
                b.append("; ...");
                break;
            }
            if (n > 0) b.append("; caused by ");
            b.append(describe(c, n == 0));
            n++;
        }
        return b.toString();
    }

    private static String describe(Throwable c, boolean first) {
        String m = c.getMessage();
        if (first && c.getClass() == java.io.IOException.class && m != null && !m.isBlank()) return m;   // "FILE: cannot write: why"
        String type = c instanceof OutOfMemoryError ? "out of memory (max heap " + (Runtime.getRuntime().maxMemory() >> 20) + " MB; raise it with -Xmx)"
                : c.getClass().getName();
        return m == null || m.isBlank() ? type : type + ": " + m;
    }
}
