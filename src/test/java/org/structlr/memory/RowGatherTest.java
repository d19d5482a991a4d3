package org.structlr.memory;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.indexing.NDArrayIndex;
import org.structlr.inference.HostCopies;

/**
 * {@link RowGather} gives ND4J's {@code pullRows} bits both ways (pullRows from the Java ints, and the
 * device's Gather with the kept index, run here on the CPU backend), for float and double, row- and
 * column-major arrays and views, indices repeated and out of order; the device's index array is made
 * once, at the first gather (counted by {@link HostCopies}), and the CPU's way sends nothing.
 */
class RowGatherTest {
    @AfterEach
    void stop() {
        HostCopies.stop();
    }

    @Test
    void bothWaysAreNd4jsPullRowsBitForBit() {
        int[] rows = {7, 0, 3, 3, 11, 2, 7, 5};
        RowGather g = RowGather.of(rows);
        assertEquals(rows.length, g.size());
        Nd4j.getRandom().setSeed(3);
        for (DataType type : new DataType[] {DataType.FLOAT, DataType.DOUBLE}) {
            INDArray all = Nd4j.randn(type, 14, 5);
            INDArray view = Nd4j.randn(type, 14, 9).get(NDArrayIndex.all(), NDArrayIndex.interval(2, 7));
            for (INDArray a : new INDArray[] {all, all.dup('f'), view}) {
                INDArray want = Nd4j.pullRows(a, 1, rows);
                for (boolean host : new boolean[] {true, false}) {
                    INDArray got = g.from(a, host);
                    assertEquals(type, got.dataType());
                    assertArrayEquals(new long[] {rows.length, 5}, got.shape());
                    assertArrayEquals(want.dup('c').data().asDouble(), got.dup('c').data().asDouble(), 0, "host " + host + ", " + a.ordering());
                    // and they are the rows named (pullRows itself checked against the definition)
                    for (int k = 0; k < rows.length; k++) {
                        for (int c = 0; c < 5; c++) assertEquals(a.getDouble(rows[k], c), got.getDouble(k, c), 0);
                    }
                }
            }
        }
        assertArrayEquals(g.from(Nd4j.ones(DataType.FLOAT, 12, 2)).shape(), new long[] {rows.length, 2}, "the backend's way");
    }

    @Test
    void noRowsGiveAnEmptyArrayAndARowOutsideIsRefused() {
        INDArray a = Nd4j.ones(DataType.DOUBLE, 4, 3);
        for (boolean host : new boolean[] {true, false}) {
            INDArray none = RowGather.of(new int[0]).from(a, host);
            assertArrayEquals(new long[] {0, 3}, none.shape());
            assertEquals(DataType.DOUBLE, none.dataType());
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> RowGather.of(new int[] {1, 4}).from(a, host));
            assertTrue(e.getMessage().contains("row 4 of an array of 4 rows"), e.getMessage());
        }
        assertThrows(IllegalArgumentException.class, () -> RowGather.of(new int[] {0, -1}));
        assertThrows(IllegalArgumentException.class, () -> RowGather.of(new int[] {0}).from(Nd4j.ones(DataType.FLOAT, 3), true));
    }

    /** The caller's array may change later: the gather keeps its own copy of the indices. */
    @Test
    void theIndicesAreCopied() {
        int[] rows = {2, 1};
        RowGather g = RowGather.of(rows);
        rows[0] = 0;
        INDArray a = Nd4j.createFromArray(new float[][] {{0}, {1}, {2}});
        assertArrayEquals(new float[] {2, 1}, g.from(a, true).toFloatVector());
        assertArrayEquals(new float[] {2, 1}, g.from(a, false).toFloatVector());
    }

    /**
     * The device's way makes its index array from the Java ints once, at its first gather, and then
     * gathers with nothing from the host; {@link HostCopies} counts the CPU's way (pullRows from the
     * Java ints in place) as CUDA's, once per gather, and a bare pullRows at every call (its ints go to
     * the device at every call on CUDA); both attributed to the caller.
     */
    @Test
    void theIndexGoesToTheDeviceOncePerGatherAndPullRowsIndicesAtEveryCall() {
        INDArray a = Nd4j.randn(DataType.FLOAT, 50, 4);
        RowGather device = RowGather.of(new int[] {4, 9, 1, 30, 2}), host = RowGather.of(new int[] {7, 8, 9});
        String me = "memory.RowGatherTest.theIndexGoesToTheDeviceOncePerGatherAndPullRowsIndicesAtEveryCall | ";
        HostCopies.start();
        device.from(a, false);
        host.from(a, true);
        assertEquals(Map.of(me + "factory.Nd4j.createFromArray | from host", new HostCopies.Tally(1, 5),
                me + "factory.Nd4j.pullRows | index from host", new HostCopies.Tally(1, 3)), HostCopies.snapshot());
        HostCopies.reset();
        device.from(a, false);
        device.from(a, false);
        host.from(a, true);
        assertEquals(0, HostCopies.values(), HostCopies.snapshot().toString());
        Nd4j.pullRows(a, 1, new int[] {3, 4, 5});
        Nd4j.pullRows(a, 1, new int[] {3, 4});
        assertEquals(Map.of(me + "factory.Nd4j.pullRows | index from host", new HostCopies.Tally(2, 5)), HostCopies.snapshot());
    }
}
