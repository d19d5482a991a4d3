package org.structlr.learn;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.structlr.data.AtomicFiles;
import org.structlr.data.BadInputException;

/** The learning curve as JSON ({"iterations": [...], "final": {...}}) and CSV. */
public final class LearningReport {
    private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    private LearningReport() {}

    public static Map<String, Object> toMap(List<IterationRecord> curve, Map<String, Object> extra) {
        Map<String, Object> root = new LinkedHashMap<>(extra);
        root.put("iterations", curve.stream().map(r -> {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("iteration", r.iteration());
            m.put("objective", finite(r.objective()));
            m.put("train_error", finite(r.trainError()));
            m.put("test_error", finite(r.testError()));
            m.put("seconds", r.seconds());
            m.put("learning_seconds", r.learningSeconds());
            return m;
        }).toList());
        Map<String, Object> fin = new LinkedHashMap<>();
        IterationRecord last = curve.isEmpty() ? null : curve.get(curve.size() - 1);
        fin.put("train_error", last == null ? null : finite(last.trainError()));
        fin.put("test_error", last == null ? null : finite(last.testError()));
        fin.put("seconds", last == null ? 0.0 : last.seconds());
        root.put("final", fin);
        return root;
    }

    private static Double finite(double v) {
        return Double.isFinite(v) ? v : null;
    }

    public static void writeJson(Path file, List<IterationRecord> curve, Map<String, Object> extra) throws IOException {
        AtomicFiles.write(file, out -> JSON.writeValue(out, toMap(curve, extra)));
    }

    /** The curve of a report written by {@link #writeJson} (null numbers read as NaN); bad input names the file. */
    public static List<IterationRecord> readCurve(Path file) {
        try {
            JsonNode root = JSON.readTree(file.toFile());
            JsonNode its = root.path("iterations");
            if (!its.isArray()) throw new BadInputException(file, "has no 'iterations' list (not a learning report)");
            List<IterationRecord> curve = new ArrayList<>();
            for (JsonNode r : its) {
                curve.add(new IterationRecord(r.path("iteration").asInt(), number(r, "objective"), number(r, "train_error"),
                        number(r, "test_error"), number(r, "seconds"),
                        r.has("learning_seconds") ? number(r, "learning_seconds") : number(r, "seconds")));
            }
            return curve;
        } catch (IOException e) {
            throw new BadInputException(file, "cannot be read as a learning report: " + e.getMessage().lines().findFirst().orElse(""));
        }
    }

    /** A number of a report's extra entries, e.g. ("seconds", "total"); NaN when absent. */
    public static double readExtraNumber(Path file, String... keys) {
        try {
            JsonNode n = JSON.readTree(file.toFile());
            for (String k : keys) n = n.path(k);
            return n.isNumber() ? n.asDouble() : Double.NaN;
        } catch (IOException e) {
            throw new BadInputException(file, "cannot be read as a learning report: " + e.getMessage().lines().findFirst().orElse(""));
        }
    }

    private static double number(JsonNode r, String key) {
        JsonNode v = r.path(key);
        return v.isNumber() ? v.asDouble() : Double.NaN;
    }

    public static void writeCsv(Path file, List<IterationRecord> curve) throws IOException {
        StringBuilder sb = new StringBuilder("iteration,objective,train_error,test_error,seconds,learning_seconds\n");
        for (IterationRecord r : curve) {
            sb.append(String.format(Locale.ROOT, "%d,%.8g,%.6f,%.6f,%.3f,%.3f%n", r.iteration(), r.objective(), r.trainError(), r.testError(), r.seconds(), r.learningSeconds()));
        }
        AtomicFiles.writeString(file, sb.toString());
    }
}
