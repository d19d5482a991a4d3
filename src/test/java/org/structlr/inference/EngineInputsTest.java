package org.structlr.inference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Collections;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.structlr.graph.FactorGraph;
import org.structlr.graph.Grids;
import org.structlr.inference.engines.EngineChoice;
import org.structlr.inference.engines.Engines;

/**
 * Every engine refuses bad potentials and messages with the one wording of {@link EngineInputs},
 * naming the first bad entry, for float and double inputs; minus infinity and the largest finite
 * floats are accepted.
 */
class EngineInputsTest {
    static final int H = 3, W = 4, COUNT = 2, L = 3;
    static final FactorGraph GRAPH = FactorGraph.disjointUnion(Collections.nCopies(COUNT, Grids.grid(H, W, L, false)));
    static final int V = GRAPH.numVariables(), E = GRAPH.numEdges();

    static Stream<Arguments> engines() {
        return Stream.of(EngineChoice.FUSED, EngineChoice.ND4J, EngineChoice.LOOP).flatMap(c -> Stream.of(
                Arguments.of(c, DataType.FLOAT), Arguments.of(c, DataType.DOUBLE)));
    }

    static MessagePassing open(EngineChoice c, DataType dtype) {
        return Engines.create(c, GRAPH, Collections.nCopies(COUNT, new int[] {H, W}), 0.1, dtype);
    }

    static String refusal(Runnable r) {
        return assertThrows(IllegalArgumentException.class, r::run).getMessage();
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("engines")
    void badPotentialsAreOneWordingNamingTheEntry(EngineChoice c, DataType dtype) {
        try (MessagePassing mp = open(c, dtype)) {
            INDArray u = Nd4j.rand(dtype, V, L), p = Nd4j.rand(dtype, E, (long) L * L);
            u.putScalar(new long[] {5, 1}, Double.NaN);
            assertEquals("unary potential [5, 1] is NaN; only finite values and minus infinity are allowed", refusal(() -> mp.setPotentials(u, p)));
            u.putScalar(new long[] {5, 1}, 0.5);
            p.putScalar(new long[] {3, 2}, Double.POSITIVE_INFINITY);
            assertEquals("pairwise potential [3, 2] is Infinity; only finite values and minus infinity are allowed",
                    refusal(() -> mp.setPotentials(u, p)));
            assertEquals("unary potentials must have shape [" + V + ", " + L + "], got [" + V + ", 2]",
                    refusal(() -> mp.setPotentials(Nd4j.rand(dtype, V, 2), p)));
            assertEquals("pairwise potentials are null", refusal(() -> mp.setPotentials(u, null)));
            // hard constraints and the largest finite values are potentials like any other
            p.putScalar(new long[] {3, 2}, Double.NEGATIVE_INFINITY);
            u.putScalar(new long[] {0, 0}, dtype == DataType.FLOAT ? Float.MAX_VALUE / 2 : 1e300);
            mp.setPotentials(u, p);
            mp.iterate(1);
        }
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("engines")
    void badMessagesAreOneWordingNamingTheEntry(EngineChoice c, DataType dtype) {
        try (MessagePassing mp = open(c, dtype)) {
            mp.setPotentials(Nd4j.rand(dtype, V, L), Nd4j.rand(dtype, E, (long) L * L));
            INDArray m = Nd4j.zeros(dtype, E, 2, L);
            m.putScalar(new long[] {4, 1, 0}, Double.NaN);
            assertEquals("message [4, 1, 0] is NaN; only finite values and minus infinity are allowed", refusal(() -> mp.setMessages(m)));
            m.putScalar(new long[] {4, 1, 0}, Double.POSITIVE_INFINITY);
            assertEquals("message [4, 1, 0] is Infinity; only finite values and minus infinity are allowed", refusal(() -> mp.setMessages(m)));
            String shape = refusal(() -> mp.setMessages(Nd4j.zeros(dtype, E, L)));
            assertTrue(shape.startsWith("messages must have shape [" + E + ", 2, " + L + "], got ["), shape);
            m.putScalar(new long[] {4, 1, 0}, Double.NEGATIVE_INFINITY);
            mp.setMessages(m);
        }
    }

    @org.junit.jupiter.api.Test
    void theDeviceTestFindsWhatTheHostSearchFinds() {
        for (DataType dtype : List.of(DataType.FLOAT, DataType.DOUBLE, DataType.HALF)) {
            INDArray a = Nd4j.zeros(dtype, 4, 5);
            assertEquals(-1, EngineInputs.firstRefused(a));
            a.putScalar(2, 3, Double.NEGATIVE_INFINITY);
            assertEquals(-1, EngineInputs.firstRefused(a));
            a.putScalar(3, 1, Double.POSITIVE_INFINITY);
            a.putScalar(1, 4, Double.NaN);
            assertEquals(9, EngineInputs.firstRefused(a), dtype.toString());
            assertEquals(-1, EngineInputs.firstRefused(Nd4j.zeros(dtype, 0, 5)));
        }
    }
}
