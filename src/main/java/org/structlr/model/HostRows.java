package org.structlr.model;

import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;

/**
 * Rows of a matrix moved on the host, for the CPU backend, whose arrays are host memory: read in place
 * from the array's buffer (a view, no copy) and written into a new array. Used where a batch with
 * several pairwise types reorders its rows on every oracle step (edge order against type order): there
 * ND4J's gathers ({@code pullRows}, {@code Gather}) cost a native op call per row or a concatenated
 * copy first. The values are copied, never computed, so the result is bit for bit the gather's. On
 * CUDA the callers keep the device gather (nothing goes to the host).
 */
public final class HostRows {
    private HostRows() {}

    /** out[k] = a[rows[k]] for a 2-D FLOAT or DOUBLE array {@code a} (a new array of a's type, c order). */
    public static INDArray pick(INDArray a, int[] rows) {
        int cols = (int) a.size(1);
        INDArray c = inPlace(a);
        if (a.dataType() == DataType.DOUBLE) {
            java.nio.DoubleBuffer src = c.data().asNioDouble();
            double[] out = new double[rows.length * cols];
            for (int k = 0; k < rows.length; k++) src.get(rows[k] * cols, out, k * cols, cols);
            return Nd4j.create(out, new long[] {rows.length, cols}, 'c');
        }
        java.nio.FloatBuffer src = c.data().asNioFloat();
        float[] out = new float[rows.length * cols];
        for (int k = 0; k < rows.length; k++) src.get(rows[k] * cols, out, k * cols, cols);
        return Nd4j.create(out, new long[] {rows.length, cols}, 'c');
    }

    /**
     * The rows of the type-ordered parts put back in edge order: {@code out[edges[t][k]] = parts[t][k]},
     * parts FLOAT, {@code rows} rows of {@code cols} entries in all; rows no part names stay zero.
     */
    public static INDArray scatter(INDArray[] parts, int[][] edges, int rows, int cols) {
        float[] out = new float[rows * cols];
        for (int t = 0; t < parts.length; t++) {
            if (parts[t] == null || edges[t].length == 0) continue;
            java.nio.FloatBuffer src = inPlace(parts[t]).data().asNioFloat();
            for (int k = 0; k < edges[t].length; k++) src.get(k * cols, out, edges[t][k] * cols, cols);
        }
        return Nd4j.create(out, new long[] {rows, cols}, 'c');
    }

    /** {@code a} itself when its buffer holds exactly its entries in c order (FLOAT or DOUBLE), else such a copy. */
    private static INDArray inPlace(INDArray a) {
        if (a.dataType() != DataType.FLOAT && a.dataType() != DataType.DOUBLE) throw new IllegalArgumentException("FLOAT or DOUBLE rows only, got " + a.dataType());
        boolean plain = a.ordering() == 'c' && !a.isView() && a.data().length() == a.length() && a.offset() == 0;
        return plain ? a : a.dup('c');
    }
}
