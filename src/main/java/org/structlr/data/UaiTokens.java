package org.structlr.data;

import java.io.IOException;
import java.io.Reader;
import java.nio.file.Path;
import java.util.regex.Pattern;

/**
 * Whitespace-separated tokens of a UAI text file (models and evidence), with the line each starts
 * on. A token longer than {@link InputLimits#TOKEN_CHARS} characters is an error (nothing in these
 * formats is longer than a number), so a file of one endless token costs no more memory than that.
 */
final class UaiTokens {
    private static final Pattern NUMBER =
            Pattern.compile("[+-]?(?i:nan|inf|infinity|(\\d+\\.?\\d*|\\.\\d+)(e[+-]?\\d+)?)");

    private final Path file;
    private final Reader in;
    private final int maxLength;
    private final StringBuilder buf = new StringBuilder();
    private int line = 1;
    private int tokenLine = 1;
    private int pending = -2; // one char of look-ahead: -2 none

    UaiTokens(Path file, Reader in) {
        this.file = file;
        this.in = in;
        this.maxLength = (int) Math.min(Integer.MAX_VALUE - 8, Math.max(20, InputLimits.TOKEN_CHARS.value()));
    }

    private int read() throws IOException {
        if (pending != -2) {
            int c = pending;
            pending = -2;
            return c;
        }
        return in.read();
    }

    /** The line the last token started on. */
    int line() {
        return tokenLine;
    }

    /** The next token, or null at the end (an error naming {@code what} when what is not null). */
    String next(String what) throws IOException {
        int c = read();
        while (c != -1 && Character.isWhitespace(c)) {
            if (c == '\n') line++;
            c = read();
        }
        if (c == -1) {
            if (what == null) return null;
            throw new BadInputException(file, "file ends early (truncated?) at line " + line + ": expected " + what);
        }
        tokenLine = line;
        buf.setLength(0);
        while (c != -1 && !Character.isWhitespace(c)) {
            if (buf.length() >= maxLength) {
                throw error("a token of more than " + maxLength + " characters ('" + buf.substring(0, 20) + "...'"
                        + (what == null ? "" : ", where " + what + " was expected") + "; raise the limit with -D"
                        + InputLimits.TOKEN_CHARS.property() + "=N)");
            }
            buf.append((char) c);
            c = read();
        }
        pending = c;
        return buf.toString();
    }

    /** An integer in [min, max]. */
    int nextInt(String what, long min, long max) throws IOException {
        String s = next(what);
        long v;
        try {
            v = Long.parseLong(s);
        } catch (NumberFormatException e) {
            throw error("expected " + what + " (an integer), got '" + abbreviate(s) + "'");
        }
        if (v < min || v > max) {
            throw error(what + " is " + v + (v < min ? "; it must be at least " + min : "; it must be at most " + max));
        }
        return (int) v;
    }

    /** A variable index: any integer (clamped to the int range), range-checked by the caller. */
    int nextIndex(String what) throws IOException {
        String s = next(what);
        try {
            long v = Long.parseLong(s);
            return v < Integer.MIN_VALUE ? Integer.MIN_VALUE : v > Integer.MAX_VALUE ? Integer.MAX_VALUE : (int) v;
        } catch (NumberFormatException e) {
            throw error("expected " + what + " (an integer), got '" + abbreviate(s) + "'");
        }
    }

    /** A plain decimal number (NaN and infinities are returned as such, for the caller to name). */
    double nextDouble(String what) throws IOException {
        String s = next(what);
        if (!NUMBER.matcher(s).matches()) {
            throw error("expected " + what + " (a number), got '" + abbreviate(s) + "'");
        }
        String lower = s.toLowerCase();
        if (lower.endsWith("nan")) return Double.NaN;
        if (lower.endsWith("inf") || lower.endsWith("infinity")) {
            return s.startsWith("-") ? Double.NEGATIVE_INFINITY : Double.POSITIVE_INFINITY;
        }
        return Double.parseDouble(s);
    }

    /** A problem at the last token's line. */
    BadInputException error(String problem) {
        return new BadInputException(file, "line " + tokenLine + ": " + problem);
    }

    static String abbreviate(String s) {
        return s.length() <= 40 ? s : s.substring(0, 37) + "...";
    }
}
