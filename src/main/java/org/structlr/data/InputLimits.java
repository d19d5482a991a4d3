package org.structlr.data;

import java.util.Locale;

/**
 * The limits every reader checks <em>before</em> it allocates what a file asks for: a header is
 * never trusted to size an array. Each limit has a default that fits a 2 GB heap with room for the
 * work that follows, and a system property to raise it ({@code -Dstructlr.limit.NAME=VALUE}, or
 * {@code JAVA_OPTS} for the {@code structlr} script); values take the suffixes k, M, G (powers of
 * 1024 for byte limits, of 1000 for counts).
 *
 * <p>A limit hit is one {@link BadInputException} naming the file, the size it asked for, the limit
 * and the property that raises it ({@link #exceeded}).
 */
public final class InputLimits {
    private InputLimits() {}

    /** Pixels of one image (width * height), read from its header before decoding: 40 M (an 8K photo is 33 M). */
    public static final Limit IMAGE_PIXELS = new Limit("imagePixels", "pixels", 40_000_000L, false);
    /** Bytes of one image file: 256 MiB. */
    public static final Limit IMAGE_BYTES = new Limit("imageBytes", "bytes", 256L << 20, true);
    /** Bytes of one array inside an .npy/.npz file, as declared by its header: 1 GiB. */
    public static final Limit ARRAY_BYTES = new Limit("arrayBytes", "bytes", 1L << 30, true);
    /** Bytes of one whole .npz once inflated (every entry's declared size, then counted while reading): 1.5 GiB. */
    public static final Limit NPZ_BYTES = new Limit("npzBytes", "bytes", 3L << 29, true);
    /** Entries of one .npz: 64. */
    public static final Limit NPZ_ENTRIES = new Limit("npzEntries", "entries", 64, false);
    /** Labels of one variable (num_labels, a model's numLabels): 4096 (L * L stays far below 2^31). */
    public static final Limit LABELS = new Limit("labels", "labels", 4096, false);
    /** Distinct pairwise (edge) types in a data set or model: 4096 (each is one oracle). */
    public static final Limit EDGE_TYPES = new Limit("edgeTypes", "edge types", 4096, false);
    /**
     * Entries of a UAI model's potentials in the engines' layout (variables and pairs padded to the
     * largest label count, plus every table over 3 or more variables), and separately of the file's
     * tables: 16 M (each entry is held in about five copies of 8 bytes from reading to decoding).
     */
    public static final Limit UAI_ENTRIES = new Limit("uaiEntries", "entries", 1L << 24, false);
    /** Characters of one token of a UAI model or evidence file (nothing in them is longer than a number): 1000. */
    public static final Limit TOKEN_CHARS = new Limit("tokenChars", "characters", 1000, false);
    /** Bytes of a model's or checkpoint's JSON file: 64 MiB. */
    public static final Limit JSON_BYTES = new Limit("jsonBytes", "bytes", 64L << 20, true);
    /** Bytes of one entry of a network's zip once inflated: 1 GiB. */
    public static final Limit ZIP_ENTRY_BYTES = new Limit("zipEntryBytes", "bytes", 1L << 30, true);

    /** One named limit; {@link #value()} reads its property each time (tests and commands may set it). */
    public record Limit(String name, String unit, long defaultValue, boolean binary) {
        /** The system property that raises this limit. */
        public String property() {
            return "structlr.limit." + name;
        }

        public long value() {
            String s = System.getProperty(property());
            if (s == null || s.isBlank()) return defaultValue;
            try {
                return parse(s.trim(), binary);
            } catch (NumberFormatException | ArithmeticException e) {
                throw new BadInputException("-D" + property() + "=" + s + ": not a size (digits, optionally k, M or G)");
            }
        }

        /** Throws the limit's error when {@code asked} exceeds it. */
        public void check(Object file, long asked, String what) {
            long v = value();
            if (asked > v || asked < 0) throw exceeded(file, what, asked);
        }

        /** The error for {@code what} asking for {@code asked} (in this limit's unit). */
        public BadInputException exceeded(Object file, String what, long asked) {
            String ask = asked < 0 ? "more than " + Long.MAX_VALUE : Long.toString(asked);
            return new BadInputException(file + ": " + what + " of " + ask + " " + unit + " exceeds the limit of " + value() + " " + unit
                    + " (raise it with -D" + property() + "=N)");
        }
    }

    static long parse(String s, boolean binary) {
        char last = Character.toLowerCase(s.charAt(s.length() - 1));
        long unit = 1;
        long k = binary ? 1024 : 1000;
        if (last == 'k') unit = k;
        else if (last == 'm') unit = k * k;
        else if (last == 'g') unit = k * k * k;
        String digits = unit == 1 ? s : s.substring(0, s.length() - 1);
        long n = Long.parseLong(digits.toLowerCase(Locale.ROOT));
        if (n < 0) throw new NumberFormatException("negative");
        return Math.multiplyExact(n, unit);
    }
}
