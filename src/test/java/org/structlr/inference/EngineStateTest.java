package org.structlr.inference;

import org.structlr.inference.nd4j.GraphMessagePassing;
import org.structlr.inference.nd4j.GridMessagePassing;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;
import java.util.function.Supplier;
import java.util.stream.Stream;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.structlr.graph.FactorGraph;
import org.structlr.graph.GridBatch;

/**
 * state()/setState() restore the engines that say so ({@link MessagePassing#exactState()}: grid,
 * graph, fused) bit for bit: the same state, and the same next sweeps; the plain loop (double
 * messages, state through float messages) says it does not, and indeed does not.
 */
class EngineStateTest {
    static final GridBatch BATCH = new GridBatch(new int[] {5, 3}, new int[] {4, 7});

    static Stream<Arguments> engines() {
        Stream<Arguments> cpu = Stream.of(
                Arguments.of("fused", DataType.FLOAT, (Supplier<MessagePassing>) () ->
                        new org.structlr.inference.fused.FusedGridMessagePassing(BATCH, 3, 0.3, 1)));
        return Stream.concat(cpu, Stream.of(DataType.FLOAT, DataType.DOUBLE).flatMap(dt -> Stream.of(
                Arguments.of("grid " + dt, dt, (Supplier<MessagePassing>) () -> new GridMessagePassing(BATCH, 3, 0.3, dt)),
                Arguments.of("graph " + dt, dt, (Supplier<MessagePassing>) () -> {
                    FactorGraph g = new GridMessagePassing(BATCH, 3, 0.3, dt).graph();
                    return new GraphMessagePassing(g, RaggedGridTest.checkerboards(BATCH), 0.3, dt);
                }))));
    }

    private static int[] bits(float[] f) {
        int[] b = new int[f.length];
        for (int i = 0; i < f.length; i++) b[i] = Float.floatToRawIntBits(f[i]);
        return b;
    }

    private static long[] bits(INDArray a) {
        double[] d = a.castTo(DataType.DOUBLE).reshape(-1).toDoubleVector();
        long[] b = new long[d.length];
        for (int i = 0; i < d.length; i++) b[i] = Double.doubleToRawLongBits(d[i]);
        return b;
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("engines")
    void stateRoundTripIsExact(String name, DataType dt, Supplier<MessagePassing> make) {
        Random rnd = new Random(5);
        try (MessagePassing a = make.get(); MessagePassing b = make.get()) {
            assertTrue(a.exactState(), name + " says its state is exact");
            FactorGraph g = a.graph();
            int[] truth = HardConstraintTest.randomLabels(rnd, g.numVariables(), 3);
            INDArray[] pot = HardConstraintTest.feasible(rnd, g, 3, truth, 0.2);
            INDArray un = pot[0].castTo(dt), pw = pot[1].castTo(dt);
            a.setPotentials(un, pw);
            a.iterate(7);
            float[] s = a.state();
            boolean hasInf = false;
            for (float x : s) hasInf |= x == Float.NEGATIVE_INFINITY;
            assertTrue(dt == DataType.DOUBLE || hasInf, name + ": the state carries the -inf of impossible labels");

            b.setPotentials(un, pw);
            b.iterate(2);                      // some other state first
            b.setState(s);
            assertArrayEquals(bits(s), bits(b.state()), name + ": state round trip");
            assertArrayEquals(bits(a.messages()), bits(b.messages()), name + ": messages after setState");
            assertEquals(a.dual(), b.dual(), 0.0, name + ": dual after setState");
            a.iterate(3);
            b.iterate(3);
            assertArrayEquals(bits(a.state()), bits(b.state()), name + ": state after 3 more sweeps");
            assertArrayEquals(bits(a.unaryBeliefs()), bits(b.unaryBeliefs()), name + ": beliefs after 3 more sweeps");

            assertThrows(IllegalArgumentException.class, () -> b.setState(new float[s.length - 1]), name + ": a state of the wrong length");
        }
    }

    /**
     * The plain loop keeps double messages and its state carries them bit for bit (two floats each): after a
     * round trip the next sweeps are the same to the last bit. It still says its state is not exact (u is
     * recomputed from the messages, not kept: readouts before the next sweep may differ in the last bit, so
     * the learner re-seats it). A state of plain float messages (checkpoints written before) still loads, to float rounding.
     */
    @org.junit.jupiter.api.Test
    void loopStateCarriesItsDoubles() {
        Random rnd = new Random(5);
        FactorGraph g = new GridMessagePassing(BATCH, 3, 0.3, DataType.DOUBLE).graph();
        try (MessagePassing a = new org.structlr.inference.loop.LoopMessagePassing(g, 0.3);
             MessagePassing b = new org.structlr.inference.loop.LoopMessagePassing(g, 0.3);
             MessagePassing c = new org.structlr.inference.loop.LoopMessagePassing(g, 0.3)) {
            assertTrue(!a.exactState(), "the loop engine says its state is not exact");
            INDArray[] pot = HardConstraintTest.feasible(rnd, g, 3, HardConstraintTest.randomLabels(rnd, g.numVariables(), 3), 0.2);
            for (MessagePassing e : new MessagePassing[] {a, b, c}) e.setPotentials(pot[0], pot[1]);
            a.iterate(7);
            float[] state = a.state();
            assertEquals(2L * g.numEdges() * 2 * 3, state.length, "two floats per double message");
            b.setState(state);
            c.setState(a.messages().castTo(DataType.FLOAT).reshape(-1).toFloatVector());   // the format of before: float messages
            a.iterate(3);
            b.iterate(3);
            c.iterate(3);
            assertEquals(a.dual(), b.dual(), 0.0, "the doubles came back bit for bit");
            assertArrayEquals(a.messages().reshape(-1).toDoubleVector(), b.messages().reshape(-1).toDoubleVector(), 0.0);
            assertTrue(a.dual() != c.dual(), "float messages changed nothing: the test could not tell the formats apart");
            assertEquals(a.dual(), c.dual(), 1e-5 * Math.abs(a.dual()), "float messages load, to float rounding");
        }
    }
}
