package org.structlr.learn;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.structlr.data.BadInputException;
import org.structlr.data.Dataset;
import org.structlr.data.DenoisingGenerator;
import org.structlr.inference.engines.EngineChoice;
import org.structlr.model.CrfModel;
import org.structlr.model.Predictor;
import org.structlr.model.RegionLayout;
import org.structlr.oracle.FunctionSpec;

/**
 * Checkpoints of a run with region factors: saved after iteration 2 by a {@link Checkpointer}, loaded and
 * continued to iteration 4, the run equals the uninterrupted one exactly (every curve row, every test
 * marginal), on both engines that hold regions (the loop engine keeps doubles: its state carries them
 * bit for bit); the checkpoint records the layout, and continuing it with another layout is refused.
 */
class RegionResumeTest {
    @TempDir
    Path tmp;

    static Dataset data;

    @BeforeAll
    static void data() {
        data = new DenoisingGenerator().generate(2, 2, 7, 6, 5);
    }

    static Training.Outcome train(RegionLayout regions, LearnSettings s, RowWeights w, LearnerState from, StateSink sink) {
        return Training.train(data, FunctionSpec.unary("linear"), FunctionSpec.pairwise("linear"), regions, s, w, 1, LearnListener.NONE, from, sink);
    }

    @ParameterizedTest(name = "{0} on {1}")
    @CsvSource({"patches2x2,loop", "patches2x2,nd4j", "triplets,loop", "triplets,nd4j"})
    void aResumedRunEqualsTheUninterruptedOne(String layout, String engine) {
        RegionLayout regions = RegionLayout.of(layout);
        LearnSettings four = new LearnSettings(4, 0.1, 3, 3, 1, 7L).withEngine(EngineChoice.parse(engine)), two = four.withIterations(2);
        Training.Outcome plain = train(regions, four, RowWeights.NONE, null, StateSink.NONE);
        Path ck = tmp.resolve("ck");
        train(regions, two, RowWeights.NONE, null, new Checkpointer(ck, 1, FunctionSpec.unary("linear"), FunctionSpec.pairwise("linear"), two, 1,
                DataHashes.dataHash(data), null));
        Checkpoint cp = Checkpoint.load(ck);
        assertEquals(2, cp.state().iteration());
        assertEquals(regions, cp.regions());
        assertEquals(regions.numTypes(), cp.state().regions().size());
        assertEquals(1 + cp.state().pair().size() + regions.numTypes(), cp.state().oracles().size());
        Training.Outcome resumed = train(regions, four, RowWeights.NONE, cp.state(), StateSink.NONE);
        assertSameRun(plain, resumed, layout + " on " + engine + ", resumed after iteration 2");
        assertEquals(2, ((Number) resumed.model().provenance().get("resumedAfterIteration")).intValue());

        // another layout, or none, with the state: refused before any work
        RegionLayout other = regions == RegionLayout.PATCHES_2X2 ? RegionLayout.TRIPLETS : RegionLayout.PATCHES_2X2;
        BadInputException x = assertThrows(BadInputException.class, () -> train(other, four, RowWeights.NONE, cp.state(), StateSink.NONE));
        assertTrue(x.getMessage().startsWith("cannot resume: "), x.getMessage());
        x = assertThrows(BadInputException.class, () -> train(RegionLayout.NONE, four, RowWeights.NONE, cp.state(), StateSink.NONE));
        assertTrue(x.getMessage().contains("the state has " + regions.numTypes() + " region functions, this run 0 region types"), x.getMessage());
    }

    /** Every curve row exactly, and every test marginal of the trained models bit for bit. */
    static void assertSameRun(Training.Outcome a, Training.Outcome b, String what) {
        CheckpointResumeTest.assertSameCurve(a, b, what);
        List<Predictor.Prediction> pa = predict(a.model()), pb = predict(b.model());
        for (int k = 0; k < pa.size(); k++) {
            assertArrayEquals(pa.get(k).marginals().reshape(-1).toFloatVector(), pb.get(k).marginals().reshape(-1).toFloatVector(),
                    what + ": marginals of test example " + k);
        }
    }

    static List<Predictor.Prediction> predict(CrfModel m) {
        return Predictor.predictEach(m, data.test(), 50, 1e-6);
    }
}
