package org.structlr.learn;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.IOException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.structlr.data.AtomicFiles;

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

    public static void writeCsv(Path file, List<IterationRecord> curve) throws IOException {
        StringBuilder sb = new StringBuilder("iteration,objective,train_error,test_error,seconds\n");
        for (IterationRecord r : curve) {
            sb.append(String.format(Locale.ROOT, "%d,%.8g,%.6f,%.6f,%.3f%n", r.iteration(), r.objective(), r.trainError(), r.testError(), r.seconds()));
        }
        AtomicFiles.writeString(file, sb.toString());
    }
}
