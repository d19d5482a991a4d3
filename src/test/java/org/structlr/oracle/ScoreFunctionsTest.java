package org.structlr.oracle;

import org.structlr.oracle.boost.BoostOracle;
import org.structlr.oracle.linear.ConstantOracle;
import org.structlr.oracle.linear.LinearOracle;
import org.structlr.oracle.linear.ZeroOracle;
import org.structlr.oracle.nn.MlpOracle;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;

class ScoreFunctionsTest {

    @Test
    void everyKindSavesAndLoadsToIdenticalScores(@TempDir Path tmp) throws Exception {
        for (DataType dt : new DataType[]{DataType.FLOAT, DataType.DOUBLE}) {
            BiasedLogisticProblem p = TestProblems.random(600, 3, 3, 1.0, 41, dt);
            INDArray other = TestProblems.random(50, 3, 3, 1.0, 42, dt).features();
            try (BoostOracle boost = new BoostOracle(1, 3)) {
                List<ScoreFunction> fs = List.of(
                        new ZeroOracle().fit(p, null),
                        new ConstantOracle().fit(p, null),
                        new LinearOracle().fit(p, null),
                        new MlpOracle(0.25, 8, 1, 100, 0.9, 5).fit(p, null),
                        boost.fit(p, boost.fit(p, null)));
                for (ScoreFunction f : fs) {
                    Path dir = tmp.resolve(dt + "-" + f.kind());
                    f.save(dir);
                    ScoreFunction g = ScoreFunctions.load(dir);
                    assertEquals(f.kind(), g.kind());
                    assertEquals(f.numClasses(), g.numClasses());
                    assertEquals(f.numFeatures(), g.numFeatures());
                    for (INDArray x : new INDArray[]{p.features(), other}) {
                        INDArray a = f.scores(x), b = g.scores(x);
                        assertEquals(x.dataType(), a.dataType(), f.kind());
                        assertEquals(0.0, TestProblems.maxAbsDiff(a, b), f.kind() + " " + dt);
                    }
                    if (!f.kind().equals("zero")) {
                        assertTrue(f.scores(p.features()).amaxNumber().doubleValue() > 1e-3, f.kind() + " is not trivial");
                    }
                }
            }
        }
    }

    @Test
    void loadRefusesUnknownKindsAndMissingFiles(@TempDir Path tmp) throws Exception {
        assertThrows(IOException.class, () -> ScoreFunctions.load(tmp.resolve("nothing")));
        Path d = Files.createDirectories(tmp.resolve("odd"));
        Files.writeString(d.resolve(ScoreFunctions.META_FILE), "{\"format\":1,\"kind\":\"forest\",\"numClasses\":2}");
        IOException e = assertThrows(IOException.class, () -> ScoreFunctions.load(d));
        assertTrue(e.getMessage().contains("forest"));
        Path m = Files.createDirectories(tmp.resolve("nomodel"));
        Files.writeString(m.resolve(ScoreFunctions.META_FILE), "{\"format\":1,\"kind\":\"linear\",\"numClasses\":2}");
        assertThrows(IOException.class, () -> ScoreFunctions.load(m));
    }

    @Test
    void problemValidationNamesTheProblem() {
        INDArray x = Nd4j.rand(DataType.FLOAT, 4, 2);
        INDArray b = Nd4j.zeros(DataType.FLOAT, 4, 3);
        new BiasedLogisticProblem(x, new int[]{0, 1, 2, 0}, b, 3);
        assertMessage("labels for", () -> new BiasedLogisticProblem(x, new int[]{0, 1, 2}, b, 3));
        assertMessage("outside 0..2", () -> new BiasedLogisticProblem(x, new int[]{0, 1, 3, 0}, b, 3));
        assertMessage("outside 0..2", () -> new BiasedLogisticProblem(x, new int[]{0, -1, 2, 0}, b, 3));
        assertMessage("bias must be [N, C]", () -> new BiasedLogisticProblem(x, new int[]{0, 1, 1, 0}, b, 2));
        assertMessage("features must be [N, D]", () -> new BiasedLogisticProblem(x.reshape(8), new int[4], b, 3));
        INDArray nan = b.dup();
        nan.putScalar(1, 2, Double.NaN);
        assertMessage("bias contain NaN", () -> new BiasedLogisticProblem(x, new int[4], nan, 3));
        INDArray inf = x.dup();
        inf.putScalar(0, 1, Double.POSITIVE_INFINITY);
        assertMessage("features contain NaN or infinite", () -> new BiasedLogisticProblem(inf, new int[4], b, 3));
        assertMessage("FLOAT or DOUBLE", () -> new BiasedLogisticProblem(x.castTo(DataType.INT), new int[4], b, 3));
    }

    /** The device check (two reductions, what a GPU runs) and the host loop agree: NaN, both infinities, views, both types. */
    @Test
    void finitenessOnTheDeviceAndOnTheHostAgree() {
        for (DataType t : new DataType[]{DataType.FLOAT, DataType.DOUBLE}) {
            INDArray a = Nd4j.rand(t, 6, 5).subi(0.5).muli(1e30);
            for (boolean device : new boolean[]{false, true}) {
                assertTrue(BiasedLogisticProblem.finite(a, device), t + " device " + device);
                assertTrue(BiasedLogisticProblem.finite(Nd4j.empty(t), device));
                for (double bad : new double[]{Double.NaN, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY}) {
                    INDArray b = a.dup();
                    b.putScalar(4, 3, bad);
                    assertFalse(BiasedLogisticProblem.finite(b, device), bad + " " + t + " device " + device);
                    assertFalse(BiasedLogisticProblem.finite(b.getColumn(3), device), "a view holding " + bad);
                    assertTrue(BiasedLogisticProblem.finite(b.getColumn(2), device), "a view without it");
                }
            }
        }
    }

    private static void assertMessage(String part, org.junit.jupiter.api.function.Executable e) {
        IllegalArgumentException ex = assertThrows(IllegalArgumentException.class, e);
        assertTrue(ex.getMessage().contains(part), ex.getMessage());
    }
}
