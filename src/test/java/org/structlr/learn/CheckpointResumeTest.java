package org.structlr.learn;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.structlr.data.Dataset;
import org.structlr.data.DenoisingGenerator;
import org.structlr.model.CrfModel;
import org.structlr.model.ExampleBatch;
import org.structlr.model.Predictor;

/**
 * Determinism and exact continuation, in process: for every function class (each as unary and as
 * pairwise kind), two runs with one seed give the same numbers and predictions, and a run saved to
 * disk after iteration 2 ({@link Checkpoint}), loaded and continued gives them too.
 */
class CheckpointResumeTest {
    @TempDir
    Path tmp;

    static Dataset data;
    static final LearnSettings SETTINGS = new LearnSettings(4, 0.1, 3, 3, 7);

    @BeforeAll
    static void data() {
        data = new DenoisingGenerator().generate(2, 2, 12, 12, 11);
    }

    /** Saves the state after one given iteration into a folder. */
    static final class SaveAt implements StateSink {
        final int at;
        final Path dir;
        final String u, p;
        SaveAt(int at, Path dir, String u, String p) { this.at = at; this.dir = dir; this.u = u; this.p = p; }
        @Override public boolean wants(int iteration, int total) { return iteration == at; }
        @Override public void accept(LearnerState s) throws IOException {
            new Checkpoint(u, p, SETTINGS, 1, DataHashes.dataHash(data), s).save(dir);
        }
    }

    @ParameterizedTest(name = "{0}/{1}")
    @CsvSource({"linear,linear", "mlp,boost", "boost,mlp", "const,zero", "zero,const"})
    void sameSeedSameNumbersAndResumeEqualsUninterrupted(String unary, String pair) {
        String u = org.structlr.oracle.FunctionClasses.canonical(unary), p = org.structlr.oracle.FunctionClasses.canonical(pair);
        Training.Outcome plain = Training.train(data, u, p, SETTINGS, 1, LearnListener.NONE);
        Path ck = tmp.resolve("ck");
        Training.Outcome again = Training.train(data, u, p, SETTINGS, 1, LearnListener.NONE, null, new SaveAt(2, ck, u, p));
        assertSame(plain, again, "second run, same seed");

        Checkpoint cp = Checkpoint.load(ck);
        assertEquals(2, cp.state().iteration());
        assertEquals(u, cp.unaryKind());
        assertEquals(p, cp.pairKind());
        assertEquals(SETTINGS, cp.settings());
        assertNotNull(cp.state().trainEval());
        assertNotNull(cp.state().testEval());
        Training.Outcome resumed = Training.train(data, u, p, SETTINGS, 1, LearnListener.NONE, cp.state(), StateSink.NONE);
        assertSame(plain, resumed, "resumed after iteration 2");
    }

    /** Under the extrapolating schedule too (its step ends each iteration): resumed after iteration 2 = uninterrupted. */
    @org.junit.jupiter.api.Test
    void extrapolatingScheduleResumesExactly() throws IOException {
        LearnSettings s = SETTINGS.withSchedule(org.structlr.schedule.Schedules.EXTRAPOLATE);
        Training.Outcome plain = Training.train(data, "linear", "linear", s, 1, LearnListener.NONE);
        Path ck = tmp.resolve("ck-extrapolate");
        Training.train(data, "linear", "linear", s, 1, LearnListener.NONE, null, new StateSink() {
            @Override public boolean wants(int iteration, int total) { return iteration == 2; }
            @Override public void accept(LearnerState st) throws IOException {
                new Checkpoint("linear", "linear", s, 1, DataHashes.dataHash(data), st).save(ck);
            }
        });
        Checkpoint cp = Checkpoint.load(ck);
        assertEquals(s, cp.settings());
        assertSame(plain, Training.train(data, "linear", "linear", s, 1, LearnListener.NONE, cp.state(), StateSink.NONE),
                "extrapolate, resumed after iteration 2");
    }

    /**
     * Evaluation every 2nd iteration: curve rows at 1, 2, 4 and 5 (the first, every 2nd, the last),
     * whose objectives equal the every-iteration run's (evaluation never changes learning), and a run saved after the unevaluated iteration 3 resumes to the same rows.
     */
    @ParameterizedTest(name = "{0}/{1}")
    @CsvSource({"linear,linear", "mlp,const"})
    void evaluationEveryKthIterationLeavesLearningAloneAndResumes(String unary, String pair) {
        String u = unary, p = pair;
        LearnSettings every = new LearnSettings(5, 0.1, 3, 3, 1, 7), sparse = new LearnSettings(5, 0.1, 3, 3, 2, 7);
        Training.Outcome all = Training.train(data, u, p, every, 1, LearnListener.NONE);
        List<Integer> told = new java.util.ArrayList<>(), progress = new java.util.ArrayList<>();
        LearnListener listener = new LearnListener() {
            @Override public void onIteration(IterationRecord r, int total) { told.add(r.iteration()); }
            @Override public void onProgress(int it, int total) { progress.add(it); }
        };
        Path ck = tmp.resolve("ck-sparse");
        StateSink at3 = new StateSink() {
            @Override public boolean wants(int iteration, int total) { return iteration == 3; }
            @Override public void accept(LearnerState s) throws IOException {
                new Checkpoint(u, p, sparse, 1, DataHashes.dataHash(data), s).save(ck);
            }
        };
        Training.Outcome some = Training.train(data, u, p, sparse, 1, listener, null, at3);
        assertEquals(List.of(1, 2, 4, 5), some.curve().stream().map(IterationRecord::iteration).toList());
        assertEquals(List.of(1, 2, 4, 5), told);
        assertEquals(List.of(1, 2, 3, 4, 5), progress);
        for (IterationRecord r : some.curve()) {
            IterationRecord full = all.curve().get(r.iteration() - 1);
            assertEquals(full.objective(), r.objective(), 0.0, "objective of iteration " + r.iteration());
            // errors come from warm-started evaluation engines, so they agree while the schedules agree
            if (r.iteration() <= 2) assertEquals(full.trainError(), r.trainError(), 0.0, "train error of iteration " + r.iteration());
        }
        assertArrayEquals(predict(all.model()), predict(some.model()), "predictions with and without the evaluations between");

        Checkpoint cp = Checkpoint.load(ck);
        assertEquals(3, cp.state().iteration());
        assertEquals(2, cp.settings().evalEvery());
        assertEquals(List.of(1, 2), cp.state().curve().stream().map(IterationRecord::iteration).toList());
        Training.Outcome resumed = Training.train(data, u, p, sparse, 1, LearnListener.NONE, cp.state(), StateSink.NONE);
        assertSame(some, resumed, "resumed after the unevaluated iteration 3");
    }

    /**
     * A format-1 checkpoint (messages only, no engine states, no evalEvery, no total seconds), made
     * here by rewriting a format-2 one as the previous build wrote it, still loads and, through the
     * messages, resumes to the uninterrupted run's numbers: exact for engines that store messages in
     * the units of the potentials or were re-seated (every engine of format 1's time), to float
     * rounding of the messages for the fused engine, which stores them in units of eps and sums its
     * two-label dual in float lanes (objective within 1e-7 relative, same errors).
     */
    @org.junit.jupiter.api.Test
    void formatOneCheckpointStillLoadsAndResumes() throws IOException {
        String u = "linear", p = "linear";
        Path ck = tmp.resolve("ck-v1");
        Training.Outcome plain = Training.train(data, u, p, SETTINGS, 1, LearnListener.NONE, null, new SaveAt(2, ck, u, p));
        java.nio.file.Files.delete(ck.resolve(Checkpoint.STATE));
        CheckpointerAccess.rewriteManifest(ck, m -> {
            m.put("version", 1);
            m.remove("engines");
            ((com.fasterxml.jackson.databind.node.ObjectNode) m.get("settings")).remove("evalEvery");
            ((com.fasterxml.jackson.databind.node.ObjectNode) m.get("seconds")).remove("total");
            ((com.fasterxml.jackson.databind.node.ObjectNode) m.get("sha256")).remove(Checkpoint.STATE);
        });

        Checkpoint cp = Checkpoint.load(ck);
        assertEquals(2, cp.state().iteration());
        assertEquals(1, cp.settings().evalEvery());
        org.junit.jupiter.api.Assertions.assertNull(cp.state().train().state(), "format 1 has no engine state");
        Training.Outcome resumed = Training.train(data, u, p, SETTINGS, 1, LearnListener.NONE, cp.state(), StateSink.NONE);
        assertClose(plain, resumed, "resumed from format 1 after iteration 2");
    }

    /**
     * Checkpoints record the interval of the run that wrote them (a resume goes on checkpointing as
     * often); one written before the interval was recorded (rewritten here so) takes the gap between
     * its folder's two newest checkpoints, and loaded on its own, none (0).
     */
    @org.junit.jupiter.api.Test
    void checkpointsRecordTheirIntervalAndOlderOnesTakeTheirFoldersGap() throws IOException {
        Path ck = tmp.resolve("ck-interval");
        Training.train(data, "linear", "linear", SETTINGS, 1, LearnListener.NONE, null,
                new Checkpointer(ck, 2, "linear", "linear", SETTINGS, 1, DataHashes.dataHash(data)));
        assertEquals(List.of("iteration-000002", "iteration-000004"), Checkpointer.newestFirst(ck).stream().map(d -> d.getFileName().toString()).sorted().toList());
        assertEquals(2, Checkpoint.load(ck).interval());
        assertEquals(2, Checkpoint.load(ck.resolve("iteration-000002")).interval(), "recorded, not the folder's gap");
        Path newest = ck.resolve("iteration-000004");
        CheckpointerAccess.rewriteManifest(newest, m -> {
            assertEquals(2, m.path("checkpointEvery").asInt());
            m.remove("checkpointEvery");
        });
        assertEquals(4, Checkpoint.load(ck).state().iteration());
        assertEquals(2, Checkpoint.load(ck).interval(), "the gap between iterations 2 and 4");
        assertEquals(0, Checkpoint.load(newest).interval(), "on its own: not known");
    }

    /**
     * A checkpoint records what the oracles said of themselves (Oracle.describe, as model.json does),
     * and a resume whose oracles say otherwise (a setting that changes a fit differs) is refused,
     * naming both; the state with the recorded descriptions resumes.
     */
    @org.junit.jupiter.api.Test
    @SuppressWarnings("unchecked")
    void checkpointRecordsTheOraclesAndResumeRefusesOthers() {
        Path ck = tmp.resolve("ck-oracles");
        Training.Outcome plain = Training.train(data, "linear", "boost", SETTINGS, 1, LearnListener.NONE, null, new SaveAt(2, ck, "linear", "boost"));
        java.util.Map<String, Object> recorded = (java.util.Map<String, Object>) plain.model().provenance().get("oracles");
        List<String> want = new java.util.ArrayList<>();
        want.add((String) recorded.get("unary"));
        want.addAll((List<String>) recorded.get("pairwise"));
        LearnerState s = Checkpoint.load(ck).state();
        assertEquals(want, s.oracles(), "the checkpoint's oracles");
        assertEquals(1 + data.numPairTypes(), want.size());
        assertSame(plain, Training.train(data, "linear", "boost", SETTINGS, 1, LearnListener.NONE, s, StateSink.NONE), "resumed with the same oracles");

        String other = want.get(1).replace("boost", "boost-otherwise");
        org.junit.jupiter.api.Assertions.assertNotEquals(want.get(1), other);
        List<String> otherwise = new java.util.ArrayList<>(want);
        otherwise.set(1, other);
        LearnerState changed = new LearnerState(s.iteration(), s.unary(), s.pair(), s.train(), s.trainEval(), s.testEval(), s.curve(),
                s.seconds(), s.fitSeconds(), s.passingSeconds(), s.evalSeconds(), otherwise);
        org.structlr.data.BadInputException e = org.junit.jupiter.api.Assertions.assertThrows(org.structlr.data.BadInputException.class,
                () -> Training.train(data, "linear", "boost", SETTINGS, 1, LearnListener.NONE, changed, StateSink.NONE));
        org.junit.jupiter.api.Assertions.assertTrue(e.getMessage().contains("pairwise type 0") && e.getMessage().contains(other)
                && e.getMessage().contains(want.get(1)), e.getMessage());
        // another thread count is not another setting (--resume may change --threads)
        org.junit.jupiter.api.Assertions.assertTrue(want.get(1).contains("1 threads"), want.get(1));
        assertEquals(AlternatingLearner.withoutThreads(want.get(1)), AlternatingLearner.withoutThreads(want.get(1).replace("1 threads", "2 threads")));
        org.junit.jupiter.api.Assertions.assertNotEquals(AlternatingLearner.withoutThreads(want.get(1)), AlternatingLearner.withoutThreads(other));
    }

    /** XGBoost with two threads is as deterministic as with one. */
    @org.junit.jupiter.api.Test
    void boostWithTwoThreadsIsDeterministic() {
        Training.Outcome a = Training.train(data, "boost", "boost", SETTINGS, 2, LearnListener.NONE);
        Training.Outcome b = Training.train(data, "boost", "boost", SETTINGS, 2, LearnListener.NONE);
        assertSame(a, b, "two threads");
    }

    /** The seed reaches the MLP (initial weights, shuffling): another seed, another curve. */
    @org.junit.jupiter.api.Test
    void seedReachesTheMlp() {
        LearnSettings other = new LearnSettings(SETTINGS.iterations(), SETTINGS.eps(), SETTINGS.sweepsPerFit(), SETTINGS.evalSweeps(), 8);
        double a = Training.train(data, "mlp", "zero", SETTINGS, 1, LearnListener.NONE).curve().get(0).objective();
        double b = Training.train(data, "mlp", "zero", other, 1, LearnListener.NONE).curve().get(0).objective();
        org.junit.jupiter.api.Assertions.assertNotEquals(a, b);
    }

    /**
     * As {@link #assertSame} with the objectives within 1e-7 relative (a resume through float
     * messages: the fused engine's float-lane dual turns their last-bit differences into about 4e-8).
     */
    static void assertClose(Training.Outcome a, Training.Outcome b, String what) {
        List<IterationRecord> ca = a.curve(), cb = b.curve();
        assertEquals(ca.size(), cb.size(), what);
        for (int k = 0; k < ca.size(); k++) {
            assertEquals(ca.get(k).objective(), cb.get(k).objective(), 1e-7 * Math.abs(ca.get(k).objective()), what + ": objective of iteration " + (k + 1));
            assertEquals(ca.get(k).testError(), cb.get(k).testError(), 0.0, what + ": test error of iteration " + (k + 1));
        }
    }

    /** The same curve to the last bit and the same predicted test labels. */
    static void assertSame(Training.Outcome a, Training.Outcome b, String what) {
        assertSameCurve(a, b, what);
        assertArrayEquals(predict(a.model()), predict(b.model()), what + ": predicted test labels");
    }

    /** Every curve row's iteration, objective, train and test error equal to the last bit. */
    static void assertSameCurve(Training.Outcome a, Training.Outcome b, String what) {
        List<IterationRecord> ca = a.curve(), cb = b.curve();
        assertEquals(ca.size(), cb.size(), what);
        for (int k = 0; k < ca.size(); k++) {
            assertEquals(ca.get(k).iteration(), cb.get(k).iteration(), what);
            assertEquals(ca.get(k).objective(), cb.get(k).objective(), 0.0, what + ": objective of iteration " + (k + 1));
            assertEquals(ca.get(k).trainError(), cb.get(k).trainError(), 0.0, what + ": train error of iteration " + (k + 1));
            assertEquals(ca.get(k).testError(), cb.get(k).testError(), 0.0, what + ": test error of iteration " + (k + 1));
        }
    }

    static int[] predict(CrfModel m) {
        ExampleBatch b = new ExampleBatch(data.test(), m.numLabels(), m.pairTypes());
        return Predictor.predict(m, b, Predictor.defaultStop(b, 200, 1e-6)).labels();
    }
}
