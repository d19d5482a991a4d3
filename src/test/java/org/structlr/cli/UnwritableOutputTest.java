package org.structlr.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.structlr.data.DenoisingGenerator;

/**
 * An output that cannot be written is refused before any work: one error line naming the path and
 * why, exit 2, and nothing written (the other outputs of the same command included).
 *
 * <p>Tests run as root here, and root may write into any folder whatever its mode bits, so a test
 * cannot make an unwritable folder with chmod. Linux's {@code /proc/self} (the process's own
 * folder in procfs) refuses new entries to every user, root included: an output below it is an
 * output in a folder that is not writable, for whoever runs the tests. Where there is no such
 * folder (not Linux) the not-writable cases are skipped, except under {@code CI=true} (CI runs
 * Linux), where they fail.
 */
class UnwritableOutputTest {
    @TempDir
    static Path shared;

    @TempDir
    Path tmp;

    static Path data, model, uai;
    static final Path PROC_SELF = Path.of("/proc/self");

    @BeforeAll
    static void prepare() throws IOException {
        data = shared.resolve("data");
        new DenoisingGenerator().generateTo(data, 2, 2, 8, 8, 5);
        TrainPredictCommandTest.Run r = TrainPredictCommandTest.run(TrainPredictCommandTest.train(data, shared.resolve("trained")));
        assertEquals(0, r.code(), r.err());
        model = shared.resolve("trained").resolve("model");
        uai = shared.resolve("pair.uai");
        Files.writeString(uai, "MARKOV\n2\n2 2\n1\n2 0 1\n4\n 1 2 3 4\n");
    }

    /** Whether this machine has a folder no one may write into; under CI=true it must. */
    static void needUnwritableFolder() {
        boolean there = Files.isDirectory(PROC_SELF) && !Files.isWritable(PROC_SELF);
        if ("true".equals(System.getenv("CI"))) assertTrue(there, PROC_SELF + " should be a folder no one may write into (Linux)");
        assumeTrue(there, "no /proc/self that refuses writes (not Linux)");
    }

    static TrainPredictCommandTest.Run run(String... args) {
        return TrainPredictCommandTest.run(args);
    }

    static String[] train(String... extra) {
        List<String> a = new ArrayList<>(List.of("train", "--data", data.toString(), "--iterations", "1", "--quiet", "--threads", "1"));
        a.addAll(List.of(extra));
        return a.toArray(String[]::new);
    }

    @Test
    void outputsInAFolderThatIsNotWritableAreRefused() throws IOException {
        needUnwritableFolder();
        Path report = tmp.resolve("r.json"), out = tmp.resolve("M");
        String notWritable = "folder " + PROC_SELF + " is not writable";
        TrainPredictCommandTest.Run r = run(train("--output", PROC_SELF.resolve("M").toString(), "--report", report.toString()));
        TrainPredictCommandTest.assertUsageError(r, PROC_SELF.resolve("M").toString(), "cannot write --output: " + notWritable);
        r = run(train("--checkpoint", PROC_SELF.resolve("ck").toString(), "--output", out.toString(), "--report", report.toString()));
        TrainPredictCommandTest.assertUsageError(r, PROC_SELF.resolve("ck").toString(), "cannot write --checkpoint: " + notWritable);
        r = run(train("--report", PROC_SELF.resolve("r.json").toString(), "--output", out.toString()));
        TrainPredictCommandTest.assertUsageError(r, PROC_SELF.resolve("r.json").toString(), "cannot write --report: " + notWritable);
        // a folder below it that does not exist yet: the nearest existing folder is the one that refuses
        r = run(train("--csv", PROC_SELF.resolve("new/c.csv").toString(), "--output", out.toString()));
        TrainPredictCommandTest.assertUsageError(r, PROC_SELF.resolve("new/c.csv").toString(), "cannot write --csv: " + notWritable);
        assertEquals(List.of(), TrainPredictCommandTest.list(tmp), "no output written, nothing left behind");

        r = run("predict", "--model", model.toString(), "--input", data.resolve("test").toString(), "--output",
                PROC_SELF.resolve("p").toString(), "--quiet");
        TrainPredictCommandTest.assertUsageError(r, PROC_SELF.resolve("p").toString(), "cannot write --output: " + notWritable);
        r = run("evaluate", "--model", model.toString(), "--data", data.toString(), "--output", PROC_SELF.resolve("e.json").toString());
        TrainPredictCommandTest.assertUsageError(r, PROC_SELF.resolve("e.json").toString(), "cannot write --output: " + notWritable);
        r = run("export", "--model", model.toString(), "--output", PROC_SELF.resolve("x").toString());
        TrainPredictCommandTest.assertUsageError(r, PROC_SELF.resolve("x").toString(), "cannot write --output: " + notWritable);
        r = run("infer", uai.toString(), "--output", PROC_SELF.resolve("i.json").toString());
        TrainPredictCommandTest.assertUsageError(r, PROC_SELF.resolve("i.json").toString(), "cannot write --output: " + notWritable);
    }

    /**
     * A --checkpoint folder that exists but is not writable ({@code /proc/self} itself), for a new
     * run and a resumed one: one error line naming the folder, exit 2, before any training (a
     * class whose every fit fails would otherwise end the run with exit 1), and nothing written:
     * no model, no report, the resumed checkpoint folder as it was.
     */
    @Test
    void anExistingCheckpointFolderThatIsNotWritableIsRefusedBeforeTraining() throws IOException {
        needUnwritableFolder();
        Path report = tmp.resolve("r.json"), out = tmp.resolve("M");
        String refused = PROC_SELF + ": cannot write --checkpoint: the folder is not writable";
        TrainPredictCommandTest.Run r = run(train("--unary", "crash", "--checkpoint", PROC_SELF.toString(), "--output", out.toString(),
                "--report", report.toString()));
        TrainPredictCommandTest.assertUsageError(r, refused);
        assertEquals(List.of(), TrainPredictCommandTest.list(tmp), "nothing written");

        Path ck = shared.resolve("ck");
        r = run(train("--checkpoint", ck.toString()));
        assertEquals(0, r.code(), r.err());
        List<String> before = TrainPredictCommandTest.list(ck);
        byte[] manifest = Files.readAllBytes(ck.resolve("iteration-000001").resolve("checkpoint.json"));
        r = run("train", "--resume", ck.toString(), "--data", data.toString(), "--iterations", "2", "--quiet", "--threads", "1",
                "--checkpoint", PROC_SELF.toString(), "--output", out.toString(), "--report", report.toString());
        TrainPredictCommandTest.assertUsageError(r, refused);
        assertEquals(List.of(), TrainPredictCommandTest.list(tmp), "nothing written");
        assertEquals(before, TrainPredictCommandTest.list(ck), "the checkpoint folder resumed from as it was");
        assertTrue(java.util.Arrays.equals(manifest, Files.readAllBytes(ck.resolve("iteration-000001").resolve("checkpoint.json"))));
    }

    /** Below a regular file (a root-proof unwritable place too): refused naming the file. */
    @Test
    void outputsBelowARegularFileAreRefused() throws IOException {
        Path file = tmp.resolve("file");
        Files.writeString(file, "x");
        Path report = tmp.resolve("r.json");
        TrainPredictCommandTest.Run r = run(train("--output", file.resolve("M").toString(), "--report", report.toString()));
        TrainPredictCommandTest.assertUsageError(r, file.resolve("M").toString(), "cannot write --output: " + file + " is a file, not a folder");
        r = run(train("--checkpoint", file.resolve("ck").toString(), "--report", report.toString()));
        TrainPredictCommandTest.assertUsageError(r, "cannot write --checkpoint: " + file + " is a file, not a folder");
        r = run(train("--checkpoint", file.toString(), "--report", report.toString()));
        TrainPredictCommandTest.assertUsageError(r, file.toString(), "cannot write --checkpoint: exists and is a file, not a folder");
        r = run("infer", uai.toString(), "--output", file.resolve("i.json").toString());
        TrainPredictCommandTest.assertUsageError(r, "cannot write --output: " + file + " is a file, not a folder");
        assertEquals(List.of("file"), TrainPredictCommandTest.list(tmp), "nothing written");
        assertEquals("x", Files.readString(file));
        assertFalse(Files.exists(report));
    }
}
