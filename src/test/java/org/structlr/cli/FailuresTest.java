package org.structlr.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.structlr.data.BadInputException;
import org.structlr.data.DenoisingGenerator;
import org.structlr.data.Reading;
import org.structlr.extension.CrashClass;

/**
 * The command line's contract for every Throwable: input-caused failures (errors included) exit 2
 * with one "error: FILE: problem" line, anything else exits 1 with one "failed:" line holding the
 * short cause chain, and --stacktrace adds the whole trace.
 */
class FailuresTest {
    @TempDir
    static Path shared;
    static Path data;

    @BeforeAll
    static void data() throws IOException {
        data = shared.resolve("data");
        new DenoisingGenerator().generateTo(data, 2, 1, 6, 6, 3);
    }

    @AfterEach
    void clear() {
        System.clearProperty(CrashClass.PROPERTY);
    }

    static TrainPredictCommandTest.Run crash(String how, String... extra) {
        System.setProperty(CrashClass.PROPERTY, how);
        List<String> a = new java.util.ArrayList<>(List.of("train", "--data", data.toString(), "--unary", "crash", "--iterations", "1",
                "--quiet", "--threads", "1", "--output", shared.resolve("model-" + how).toString()));
        a.addAll(List.of(extra));
        return TrainPredictCommandTest.run(a.toArray(String[]::new));
    }

    static void assertOneFailedLine(TrainPredictCommandTest.Run r, String... parts) {
        assertEquals(1, r.code(), r.err());
        List<String> lines = r.err().strip().lines().toList();
        assertEquals(1, lines.size(), r.err());
        assertTrue(lines.get(0).startsWith("failed: "), r.err());
        for (String p : parts) assertTrue(lines.get(0).contains(p), "'" + p + "' in: " + r.err());
        assertFalse(r.err().contains("\tat "), r.err());
    }

    @Test
    void errorsThatNoInputCausedExitOneWithOneLine() {
        TrainPredictCommandTest.Run oom = crash("oom");
        assertOneFailedLine(oom, "out of memory", "Java heap space", "-Xmx");
        assertFalse(Files.exists(shared.resolve("model-oom")), "no model");
        TrainPredictCommandTest.Run soe = crash("soe");
        assertOneFailedLine(soe, "java.lang.StackOverflowError");
        // an exception with a cause: the short chain
        TrainPredictCommandTest.Run state = crash("state");
        assertOneFailedLine(state, "java.lang.IllegalStateException: the oracle gave up", "caused by java.io.IOException: the disk said no",
                "--stacktrace");
    }

    @Test
    void stacktraceOptionPrintsTheWholeTrace() {
        TrainPredictCommandTest.Run r = crash("state", "--stacktrace");
        assertEquals(1, r.code(), r.err());
        assertTrue(r.err().startsWith("failed: java.lang.IllegalStateException: the oracle gave up"), r.err());
        assertTrue(r.err().contains("\tat org.structlr.extension.CrashClass"), r.err());
        assertTrue(r.err().contains("Caused by: java.io.IOException: the disk said no"), r.err());
        // before the command name too
        System.setProperty(CrashClass.PROPERTY, "oom");
        TrainPredictCommandTest.Run before = TrainPredictCommandTest.run("--stacktrace", "train", "--data", data.toString(), "--unary", "crash",
                "--iterations", "1", "--quiet", "--threads", "1");
        assertEquals(1, before.code(), before.err());
        assertTrue(before.err().contains("java.lang.OutOfMemoryError: Java heap space\n\tat "), before.err());
    }

    @Test
    void badInputAnywhereInTheCauseChainExitsTwo() {
        StringWriter w = new StringWriter();
        Throwable wrapped = new RuntimeException("worker failed", new java.util.concurrent.ExecutionException(
                new BadInputException(Path.of("x.npz"), "array 'unary' is bad")));
        assertEquals(Main.EXIT_USAGE, Failures.report(wrapped, new PrintWriter(w), false));
        assertEquals("error: x.npz: array 'unary' is bad", w.toString().strip());
    }

    @Test
    void anErrorRaisedByAnInputNamesTheInput() throws IOException {
        BadInputException oom = org.junit.jupiter.api.Assertions.assertThrows(BadInputException.class,
                () -> Reading.guard(Path.of("big.npz"), () -> { throw new OutOfMemoryError("Java heap space"); }));
        assertTrue(oom.getMessage().startsWith("big.npz: needs more memory than this JVM has to read it (Java heap space; max heap "), oom.getMessage());
        BadInputException deep = org.junit.jupiter.api.Assertions.assertThrows(BadInputException.class,
                () -> Reading.guard(Path.of("deep.json"), () -> CrashClass.recurse(0)));
        assertEquals("deep.json: nested too deeply to read (stack overflow)", deep.getMessage());
        StringWriter w = new StringWriter();
        assertEquals(Main.EXIT_USAGE, Failures.report(oom, new PrintWriter(w), false));
        assertTrue(w.toString().startsWith("error: big.npz: needs more memory"), w.toString());
    }
}
