package org.structlr.learn;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.structlr.data.Dataset;
import org.structlr.data.DenoisingGenerator;
import org.structlr.model.CrfModel;
import org.structlr.model.ExampleBatch;
import org.structlr.model.Predictor;

class LearnerTest {
    static Dataset data;
    static double unaryOnlyError;

    @BeforeAll
    static void setUp() {
        data = new DenoisingGenerator().generate(4, 4, 24, 24, 7);
        Training.Outcome u = Training.train(data, "linear", "zero", settings(8), 1, LearnListener.NONE);
        unaryOnlyError = last(u).testError();
    }

    static LearnSettings settings(int iterations) {
        return new LearnSettings(iterations, 0.1, 25, 50, 3);
    }

    static IterationRecord last(Training.Outcome o) {
        return o.curve().get(o.curve().size() - 1);
    }

    @ParameterizedTest
    @ValueSource(strings = {"const", "linear", "mlp", "boost"})
    void everyPairwiseClassBeatsUnaryOnly(String pairKind) {
        Training.Outcome o = Training.train(data, "linear", pairKind, settings(8), 1, LearnListener.NONE);
        double err = last(o).testError();
        assertTrue(err < unaryOnlyError, pairKind + ": test error " + err + " not below unary-only " + unaryOnlyError);
    }

    @Test
    void saveReloadPredictGivesIdenticalLabels(@TempDir Path dir) throws Exception {
        Training.Outcome o = Training.train(data, "linear", "linear", settings(3), 1, LearnListener.NONE);
        o.model().save(dir.resolve("m"));
        CrfModel back = CrfModel.load(dir.resolve("m"));
        ExampleBatch b = new ExampleBatch(data.test(), 2, back.pairTypes());
        int[] a = Predictor.predict(o.model(), b, Predictor.defaultStop(b, 200, 1e-5)).labels();
        int[] r = Predictor.predict(back, b, Predictor.defaultStop(b, 200, 1e-5)).labels();
        assertArrayEquals(a, r);
        assertEquals(o.model().settings().get("unary"), back.settings().get("unary"));
    }

    /** Zero and constant functions read no features; the model still knows the data's widths. */
    @Test
    void featurelessClassesSaveAndPredict(@TempDir Path dir) throws Exception {
        Training.Outcome o = Training.train(data, "zero", "const", settings(1), 1, LearnListener.NONE);
        o.model().save(dir.resolve("m"));
        CrfModel back = CrfModel.load(dir.resolve("m"));
        assertEquals(data.unaryDim(), back.unaryFeatures());
        assertEquals(data.pairDim(), back.pairFeatures());
        ExampleBatch b = new ExampleBatch(data.test(), 2, back.pairTypes());
        int[] labels = Predictor.predict(back, b, Predictor.defaultStop(b, 50, 1e-5)).labels();
        assertEquals(b.graph().numVariables(), labels.length);
    }
}
