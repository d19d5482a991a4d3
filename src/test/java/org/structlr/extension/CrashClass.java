package org.structlr.extension;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.file.Path;
import java.util.Set;
import org.structlr.oracle.BiasedLogisticProblem;
import org.structlr.oracle.FunctionClass;
import org.structlr.oracle.Oracle;
import org.structlr.oracle.ScoreFunction;

/**
 * A test-only function class whose oracle fails the way the system property
 * {@value #PROPERTY} says: {@code oom} (an OutOfMemoryError), {@code soe} (a real stack overflow),
 * {@code state} (an IllegalStateException with a cause): failures that no input caused, for the
 * command line's exit-code contract (FailuresTest).
 */
public class CrashClass implements FunctionClass {
    public static final String NAME = "crash";
    public static final String PROPERTY = "structlr.test.crash";

    @Override public String name() { return NAME; }
    @Override public String description() { return "fails on purpose (a test-only class)"; }
    @Override public Set<String> kinds() { return Set.of(NAME); }
    @Override public ScoreFunction load(Path dir, JsonNode meta) { throw new UnsupportedOperationException("nothing to load"); }
    @Override public ObjectNode export(ScoreFunction f, ExportTarget target) { throw new IllegalArgumentException("no export"); }

    @Override
    public Oracle create(Context c) {
        return new Oracle() {
            @Override
            public ScoreFunction fit(BiasedLogisticProblem problem, ScoreFunction previous) {
                switch (System.getProperty(PROPERTY, "state")) {
                    case "oom" -> throw new OutOfMemoryError("Java heap space");
                    case "soe" -> recurse(0);
                    default -> throw new IllegalStateException("the oracle gave up", new java.io.IOException("the disk said no"));
                }
                return null;
            }

            @Override public String describe() { return NAME; }
        };
    }

    public static int recurse(int depth) {
        return recurse(depth + 1) + 1;
    }
}
