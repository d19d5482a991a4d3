package org.structlr.inference.nd4j;

import org.structlr.inference.StatePacking;

import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.indexing.NDArrayIndex;

/**
 * The grid engine's ND4J arrays, one flat contiguous 1-D array per quantity and colour, in units of
 * eps, indexed by the {@link GridLayout} position {@code jn} (n2 = 2n positions per colour):
 * <ul>
 *   <li>{@code lam[c]}, {@code [d][y][jn]}: message into the pixel from its edge in direction d;
 *       a view into {@code lamBase[c]}, padded by W2 + 1 on both sides so that every neighbour
 *       offset view stays in bounds;</li>
 *   <li>{@code pot[c]}, {@code [yo][d][y][jn]}: the pairwise potential of that edge, oriented (own
 *       label y, neighbour label yo); zero on missing edges;</li>
 *   <li>{@code unaryT[c]}, {@code u[c]} = T - sum of incoming messages (= total / N after an
 *       update), {@code invN[c]} = 1 / (real degree + 1), all {@code [y][jn]};</li>
 *   <li>{@code lo[c]}, {@code hi[c]}, {@code [d][y][jn]}: clamp bounds, (-inf, +inf) on real edges,
 *       (0, 0) on missing ones, so {@code min(max(m, lo), hi)} keeps real messages and zeroes junk;</li>
 *   <li>{@code pixMask[c]} {@code [jn]} and, for colour 0 only, {@code edgeLo0}, {@code edgeHi0},
 *       {@code edgeMask0} {@code [d][jn]}: the same masks for the read-outs (each edge counted once,
 *       at its colour-0 end).</li>
 * </ul>
 * {@code lam} and {@code u} are the whole state ({@link #state()}); the rest follows from the
 * potentials and the geometry.
 */
final class GridPlanes {
    final GridLayout layout;
    final DataType dtype;
    final int labels, n2, blk, pad;
    final INDArray[] lamBase = new INDArray[2], lam = new INDArray[2], pot = new INDArray[2],
            unaryT = new INDArray[2], u = new INDArray[2], invN = new INDArray[2],
            lo = new INDArray[2], hi = new INDArray[2], pixMask = new INDArray[2];
    final INDArray edgeLo0, edgeHi0, edgeMask0;

    GridPlanes(GridLayout layout, DataType dtype) {
        this.layout = layout;
        this.dtype = dtype;
        this.labels = layout.labels;
        this.n2 = 2 * layout.n;
        this.blk = 4 * labels * n2;
        this.pad = layout.w2 + 1;
        final int L = labels;
        for (int col = 0; col < 2; col++) {
            lamBase[col] = Nd4j.zeros(dtype, blk + 2L * pad);
            lam[col] = view(lamBase[col], pad, blk);
            pot[col] = Nd4j.zeros(dtype, (long) L * blk);
            unaryT[col] = Nd4j.zeros(dtype, (long) L * n2);
            u[col] = Nd4j.zeros(dtype, (long) L * n2);
            double[] inv = new double[L * n2], pm = new double[n2], los = new double[blk], his = new double[blk];
            for (int jn = 0; jn < n2; jn++) {
                int deg = layout.degree(col, jn);
                for (int y = 0; y < L; y++) inv[unaryAt(y, jn)] = 1.0 / (deg + 1);
                pm[jn] = layout.realPix[col][jn] ? 1 : 0;
                for (int d = 0; d < 4; d++) {
                    boolean real = layout.realEdge[col][d][jn];
                    for (int y = 0; y < L; y++) {
                        los[lamAt(d, y, jn)] = real ? Double.NEGATIVE_INFINITY : 0;
                        his[lamAt(d, y, jn)] = real ? Double.POSITIVE_INFINITY : 0;
                    }
                }
            }
            invN[col] = vec(inv);
            pixMask[col] = vec(pm);
            lo[col] = vec(los);
            hi[col] = vec(his);
        }
        double[] elo = new double[4 * n2], ehi = new double[4 * n2], em = new double[4 * n2];
        for (int d = 0; d < 4; d++) {
            for (int jn = 0; jn < n2; jn++) {
                boolean real = layout.realEdge[0][d][jn];
                elo[d * n2 + jn] = real ? Double.NEGATIVE_INFINITY : 0;
                ehi[d * n2 + jn] = real ? Double.POSITIVE_INFINITY : 0;
                em[d * n2 + jn] = real ? 1 : 0;
            }
        }
        edgeLo0 = vec(elo);
        edgeHi0 = vec(ehi);
        edgeMask0 = vec(em);
    }

    /** Index of (direction d, own label y, position jn) in lam, lo, hi, and in a pot block. */
    int lamAt(int d, int y, int jn) { return (d * labels + y) * n2 + jn; }

    /** Index of (neighbour label yo, d, y, jn) in pot (and in the sweep's z). */
    long potAt(int yo, int d, int y, int jn) { return (long) yo * blk + lamAt(d, y, jn); }

    /** Index of (label y, position jn) in unaryT, u, invN. */
    int unaryAt(int y, int jn) { return y * n2 + jn; }

    INDArray vec(double[] a) {
        return Nd4j.createFromArray(a).castTo(dtype);
    }

    static INDArray view(INDArray base, long offset, long length) {
        return base.get(NDArrayIndex.interval(offset, offset + length));
    }

    /** The exact state: lam and u of both colours, bit for bit. */
    float[] state() {
        return StatePacking.pack(dtype, lam[0], lam[1], u[0], u[1]);
    }

    void setState(float[] state) {
        StatePacking.unpack(state, dtype, lam[0], lam[1], u[0], u[1]);
    }
}
