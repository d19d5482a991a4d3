package org.structlr.spark;

import java.io.IOException;
import java.io.Serializable;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.stream.Stream;
import org.structlr.data.AtomicFiles;
import org.structlr.oracle.ScoreFunction;
import org.structlr.oracle.ScoreFunctions;

/**
 * A fitted function as the bytes of its saved folder, for broadcasting to executors: the saved
 * form is the one every kind already has and restores exactly (ModelSerializer, XGBoost's own
 * format), so no kind needs a second serialisation.
 */
final class FunctionBytes implements Serializable {
    private final Map<String, byte[]> files;

    private FunctionBytes(Map<String, byte[]> files) {
        this.files = files;
    }

    /** Null for null (a type not fitted yet). */
    static FunctionBytes of(ScoreFunction f) {
        if (f == null) return null;
        Path dir = null;
        try {
            dir = Files.createTempDirectory("structlr-fn");
            f.save(dir);
            Map<String, byte[]> files = new LinkedHashMap<>();
            Path root = dir;
            try (Stream<Path> s = Files.walk(dir)) {
                for (Path p : s.filter(Files::isRegularFile).sorted().toList()) files.put(root.relativize(p).toString(), Files.readAllBytes(p));
            }
            return new FunctionBytes(files);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot serialise a " + f.kind() + " function: " + e.getMessage(), e);
        } finally {
            deleteQuietly(dir);
        }
    }

    ScoreFunction function() {
        Path dir = null;
        try {
            dir = Files.createTempDirectory("structlr-fn");
            for (Map.Entry<String, byte[]> e : files.entrySet()) {
                Path p = dir.resolve(e.getKey());
                Files.createDirectories(p.getParent());
                Files.write(p, e.getValue());
            }
            return ScoreFunctions.load(dir);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot restore a broadcast function: " + e.getMessage(), e);
        } finally {
            deleteQuietly(dir);
        }
    }

    static ScoreFunction function(FunctionBytes b) {
        return b == null ? null : b.function();
    }

    private static void deleteQuietly(Path dir) {
        if (dir == null) return;
        try {
            AtomicFiles.deleteTree(dir);
        } catch (IOException | RuntimeException ignored) {
            // a leftover temporary folder is no reason to fail a fit
        }
    }
}
