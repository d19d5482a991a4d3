package org.structlr.learn;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.structlr.data.BadInputException;
import org.structlr.data.Dataset;
import org.structlr.data.DenoisingGenerator;
import org.structlr.data.Example;
import org.structlr.model.CrfModel;

/**
 * Learning with void labels in the simple form (learn.VoidRows, --void-form simple): a void variable adds no term of
 * its own, so its features and the features of the edges touching it change nothing; the objective
 * still never rises; whole-image functions train on the labelled pixels.
 */
class VoidLabelsLearnerTest {

    /** {@code e} with the variables {@code v % 4 == 1} void, and (when {@code scramble}) their features and their edges' features random. */
    static Example partial(Example e, boolean scramble, long seed) {
        Random rnd = new Random(seed);
        int[] y = e.labels();
        boolean[] isVoid = new boolean[y.length];
        for (int v = 0; v < y.length; v++) if (v % 4 == 1) {
            y[v] = Example.VOID;
            isVoid[v] = true;
        }
        float[] u = e.unary(), p = e.pairwise();
        if (scramble) {
            for (int v = 0; v < y.length; v++) if (isVoid[v]) for (int d = 1; d < e.unaryDim(); d++) u[v * e.unaryDim() + d] = rnd.nextFloat() * 5;
            for (int k = 0; k < e.numEdges(); k++) {
                if (isVoid[e.edgeFrom(k)] || isVoid[e.edgeTo(k)]) for (int d = 1; d < e.pairDim(); d++) p[k * e.pairDim() + d] = rnd.nextFloat() * 5;
            }
        }
        Example.Builder b = Example.builder(u, e.unaryDim(), e.edges(), p, e.pairDim()).labels(y).numLabels(2);
        e.shape().ifPresent(s -> b.shape(s[0], s[1]));
        e.edgeTypes().ifPresent(b::edgeType);
        return b.build();
    }

    static Dataset partial(Dataset d, boolean scramble) {
        List<Example> train = new ArrayList<>();
        for (int k = 0; k < d.train().size(); k++) train.add(partial(d.train().get(k), scramble, k));
        return Dataset.of(train, d.test(), List.of());
    }

    static double[] scores(CrfModel m, INDArray unaryRows, INDArray pairRows) {
        double[] u = m.unary().scores(unaryRows).castTo(DataType.DOUBLE).data().asDouble();
        double[] p = m.pair().get(0).scores(pairRows).castTo(DataType.DOUBLE).data().asDouble();
        double[] out = new double[u.length + p.length];
        System.arraycopy(u, 0, out, 0, u.length);
        System.arraycopy(p, 0, out, u.length, p.length);
        return out;
    }

    @Test
    void voidVariablesFeaturesChangeNothing() {
        Dataset d = new DenoisingGenerator().generate(3, 2, 16, 16, 5);
        LearnSettings s = new LearnSettings(4, 0.1, 5, 5, 1, 3, "paper").withVoidForm(VoidForm.SIMPLE);
        for (String kind : List.of("linear", "mlp", "boost")) {
            Training.Outcome a = Training.train(partial(d, false), kind, "linear", s, 1, LearnListener.NONE);
            Training.Outcome b = Training.train(partial(d, true), kind, "linear", s, 1, LearnListener.NONE);
            for (int k = 0; k < a.curve().size(); k++) {
                assertEquals(a.curve().get(k).objective(), b.curve().get(k).objective(), 0.0, kind + ": the same objective, bit for bit");
                assertEquals(a.curve().get(k).testError(), b.curve().get(k).testError(), 0.0, kind);
            }
            INDArray probeU = Nd4j.rand(DataType.FLOAT, 20, 2), probeP = Nd4j.rand(DataType.FLOAT, 20, 2);
            assertArrayEquals(scores(a.model(), probeU, probeP), scores(b.model(), probeU, probeP), 0.0, kind + ": the same functions");
        }
        // and the void variables do matter once they have labels (the test can fail)
        Training.Outcome full = Training.train(d, "linear", "linear", s, 1, LearnListener.NONE);
        Training.Outcome part = Training.train(partial(d, false), "linear", "linear", s, 1, LearnListener.NONE);
        assertTrue(full.curve().get(3).objective() != part.curve().get(3).objective());
    }

    @Test
    void objectiveNeverRisesWithVoid() {
        Dataset d = partial(new DenoisingGenerator().generate(3, 2, 20, 20, 11), false);
        for (String schedule : List.of("paper", "adaptive")) {
            List<IterationRecord> c = Training.train(d, "linear", "linear", new LearnSettings(8, 0.1, 5, 0, 1, 3, schedule).withVoidForm(VoidForm.SIMPLE), 1,
                    LearnListener.NONE).curve();
            for (int k = 1; k < c.size(); k++) {
                double prev = c.get(k - 1).objective(), cur = c.get(k).objective();
                assertTrue(cur <= prev + 1e-5 * Math.abs(prev), schedule + ": objective rose at iteration " + c.get(k).iteration() + ": " + prev + " -> " + cur);
            }
            assertTrue(c.get(c.size() - 1).objective() < c.get(0).objective() - 1e-3);
        }
    }

    @Test
    void wholeImageFunctionsTrainOnTheLabelledPixels() {
        Dataset d = partial(new DenoisingGenerator().generate(3, 2, 12, 12, 2), false);
        for (VoidForm form : VoidForm.values()) {   // clamped: soft targets on the void pixels too
            Training.Outcome o = Training.train(d, "fcn", "linear", new LearnSettings(2, 0.1, 5, 5, 1, 3, "paper").withVoidForm(form), 1, LearnListener.NONE);
            IterationRecord last = o.curve().get(o.curve().size() - 1);
            assertTrue(Double.isFinite(last.objective()) && last.trainError() < 0.5, form + ": fcn learned from the labelled pixels: " + last);
        }
    }

    @Test
    void extrapolationRefusesVoidForNow() {
        Dataset d = partial(new DenoisingGenerator().generate(2, 1, 8, 8, 2), false);
        BadInputException e = assertThrows(BadInputException.class,
                () -> Training.train(d, "linear", "linear", new LearnSettings(2, 0.1, 5, 0, 1, 3, "extrapolate"), 1, LearnListener.NONE));
        assertTrue(e.getMessage().contains("void labels") && e.getMessage().contains("--schedule paper"), e.getMessage());
    }
}
