package org.structlr.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.structlr.data.Dataset;
import org.structlr.data.DenoisingGenerator;
import org.structlr.learn.Checkpoint;
import org.structlr.model.CrfModel;
import org.structlr.model.ExampleBatch;
import org.structlr.model.Predictor;

/**
 * {@code train --checkpoint} / {@code --resume}: a training run in a child JVM killed with SIGKILL
 * and resumed here ends with the model and curve of an uninterrupted run; corrupted checkpoints,
 * other data and other kinds are refused (exit 2, naming the file or option).
 */
class CheckpointTest {
    @TempDir
    static Path shared;

    @TempDir
    Path tmp;

    static Path data;
    static final String[] SETTINGS = {"--sweeps", "3", "--eval-sweeps", "3", "--eval-every", "1", "--seed", "3", "--quiet", "--threads", "1"};

    @BeforeAll
    static void generate() throws IOException {
        data = shared.resolve("data");
        new DenoisingGenerator().generateTo(data, 2, 2, 12, 12, 17);
    }

    static String[] args(String... head) {
        List<String> a = new ArrayList<>(List.of(head));
        a.addAll(List.of(SETTINGS));
        return a.toArray(String[]::new);
    }

    @ParameterizedTest(name = "{0}/{1}")
    @CsvSource({"linear,linear", "mlp,boost"})
    void killedAndResumedEqualsUninterrupted(String unary, String pair) throws Exception {
        Path ck = tmp.resolve("ck");
        Path log = tmp.resolve("child.log");
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx1g",
                "--add-modules", "jdk.incubator.vector",   // the same (fused) inference engine as this JVM
                "-cp", System.getProperty("surefire.test.class.path", System.getProperty("java.class.path")),
                Main.class.getName()));
        cmd.addAll(List.of(args("train", "--data", data.toString(), "--unary", unary, "--pairwise", pair, "--iterations", "100000",
                "--checkpoint", ck.toString(), "--checkpoint-every", "1")));
        Process child = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        try {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (latestIteration(ck) < 2) {
                if (!child.isAlive()) fail("the training child ended (exit " + child.exitValue() + ") before checkpoint 2: " + Files.readString(log));
                if (System.nanoTime() > deadline) fail("no checkpoint 2 within 60 s: " + Files.readString(log));
                Thread.sleep(20);
            }
        } finally {
            child.destroyForcibly();                    // SIGKILL: no shutdown hooks, no finally blocks
            assertTrue(child.waitFor(30, TimeUnit.SECONDS), "child did not die");
        }
        int at = Checkpoint.load(ck).state().iteration();
        assertTrue(at >= 2, "checkpoint iteration " + at);
        String total = Integer.toString(at + 2);
        System.out.println(unary + "/" + pair + ": child killed with checkpoint " + at + " on disk; resuming to " + total);

        Path resumed = tmp.resolve("resumed"), plain = tmp.resolve("plain");
        TrainPredictCommandTest.Run r = TrainPredictCommandTest.run("train", "--resume", ck.toString(), "--data", data.toString(),
                "--iterations", total, "--quiet", "--output", resumed.resolve("model").toString(), "--report", resumed.resolve("r.json").toString());
        assertEquals(0, r.code(), r.err());
        r = TrainPredictCommandTest.run(args("train", "--data", data.toString(), "--unary", unary, "--pairwise", pair, "--iterations", total,
                "--output", plain.resolve("model").toString(), "--report", plain.resolve("r.json").toString()));
        assertEquals(0, r.code(), r.err());

        TrainPredictCommandTest.assertSameCurve(plain.resolve("r.json"), resumed.resolve("r.json"), at + 2, "resumed after " + at);
        CrfModel ma = CrfModel.load(plain.resolve("model")), mb = CrfModel.load(resumed.resolve("model"));
        assertEquals(at, ((Number) mb.provenance().get("resumedAfterIteration")).intValue());
        assertArrayEquals(predict(ma), predict(mb), "predicted test labels");
        // the resumed run went on checkpointing into the folder, every iteration as the killed run did
        assertEquals(List.of(String.format("iteration-%06d", at + 1), String.format("iteration-%06d", at + 2)),
                TrainPredictCommandTest.list(ck).stream().filter(n -> !n.startsWith(".")).toList());
    }

    static int[] predict(CrfModel m) {
        Dataset d = Dataset.load(data);
        ExampleBatch b = new ExampleBatch(d.test(), m.numLabels(), m.pairTypes());
        return Predictor.predict(m, b, Predictor.defaultStop(b, 200, 1e-6)).labels();
    }

    /** The newest complete checkpoint's iteration in {@code dir}, 0 when none (a folder may vanish while we look). */
    static int latestIteration(Path dir) {
        if (!Files.isDirectory(dir)) return 0;
        int best = 0;
        try (Stream<Path> s = Files.list(dir)) {
            for (Path p : s.toList()) {
                String n = p.getFileName().toString();
                if (n.matches("iteration-\\d+") && Files.isRegularFile(p.resolve(Checkpoint.MANIFEST))) {
                    best = Math.max(best, Integer.parseInt(n.substring("iteration-".length())));
                }
            }
        } catch (IOException | RuntimeException e) {
            return best;
        }
        return best;
    }

    /** A finished 2-iteration linear/linear run's checkpoint folder. */
    Path checkpoint() {
        Path ck = tmp.resolve("ck");
        TrainPredictCommandTest.Run r = TrainPredictCommandTest.run(args("train", "--data", data.toString(), "--iterations", "2",
                "--checkpoint", ck.toString(), "--checkpoint-every", "1"));
        assertEquals(0, r.code(), r.err());
        assertEquals(2, latestIteration(ck));
        return ck;
    }

    static List<Path> files(Path dir) throws IOException {
        try (Stream<Path> s = Files.walk(dir)) {
            return s.filter(Files::isRegularFile).map(dir::relativize).sorted().toList();
        }
    }

    @Test
    void corruptedCheckpointIsRefusedNamingTheFile() throws IOException {
        Path ck = checkpoint();
        assertEquals(List.of("iteration-000001", "iteration-000002"), TrainPredictCommandTest.list(ck), "the two newest are kept");
        Path latest = ck.resolve("iteration-000002"), before = ck.resolve("iteration-000001");
        List<Path> files = files(latest);
        assertTrue(files.size() >= 6, "functions, messages, curve and manifest: " + files);
        assertEquals(files, files(before));
        for (Path rel : files) {
            // the same file damaged in both checkpoints: refused, naming the newest's
            Path f = latest.resolve(rel.toString()), g = before.resolve(rel.toString());
            byte[] orig = Files.readAllBytes(f), origG = Files.readAllBytes(g);
            Files.write(f, flip(orig));
            Files.write(g, flip(origG));
            Path out = tmp.resolve("M");
            TrainPredictCommandTest.Run r = TrainPredictCommandTest.run("train", "--resume", ck.toString(), "--data", data.toString(),
                    "--iterations", "3", "--quiet", "--output", out.toString());
            TrainPredictCommandTest.assertUsageError(r, f.toString());
            assertFalse(Files.exists(out), "no model written");
            Files.write(f, orig);
            Files.write(g, origG);
        }
        // only the newest damaged: resumes from the one before, saying so, and redoes iteration 2 into the folder it resumed from,
        // a complete checkpoint in place of the damaged one (the run's own: the same bytes)
        Path f = latest.resolve(CheckpointTest.MESSAGES);
        byte[] orig = Files.readAllBytes(f);
        Files.write(f, flip(orig));
        TrainPredictCommandTest.Run fallback = TrainPredictCommandTest.run("train", "--resume", ck.toString(), "--data", data.toString(),
                "--iterations", "2", "--quiet");
        assertEquals(0, fallback.code(), fallback.err());
        assertTrue(fallback.err().startsWith("warning: " + f + ": checksum mismatch"), fallback.err());
        assertTrue(fallback.err().contains("resuming from the one before, " + before), fallback.err());
        assertEquals(1, fallback.err().lines().count(), fallback.err());
        assertEquals(List.of("iteration-000001", "iteration-000002"), TrainPredictCommandTest.list(ck));
        List<String> warnings = new ArrayList<>();
        assertEquals(2, Checkpoint.load(ck, warnings::add).state().iteration());
        assertEquals(List.of(), warnings, "the damaged checkpoint was replaced");
        assertArrayEquals(orig, Files.readAllBytes(f), "the redone iteration 2's messages");
        // resumes from the newest, and goes on checkpointing into the same folder (no --checkpoint given) at the run's interval, 1
        TrainPredictCommandTest.Run r = TrainPredictCommandTest.run("train", "--resume", ck.toString(), "--data", data.toString(),
                "--iterations", "4", "--quiet");
        assertEquals(0, r.code(), r.err());
        assertEquals("", r.err());
        assertEquals(List.of("iteration-000003", "iteration-000004"), TrainPredictCommandTest.list(ck));
        assertEquals(4, Checkpoint.load(ck).state().iteration());
        assertEquals(4, Checkpoint.load(ck).settings().iterations());
        assertEquals(1, Checkpoint.load(ck).interval());
    }

    /**
     * A resumed run goes on checkpointing as the run it continues would have: into the folder it
     * resumed from, at the recorded interval; --checkpoint and --checkpoint-every change that. A
     * single checkpoint folder continues into the folder holding it when it is that folder's newest;
     * otherwise (newer checkpoints there, or no folder of checkpoints around it) the resume is refused
     * before any work, asking for --checkpoint, which then works.
     */
    @Test
    void aResumedRunGoesOnCheckpointingAsTheRunItContinues() throws IOException {
        Path ck = tmp.resolve("ck");
        TrainPredictCommandTest.Run r = TrainPredictCommandTest.run(args("train", "--data", data.toString(), "--iterations", "4",
                "--checkpoint", ck.toString(), "--checkpoint-every", "2"));
        assertEquals(0, r.code(), r.err());
        assertEquals(List.of("iteration-000002", "iteration-000004"), TrainPredictCommandTest.list(ck));
        assertEquals(2, Checkpoint.load(ck).interval(), "recorded");
        // every 2nd iteration and the last, into the folder resumed from
        r = resume(ck, "7");
        assertEquals(0, r.code(), r.err());
        assertEquals(List.of("iteration-000006", "iteration-000007"), TrainPredictCommandTest.list(ck));
        // --checkpoint redirects (the folder resumed from is left as it was), at the run's interval
        Path other = tmp.resolve("other");
        r = resume(ck, "10", "--checkpoint", other.toString());
        assertEquals(0, r.code(), r.err());
        assertEquals(List.of("iteration-000008", "iteration-000010"), TrainPredictCommandTest.list(other));
        assertEquals(List.of("iteration-000006", "iteration-000007"), TrainPredictCommandTest.list(ck));
        // --checkpoint-every changes the interval; the checkpoints record the new one
        r = resume(other, "13", "--checkpoint-every", "1");
        assertEquals(0, r.code(), r.err());
        assertEquals(List.of("iteration-000012", "iteration-000013"), TrainPredictCommandTest.list(other));
        assertEquals(1, Checkpoint.load(other).interval());
        // one checkpoint, the newest of its folder: continues into that folder
        r = resume(other.resolve("iteration-000013"), "14");
        assertEquals(0, r.code(), r.err());
        assertEquals(List.of("iteration-000013", "iteration-000014"), TrainPredictCommandTest.list(other));
        // one checkpoint with a newer one beside it: refused before any work, naming it; --checkpoint elsewhere resumes it
        Path out = tmp.resolve("M");
        r = resume(other.resolve("iteration-000013"), "14", "--output", out.toString());
        TrainPredictCommandTest.assertUsageError(r, other.resolve("iteration-000013").toString(),
                "cannot go on checkpointing into the folder resumed from", "newer checkpoint (iteration-000014)", "--checkpoint DIR");
        assertFalse(Files.exists(out), "no model written");
        assertEquals(List.of("iteration-000013", "iteration-000014"), TrainPredictCommandTest.list(other));
        r = resume(other.resolve("iteration-000013"), "14", "--checkpoint", tmp.resolve("branch").toString());
        assertEquals(0, r.code(), r.err());
        assertEquals(List.of("iteration-000014"), TrainPredictCommandTest.list(tmp.resolve("branch")));
        // one checkpoint outside a folder of checkpoints: refused the same way
        Path lone = tmp.resolve("lone");
        copyTree(other.resolve("iteration-000014"), lone);
        r = resume(lone, "15");
        TrainPredictCommandTest.assertUsageError(r, lone.toString(), "it is one checkpoint, not in a folder of checkpoints", "--checkpoint DIR");
        assertEquals(files(other.resolve("iteration-000014")), files(lone), "nothing written into it");
    }

    /**
     * The learner's own refusal to continue a checkpoint (its oracles described themselves otherwise:
     * here its manifest edited in a copy) is one error line naming the checkpoint folder, exit 2,
     * before any work.
     */
    @Test
    void aCheckpointOfOtherOraclesIsRefusedNamingTheFolder() throws IOException {
        Path ck = checkpoint(), edited = tmp.resolve("edited");
        copyTree(ck, edited);
        org.structlr.learn.CheckpointerAccess.rewriteManifest(edited.resolve("iteration-000002"), m -> {
            com.fasterxml.jackson.databind.node.ObjectNode o = (com.fasterxml.jackson.databind.node.ObjectNode) m.get("oracles");
            o.put("unary", o.path("unary").asText() + " (another tolerance)");
        });
        Path out = tmp.resolve("M");
        TrainPredictCommandTest.Run r = resume(edited, "3", "--output", out.toString());
        TrainPredictCommandTest.assertUsageError(r, "another tolerance");
        assertTrue(r.err().startsWith("error: " + edited + ": cannot resume: the state's unary oracle ran as \""), r.err());
        assertFalse(Files.exists(out), "no model written");
        assertEquals(List.of("iteration-000001", "iteration-000002"), TrainPredictCommandTest.list(edited), "no checkpoint written");
    }

    private static TrainPredictCommandTest.Run resume(Path from, String iterations, String... more) {
        List<String> a = new ArrayList<>(List.of("train", "--resume", from.toString(), "--data", data.toString(), "--iterations", iterations, "--quiet"));
        a.addAll(List.of(more));
        return TrainPredictCommandTest.run(a.toArray(String[]::new));
    }

    /** A copy of the folder {@code from} as {@code to}: the same checkpoint state twice (a resume writes into the folder it resumed from). */
    static void copyTree(Path from, Path to) throws IOException {
        try (Stream<Path> s = Files.walk(from)) {
            for (Path p : s.toList()) {
                Path q = to.resolve(from.relativize(p).toString());
                if (Files.isDirectory(p)) Files.createDirectories(q);
                else Files.copy(p, q);
            }
        }
    }

    static final String MESSAGES = "messages.npz";

    static byte[] flip(byte[] orig) {
        byte[] bad = orig.clone();
        bad[bad.length / 2] ^= 0x01;
        return bad;
    }

    @Test
    void otherDataOrKindsAreRefused() throws IOException {
        Path ck = checkpoint();
        Path other = tmp.resolve("other");
        new DenoisingGenerator().generateTo(other, 2, 2, 12, 12, 18);
        TrainPredictCommandTest.Run r = TrainPredictCommandTest.run("train", "--resume", ck.toString(), "--data", other.toString(), "--quiet");
        TrainPredictCommandTest.assertUsageError(r, other.toString(), "not the data set the checkpoint");
        r = TrainPredictCommandTest.run("train", "--resume", ck.toString(), "--data", data.toString(), "--unary", "mlp", "--quiet");
        TrainPredictCommandTest.assertUsageError(r, "--unary linear, not mlp");
        r = TrainPredictCommandTest.run("train", "--resume", ck.toString(), "--data", data.toString(), "--seed", "4", "--quiet");
        TrainPredictCommandTest.assertUsageError(r, "--seed 3, not 4");
        r = TrainPredictCommandTest.run("train", "--resume", tmp.resolve("nowhere").toString(), "--data", data.toString(), "--quiet");
        TrainPredictCommandTest.assertUsageError(r, tmp.resolve("nowhere").toString(), "no such checkpoint folder");
        // a folder that is not ours is never written into
        Path photos = tmp.resolve("photos");
        Files.createDirectories(photos);
        Files.writeString(photos.resolve("keep.txt"), "mine");
        r = TrainPredictCommandTest.run(args("train", "--data", data.toString(), "--iterations", "1", "--checkpoint", photos.toString()));
        TrainPredictCommandTest.assertUsageError(r, photos.toString(), "not a structlr checkpoint");
        assertEquals(List.of(Path.of("keep.txt")), files(photos));
    }

    /**
     * Class options travel with the checkpoint: a resume without them runs the checkpoint's values
     * (the same curve and model as an uninterrupted run with them), the same value given again is
     * accepted, a different one is refused naming both; the model records the oracles' descriptions.
     */
    @Test
    void classOptionsAreRecordedAdoptedAndADifferentOneRefused() throws IOException {
        Path ck = tmp.resolve("ck-options");
        String[] opts = {"--unary", "mlp", "--pairwise", "linear", "--unary-option", "hidden=3", "--unary-option", "epochs=2"};
        List<String> first = new ArrayList<>(List.of("train", "--data", data.toString(), "--iterations", "2", "--checkpoint", ck.toString(),
                "--checkpoint-every", "1"));
        first.addAll(List.of(opts));
        TrainPredictCommandTest.Run r = TrainPredictCommandTest.run(args(first.toArray(String[]::new)));
        assertEquals(0, r.code(), r.err());
        Checkpoint cp = Checkpoint.load(ck);
        assertEquals(3, cp.unary().options().values().get("hidden"));
        assertEquals(2, cp.unary().options().values().get("epochs"));
        assertEquals("linear", cp.pairKind());

        r = TrainPredictCommandTest.run("train", "--resume", ck.toString(), "--data", data.toString(), "--unary-option", "hidden=4", "--quiet");
        TrainPredictCommandTest.assertUsageError(r, ck.toString(), "--unary-option hidden=3, not hidden=4");

        Path resumed = tmp.resolve("resumed"), plain = tmp.resolve("plain");
        r = TrainPredictCommandTest.run("train", "--resume", ck.toString(), "--data", data.toString(), "--iterations", "3",
                "--unary-option", "epochs=2", "--quiet", "--output", resumed.resolve("model").toString(), "--report", resumed.resolve("r.json").toString());
        assertEquals(0, r.code(), r.err());
        List<String> whole = new ArrayList<>(List.of("train", "--data", data.toString(), "--iterations", "3",
                "--output", plain.resolve("model").toString(), "--report", plain.resolve("r.json").toString()));
        whole.addAll(List.of(opts));
        r = TrainPredictCommandTest.run(args(whole.toArray(String[]::new)));
        assertEquals(0, r.code(), r.err());
        TrainPredictCommandTest.assertSameCurve(plain.resolve("r.json"), resumed.resolve("r.json"), 3, "hidden=3 adopted from the checkpoint");
        CrfModel mb = CrfModel.load(resumed.resolve("model"));
        assertEquals(java.util.Map.of("hidden", 3, "epochs", 2), subset((java.util.Map<?, ?>) mb.settings().get("unaryOptions"), "hidden", "epochs"));
        Object described = ((java.util.Map<?, ?>) mb.provenance().get("oracles")).get("unary");
        assertTrue(String.valueOf(described).startsWith("mlp (3 tanh") && String.valueOf(described).contains("2 epochs per fit"), String.valueOf(described));
        assertArrayEquals(predict(CrfModel.load(plain.resolve("model"))), predict(mb), "predicted test labels");
    }

    private static java.util.Map<String, Object> subset(java.util.Map<?, ?> m, String... keys) {
        java.util.Map<String, Object> out = new java.util.LinkedHashMap<>();
        for (String k : keys) out.put(k, ((Number) m.get(k)).intValue());
        return out;
    }

    /**
     * A checkpoint folder without its manifest (a copy or a save cut short) is a damaged checkpoint:
     * the resume says so in one warning and continues from the one before; the incomplete folder is
     * replaced when the run saves that iteration again, or deleted once the run's interval passes it
     * (never kept as the one to fall back on). Before, the run failed on reaching that iteration.
     */
    @Test
    void aCheckpointWithoutItsManifestIsReplacedOrDeleted() throws IOException {
        Path ck = checkpoint(), copy = tmp.resolve("copy");
        Path manifest = ck.resolve("iteration-000002").resolve(Checkpoint.MANIFEST);
        Files.delete(manifest);
        copyTree(ck, copy);
        // the run's interval, 1: iteration 2 redone into the folder in place of the incomplete one
        TrainPredictCommandTest.Run r = resume(ck, "3");
        assertEquals(0, r.code(), r.err());
        assertTrue(r.err().startsWith("warning: " + manifest + ": missing: the checkpoint is incomplete"), r.err());
        assertTrue(r.err().contains("resuming from the one before, " + ck.resolve("iteration-000001")), r.err());
        assertEquals(1, r.err().lines().count(), r.err());
        assertEquals(List.of("iteration-000002", "iteration-000003"), TrainPredictCommandTest.list(ck));
        assertEquals(2, Checkpoint.load(ck.resolve("iteration-000002")).state().iteration(), "the redone iteration 2, complete");
        // every 3rd: nothing saved at 2; the incomplete one is deleted, the one resumed from kept to fall back on
        r = resume(copy, "3", "--checkpoint-every", "3");
        assertEquals(0, r.code(), r.err());
        assertEquals(List.of("iteration-000001", "iteration-000003"), TrainPredictCommandTest.list(copy));
        assertEquals(3, Checkpoint.load(copy).state().iteration());
    }

    /**
     * A new run into a folder of an earlier run's checkpoints replaces them once its first is in
     * place, newer iterations included, so a resume continues the new run. (Before, the two newest
     * were kept whichever run wrote them: the new run's checkpoints were deleted as soon as written
     * and a resume silently continued the earlier run.)
     */
    @Test
    void aNewRunReplacesTheCheckpointsOfAnEarlierRun() throws IOException {
        Path ck = tmp.resolve("ck");
        TrainPredictCommandTest.Run r = TrainPredictCommandTest.run(args("train", "--data", data.toString(), "--iterations", "4",
                "--checkpoint", ck.toString(), "--checkpoint-every", "2"));
        assertEquals(0, r.code(), r.err());
        assertEquals(List.of("iteration-000002", "iteration-000004"), TrainPredictCommandTest.list(ck));
        r = TrainPredictCommandTest.run(args("train", "--data", data.toString(), "--iterations", "3", "--checkpoint", ck.toString(),
                "--checkpoint-every", "1"));
        assertEquals(0, r.code(), r.err());
        assertEquals(List.of("iteration-000002", "iteration-000003"), TrainPredictCommandTest.list(ck));
        Checkpoint c = Checkpoint.load(ck);
        assertEquals(3, c.state().iteration());
        assertEquals(3, c.settings().iterations(), "the new run's");
        assertEquals(3, Checkpoint.load(ck.resolve("iteration-000002")).settings().iterations(), "the one before is the new run's too");
        // a resume redirected into a folder of another run's checkpoints replaces them the same way
        Path other = tmp.resolve("other");
        r = TrainPredictCommandTest.run(args("train", "--data", data.toString(), "--iterations", "6", "--checkpoint", other.toString(),
                "--checkpoint-every", "5"));
        assertEquals(0, r.code(), r.err());
        assertEquals(List.of("iteration-000005", "iteration-000006"), TrainPredictCommandTest.list(other));
        r = resume(ck, "4", "--checkpoint", other.toString());
        assertEquals(0, r.code(), r.err());
        assertEquals(List.of("iteration-000004"), TrainPredictCommandTest.list(other));
        assertEquals(List.of("iteration-000002", "iteration-000003"), TrainPredictCommandTest.list(ck), "the folder resumed from is left as it was");
    }

    /** A save killed part way leaves a temporary sibling: the next run into the same folder deletes it and goes on. */
    @Test
    void leftoversOfAKilledSaveAreCleanedUp() throws IOException {
        Path ck = checkpoint();
        Files.createDirectories(ck.resolve(".iteration-000003.k2x9q7.tmp").resolve("unary"));   // AtomicFiles.replaceFolder's name
        Files.createDirectories(ck.resolve(".iteration-000003.tmp-5f0c1a"));                     // HadoopFiles.publish's
        assertTrue(org.structlr.learn.CheckpointerAccess.isLeftover(".iteration-000003.k2x9q7.tmp"));
        TrainPredictCommandTest.Run r = TrainPredictCommandTest.run("train", "--resume", ck.toString(), "--data", data.toString(),
                "--iterations", "3", "--quiet", "--checkpoint", ck.toString());
        assertEquals(0, r.code(), r.err());
        assertEquals(List.of("iteration-000002", "iteration-000003"), TrainPredictCommandTest.list(ck));
    }
}
