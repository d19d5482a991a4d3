package org.structlr.memory;

import java.util.Arrays;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.api.ops.impl.shape.Gather;
import org.nd4j.linalg.factory.Nd4j;

/**
 * The rows of 2-D ND4J arrays at one fixed list of row indices that is used again and again (a
 * batch's edges of one pairwise type, its labelled rows): {@code out[k] = a[rows[k]]}. On the CPU
 * backend by ND4J's {@code pullRows}, which reads the Java ints in place (rows of 159,200 of 318,400
 * edges with 4 entries: pullRows 15.5 ms, Gather 83.3 ms, mean of 60 calls, one thread, load 15); on CUDA
 * {@code pullRows} would send the Java index array to the device on every call, so there a
 * {@code Gather} op reads an index array made on first use and kept, with the arrays, on the
 * device. Both copy the same values (bit for bit, {@code RowGatherTest}).
 */
public final class RowGather {
    private final int[] rows;
    private final int bound;                 // 1 + the largest index (0 when empty)
    private volatile INDArray deviceIndex;   // made on the first device gather, then kept

    private RowGather(int[] rows) {
        this.rows = rows.clone();
        int max = -1;
        for (int r : this.rows) {
            if (r < 0) throw new IllegalArgumentException("row gather: negative row index " + r);
            max = Math.max(max, r);
        }
        bound = max + 1;
    }

    /** The gather of {@code rows} (copied), in their order; an index may repeat. */
    public static RowGather of(int[] rows) {
        return new RowGather(rows);
    }

    /** The number of rows a gather returns. */
    public int size() {
        return rows.length;
    }

    /** {@code [size(), a.size(1)]}: the rows of {@code a} at the indices, in their order, in {@code a}'s data type; a new array. */
    public INDArray from(INDArray a) {
        return from(a, !Device.cuda());
    }

    /**
     * {@link #from(INDArray)} by {@code pullRows} from the Java ints ({@code host}: the CPU backend's
     * way) or by a {@code Gather} with the kept index array (the device's way); both ways run on either
     * backend, so a test on the CPU checks the device's way too.
     */
    public INDArray from(INDArray a, boolean host) {
        if (a.rank() != 2) throw new IllegalArgumentException("row gather: a 2-D array expected, got " + Arrays.toString(a.shape()));
        if (bound > a.size(0)) throw new IllegalArgumentException("row gather: row " + (bound - 1) + " of an array of " + a.size(0) + " rows");
        if (rows.length == 0) return Nd4j.create(a.dataType(), 0, a.size(1));
        if (host) return Nd4j.pullRows(a, 1, rows);
        INDArray idx = deviceIndex;
        if (idx == null) deviceIndex = idx = Nd4j.createFromArray(rows);   // a race makes it twice, the same values
        return Nd4j.exec(new Gather(a, idx, 0))[0];
    }
}
