package org.structlr.inference.nd4j;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.structlr.inference.HostCopies;

/**
 * The grid engine keeps potentials and messages on the device: setting potentials or messages,
 * reading messages and incoming sums and sweeping copy nothing of size V or E to or from the Java
 * heap, only the few scalars of the input checks (ND4J's match-condition reductions: their
 * arguments and boolean results); decoding copies the V labels. Counted by {@link HostCopies}; the
 * exact state, which is a host copy by definition, shows that the counter sees copies.
 */
class GridHostCopiesTest {
    static final int COUNT = 2, H = 30, W = 40, L = 3;
    static final int V = COUNT * H * W;
    /** Scalars (op arguments and results) that may cross per call: a bound independent of V and E. */
    static final int SCALARS = 64;

    @AfterEach
    void stop() {
        HostCopies.stop();
    }

    @Test
    void potentialsMessagesAndSweepsStayOnTheDevice() {
        try (GridMessagePassing mp = new GridMessagePassing(COUNT, H, W, L, 0.1, DataType.FLOAT)) {
            int E = mp.graph().numEdges();
            INDArray u = Nd4j.rand(DataType.FLOAT, V, L), p = Nd4j.rand(DataType.FLOAT, E, (long) L * L);
            mp.setPotentials(u, p);
            mp.iterate(2);
            HostCopies.start();
            mp.setPotentials(u, p);
            long checks = HostCopies.values();
            assertTrue(checks <= SCALARS, "setPotentials (" + V * L + " unary values): only the input checks' scalars, got " + HostCopies.snapshot());
            mp.iterate(3);
            INDArray m = mp.messages();
            INDArray sums = mp.incomingMessageSums();
            mp.setMessages(m);
            mp.resetMessages();
            mp.setMessages(m);
            assertTrue(HostCopies.values() <= checks + SCALARS, "sweeps and messages: nothing but the message checks' scalars, got "
                    + HostCopies.snapshot());
            assertEquals(V, sums.size(0));

            HostCopies.reset();
            int[] labels = mp.decode();
            assertEquals(V, labels.length);
            assertTrue(HostCopies.values() >= V && HostCopies.values() <= V + SCALARS, "decode copies the labels only: " + HostCopies.snapshot());

            HostCopies.reset();
            float[] state = mp.state();
            assertTrue(HostCopies.values() >= state.length, "the exact state is a host copy: " + HostCopies.snapshot());
        }
    }

    @Test
    void theCounterSeesCopiesBothWays() {
        HostCopies.start();
        INDArray a = Nd4j.createFromArray(new float[] {1, 2, 3, 4, 5});
        float[] back = a.toFloatVector();
        Map<String, HostCopies.Tally> t = HostCopies.snapshot();
        assertEquals(5, back.length);
        assertEquals(10, HostCopies.values(), t.toString());
        assertEquals(2, t.size(), t.toString());
        assertTrue(t.keySet().stream().allMatch(k -> k.startsWith("inference.nd4j.GridHostCopiesTest.theCounterSeesCopiesBothWays")), t.toString());
    }
}
