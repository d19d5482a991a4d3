package org.structlr.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The comparison {@code scripts/gpu-check} makes between the ND4J-CPU and the CUDA build's
 * outputs of the same runs: {@code infer} JSON (dual, primal, labels) and {@code train --report}
 * JSON (the objective and errors of every evaluated iteration). Two builds of the same ND4J
 * engines differ only by float rounding (other reduction orders, fused multiply-adds on the GPU),
 * so the tolerances are those of float: objectives to {@link #OBJECTIVE} relative, errors to
 * {@link #ERROR} absolute (0.1% of the pixels may flip), labels the same but for
 * {@link #LABELS} of them. Run:
 * <pre>
 * java -cp structlr.jar org.structlr.cli.ResultComparison infer|train EXPECTED.json ACTUAL.json
 * </pre>
 * Prints one line per difference beyond tolerance, or "same"; exits 0 when the same, 1 when not,
 * 2 on bad input. Not a subcommand: a tool of the GPU check, not of users.
 */
public final class ResultComparison {
    /** Objectives (dual, primal, learning objective): relative tolerance of float arithmetic. */
    static final double OBJECTIVE = 1e-4;
    /** Train and test errors: absolute tolerance (fraction of variables). */
    static final double ERROR = 1e-3;
    /** Decoded labels: fraction that may differ. */
    static final double LABELS = 1e-3;

    private ResultComparison() {}

    public static void main(String[] args) {
        System.exit(run(args));
    }

    static int run(String... args) {
        if (args.length != 3 || !(args[0].equals("infer") || args[0].equals("train"))) {
            System.err.println("usage: ResultComparison infer|train EXPECTED.json ACTUAL.json");
            return Main.EXIT_USAGE;
        }
        JsonNode expected, actual;
        try {
            expected = read(Path.of(args[1]));
            actual = read(Path.of(args[2]));
        } catch (IOException e) {
            System.err.println("error: " + e.getMessage());
            return Main.EXIT_USAGE;
        }
        List<String> diffs = args[0].equals("infer") ? compareInfer(expected, actual) : compareTrain(expected, actual);
        if (diffs.isEmpty()) {
            System.out.println("same (" + args[0] + "): " + args[1] + " and " + args[2]);
            return Main.EXIT_OK;
        }
        for (String d : diffs) System.out.println("DIFFERENT (" + args[0] + "): " + d);
        return Main.EXIT_FAILURE;
    }

    private static JsonNode read(Path file) throws IOException {
        try {
            return new ObjectMapper().readTree(file.toFile());
        } catch (IOException e) {
            throw new IOException(file + ": " + e.getMessage().lines().findFirst().orElse("cannot be read"), e);
        }
    }

    /** Differences between two {@code infer --format json} outputs. */
    static List<String> compareInfer(JsonNode expected, JsonNode actual) {
        List<String> d = new ArrayList<>();
        for (String key : List.of("dual", "primal")) relative(d, key, expected.path(key), actual.path(key));
        JsonNode a = expected.path("labels"), b = actual.path("labels");
        if (!a.isArray() || !b.isArray() || a.size() != b.size()) {
            d.add("labels: " + a.size() + " against " + b.size() + " values");
        } else {
            int differ = 0;
            for (int i = 0; i < a.size(); i++) if (a.get(i).asInt() != b.get(i).asInt()) differ++;
            if (differ > LABELS * a.size()) d.add(String.format(Locale.ROOT, "labels: %d of %d differ (at most %.1f allowed)", differ, a.size(), LABELS * a.size()));
        }
        return d;
    }

    /** Differences between two {@code train --report} curves, iteration by iteration. */
    static List<String> compareTrain(JsonNode expected, JsonNode actual) {
        List<String> d = new ArrayList<>();
        JsonNode a = expected.path("iterations"), b = actual.path("iterations");
        if (!a.isArray() || !b.isArray() || a.size() != b.size() || a.size() == 0) {
            d.add("curve: " + a.size() + " against " + b.size() + " evaluated iterations");
            return d;
        }
        for (int k = 0; k < a.size(); k++) {
            JsonNode x = a.get(k), y = b.get(k);
            String at = "iteration " + x.path("iteration").asInt();
            if (x.path("iteration").asInt() != y.path("iteration").asInt()) {
                d.add(at + ": against iteration " + y.path("iteration").asInt());
                continue;
            }
            relative(d, at + " objective", x.path("objective"), y.path("objective"));
            for (String key : List.of("train_error", "test_error")) absolute(d, at + " " + key, x.path(key), y.path(key), ERROR);
        }
        return d;
    }

    private static void relative(List<String> d, String what, JsonNode x, JsonNode y) {
        if (!x.isNumber() || !y.isNumber()) {
            if (!(x.isNull() && y.isNull())) d.add(what + ": " + x + " against " + y);
            return;
        }
        double a = x.asDouble(), b = y.asDouble();
        if (!(Math.abs(a - b) <= OBJECTIVE * Math.max(Math.abs(a), Math.abs(b)))) {
            d.add(String.format(Locale.ROOT, "%s: %.9g against %.9g (relative difference %.2e > %.0e)", what, a, b,
                    Math.abs(a - b) / Math.max(Math.abs(a), Math.abs(b)), OBJECTIVE));
        }
    }

    private static void absolute(List<String> d, String what, JsonNode x, JsonNode y, double tolerance) {
        if (x.isNull() && y.isNull()) return;
        double a = x.asDouble(Double.NaN), b = y.asDouble(Double.NaN);
        if (!(Math.abs(a - b) <= tolerance)) d.add(String.format(Locale.ROOT, "%s: %.6f against %.6f (more than %.0e apart)", what, a, b, tolerance));
    }
}
