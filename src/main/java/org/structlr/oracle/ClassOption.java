package org.structlr.oracle;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.function.Function;

/**
 * One setting a {@link FunctionClass} declares ({@link FunctionClass#options()}): a name, a default
 * (which may differ between a unary and a pairwise factor type), one line of help, and how a value
 * is read from text and checked. Values are immutable: Integer, Double, Boolean, String, or a
 * List of Integers. Users give values as {@code --unary-option NAME=VALUE} (CLI) or
 * {@code CrfTrainer.Builder.unaryOption} (Java); an oracle reads them with
 * {@code context.options().get(OPTION)}.
 *
 * @param <T> the type of the value
 */
public final class ClassOption<T> {

    private final String name;
    private final T unaryDefault;
    private final T pairwiseDefault;
    private final String help;
    private final String expected;
    private final Function<String, T> parse;

    private ClassOption(String name, T unaryDefault, T pairwiseDefault, String help, String expected, Function<String, T> parse) {
        if (name == null || !name.matches("[a-zA-Z][a-zA-Z0-9_-]*")) {
            throw new IllegalArgumentException("option name '" + name + "' must start with a letter and hold letters, digits, '-' or '_'");
        }
        this.name = name;
        this.unaryDefault = Objects.requireNonNull(unaryDefault, "default");
        this.pairwiseDefault = Objects.requireNonNull(pairwiseDefault, "default");
        this.help = Objects.requireNonNull(help, "help");
        this.expected = expected;
        this.parse = parse;
    }

    /**
     * An option of any type: {@code parse} turns the text into a value or throws
     * IllegalArgumentException with the reason (which the error shows after the option's name);
     * {@code expected} says in a few words what a value looks like (for help texts).
     */
    public static <T> ClassOption<T> of(String name, T defaultValue, String expected, String help, Function<String, T> parse) {
        return new ClassOption<>(name, defaultValue, defaultValue, help, expected, parse);
    }

    /** An integer {@code >= min}. */
    public static ClassOption<Integer> integer(String name, int defaultValue, int min, String help) {
        return new ClassOption<>(name, defaultValue, defaultValue, help, "an integer >= " + min, s -> {
            int v = parseInt(s);
            if (v < min) throw new IllegalArgumentException("must be at least " + min + ", got " + v);
            return v;
        });
    }

    /** A finite real {@code >= min} (or {@code > min} when {@code exclusive}). */
    public static ClassOption<Double> real(String name, double defaultValue, double min, boolean exclusive, String help) {
        return real(name, defaultValue, defaultValue, min, exclusive, help);
    }

    /** As {@link #real(String, double, double, boolean, String)} with a default per role (unary, pairwise). */
    public static ClassOption<Double> real(String name, double unaryDefault, double pairwiseDefault, double min, boolean exclusive,
                                           String help) {
        String bound = (exclusive ? "> " : ">= ") + fmt(min);
        return new ClassOption<>(name, unaryDefault, pairwiseDefault, help, "a number " + bound, s -> {
            double v = parseReal(s);
            if (!Double.isFinite(v) || (exclusive ? !(v > min) : !(v >= min))) {
                throw new IllegalArgumentException("must be a finite number " + bound + ", got " + s.trim());
            }
            return v;
        });
    }

    /** A number in {@code [0, 1)} (a momentum, a decay factor). */
    public static ClassOption<Double> fraction(String name, double defaultValue, String help) {
        return new ClassOption<>(name, defaultValue, defaultValue, help, "a number in [0, 1)", s -> {
            double v = parseReal(s);
            if (!(v >= 0 && v < 1)) throw new IllegalArgumentException("must be at least 0 and below 1, got " + s.trim());
            return v;
        });
    }

    /** {@code true} or {@code false}. */
    public static ClassOption<Boolean> flag(String name, boolean defaultValue, String help) {
        return new ClassOption<>(name, defaultValue, defaultValue, help, "true or false", s -> switch (s.trim().toLowerCase(Locale.ROOT)) {
            case "true" -> Boolean.TRUE;
            case "false" -> Boolean.FALSE;
            default -> throw new IllegalArgumentException("must be true or false, got '" + s.trim() + "'");
        });
    }

    /** One of {@code choices} (lower case; the text is compared ignoring case). */
    public static ClassOption<String> choice(String name, String defaultValue, List<String> choices, String help) {
        if (!choices.contains(defaultValue)) throw new IllegalArgumentException("default '" + defaultValue + "' is not one of " + choices);
        List<String> copy = List.copyOf(choices);
        return new ClassOption<>(name, defaultValue, defaultValue, help, String.join("|", copy), s -> {
            String v = s.trim().toLowerCase(Locale.ROOT);
            if (!copy.contains(v)) throw new IllegalArgumentException("must be one of " + String.join(", ", copy) + ", got '" + s.trim() + "'");
            return v;
        });
    }

    /** A comma-separated list of 1 to {@code maxLength} integers, each {@code >= min}. */
    public static ClassOption<List<Integer>> integers(String name, List<Integer> defaultValue, int min, int maxLength, String help) {
        return new ClassOption<>(name, List.copyOf(defaultValue), List.copyOf(defaultValue), help,
                "comma-separated integers >= " + min, s -> {
            String[] parts = s.split(",", -1);
            if (parts.length > maxLength) throw new IllegalArgumentException("at most " + maxLength + " values, got " + parts.length);
            List<Integer> out = new ArrayList<>();
            for (String p : parts) {
                int v = parseInt(p);
                if (v < min) throw new IllegalArgumentException("every value must be at least " + min + ", got " + v);
                out.add(v);
            }
            return List.copyOf(out);
        });
    }

    public String name() {
        return name;
    }

    /** The value when none is given, for a unary ({@code unary}) or pairwise factor type. */
    public T defaultValue(boolean unary) {
        return unary ? unaryDefault : pairwiseDefault;
    }

    public String help() {
        return help;
    }

    /** What a value looks like, e.g. "an integer >= 1". */
    public String expected() {
        return expected;
    }

    /** The value of {@code text}; IllegalArgumentException with the reason (not naming the option). */
    public T parse(String text) {
        if (text == null || text.isBlank()) throw new IllegalArgumentException("needs a value (" + expected + ")");
        return Objects.requireNonNull(parse.apply(text), "parser returned null");
    }

    /** The text that {@link #parse} reads back to {@code value}. */
    public String format(Object value) {
        if (value instanceof List<?> l) {
            StringBuilder b = new StringBuilder();
            for (Object o : l) b.append(b.length() == 0 ? "" : ",").append(o);
            return b.toString();
        }
        return String.valueOf(value);
    }

    /** One help line: name, expected values, default(s), help. */
    public String helpLine() {
        String def = unaryDefault.equals(pairwiseDefault) ? format(unaryDefault)
                : format(unaryDefault) + " unary, " + format(pairwiseDefault) + " pairwise";
        return name + " (" + expected + "; default " + def + "): " + help;
    }

    @Override
    public String toString() {
        return "ClassOption[" + name + "]";
    }

    private static int parseInt(String s) {
        try {
            return Integer.parseInt(s.trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("'" + s.trim() + "' is not an integer");
        }
    }

    private static double parseReal(String s) {
        try {
            return Double.parseDouble(s.trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("'" + s.trim() + "' is not a number");
        }
    }

    private static String fmt(double v) {
        return v == Math.rint(v) && Math.abs(v) < 1e15 ? Long.toString((long) v) : Double.toString(v);
    }
}
