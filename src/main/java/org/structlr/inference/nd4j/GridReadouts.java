package org.structlr.inference.nd4j;

import static org.structlr.inference.nd4j.PlaneOps.BIG;
import static org.structlr.inference.nd4j.PlaneOps.add;
import static org.structlr.inference.nd4j.PlaneOps.exp;
import static org.structlr.inference.nd4j.PlaneOps.max;
import static org.structlr.inference.nd4j.PlaneOps.maxScalar;
import static org.structlr.inference.nd4j.PlaneOps.min;
import static org.structlr.inference.nd4j.PlaneOps.mul;
import static org.structlr.inference.nd4j.PlaneOps.sub;

import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.ops.transforms.Transforms;

/**
 * Dual, primal, beliefs and decoding of the grid engine, computed in the plane layout: element-wise
 * ops over contiguous views, no permutes, no reductions except the final sums (these allocate; they
 * are not in the sweep loop). Each edge is counted once, at its colour-0 end, from the sweep's z
 * scratch filled as the edge scores
 * <pre>
 *   z[yo][d][y][jn] = P + lam_own(d)[y] + lam_nb(d)[yo]     (colour 0; eps units)
 * </pre>
 */
final class GridReadouts {
    private final GridPlanes planes;
    private final GridSweep sweep;
    private final GridLayout layout;
    private final int labels, n2;
    private final double eps;

    GridReadouts(GridPlanes planes, GridSweep sweep, double eps) {
        this.planes = planes;
        this.sweep = sweep;
        this.layout = planes.layout;
        this.labels = planes.labels;
        this.n2 = planes.n2;
        this.eps = eps;
    }

    private INDArray plane(INDArray base, long offset) {
        return GridPlanes.view(base, offset, n2);
    }

    private INDArray[] unaryPlanes(int col) {
        INDArray[] ps = new INDArray[labels];
        for (int y = 0; y < labels; y++) ps[y] = plane(planes.u[col], planes.unaryAt(y, 0));
        return ps;
    }

    /** Fills the sweep's z with the edge scores of colour 0. */
    private void pairScores() {
        sweep.fillZ(0);
        for (int yo = 0; yo < labels; yo++) add(sweep.zYo[yo], planes.lam[0], sweep.zYo[yo]);
    }

    private INDArray zPlane(int yo, int d, int y) {
        return plane(sweep.z, planes.potAt(yo, d, y, 0));
    }

    /** Per direction d, lse over (yo, y) of the edge scores: [d][jn]. */
    private INDArray pairLse() {
        final int L = labels;
        INDArray out = Nd4j.zeros(planes.dtype, 4L * n2);
        for (int d = 0; d < 4; d++) {
            INDArray[] ps = new INDArray[L * L];
            for (int yo = 0; yo < L; yo++) for (int y = 0; y < L; y++) ps[yo * L + y] = zPlane(yo, d, y);
            PlaneOps.lse(ps, plane(out, (long) d * n2));
        }
        return out;
    }

    /** Turns the edge scores in z into log pair beliefs (subtracting the per-edge lse). */
    private void pairLogBeliefs(INDArray lse) {
        for (int yo = 0; yo < labels; yo++) {
            for (int d = 0; d < 4; d++) {
                for (int y = 0; y < labels; y++) sub(zPlane(yo, d, y), plane(lse, (long) d * n2), zPlane(yo, d, y));
            }
        }
    }

    /** dual = eps * (sum_i lse_y U_i(y) + sum_a lse_(y, yo) z_a(y, yo)), real pixels and edges only. */
    double dual() {
        double total = 0;
        INDArray lu = Nd4j.zeros(planes.dtype, n2);
        for (int col = 0; col < 2; col++) {
            PlaneOps.lse(unaryPlanes(col), lu);
            total += lu.mul(planes.pixMask[col]).sumNumber().doubleValue();   // phantom lse is finite
        }
        pairScores();
        INDArray le = pairLse();
        max(le, planes.edgeLo0, le);
        min(le, planes.edgeHi0, le);                                          // missing edges -> exactly 0
        total += le.sumNumber().doubleValue();
        return eps * total;
    }

    /**
     * theta . b - b log b summed in eps units, with 0 * log 0 and 0 * (-inf) read as 0: both
     * factors are clamped at -BIG first, which changes nothing where b > 0 (there log b and theta
     * are finite) and gives exactly 0 where b = 0.
     */
    double primal() {
        final int L = labels;
        INDArray lu = Nd4j.zeros(planes.dtype, n2), lb = Nd4j.zerosLike(lu), b = Nd4j.zerosLike(lu),
                t = Nd4j.zerosLike(lu), acc = Nd4j.zerosLike(lu);
        for (int col = 0; col < 2; col++) {
            INDArray[] ps = unaryPlanes(col);
            PlaneOps.lse(ps, lu);
            maxScalar(lu, -BIG, lu);
            INDArray part = Nd4j.zerosLike(lu);
            for (int y = 0; y < L; y++) {
                sub(ps[y], lu, lb);                                    // log b
                exp(lb, b);
                maxScalar(lb, -BIG, lb);
                maxScalar(plane(planes.unaryT[col], planes.unaryAt(y, 0)), -BIG, t);
                sub(t, lb, t);
                mul(t, b, t);
                add(part, t, part);
            }
            mul(part, planes.pixMask[col], part);
            add(acc, part, acc);
        }
        pairScores();
        INDArray lse = pairLse();
        maxScalar(lse, -BIG, lse);                                     // no NaN from junk on missing edges
        pairLogBeliefs(lse);
        INDArray pacc = Nd4j.zeros(planes.dtype, 4L * n2);
        for (int yo = 0; yo < L; yo++) {
            for (int d = 0; d < 4; d++) {
                INDArray pd = plane(pacc, (long) d * n2);
                for (int y = 0; y < L; y++) {
                    INDArray zv = zPlane(yo, d, y);
                    exp(zv, b);
                    maxScalar(zv, -BIG, lb);
                    maxScalar(plane(planes.pot[0], planes.potAt(yo, d, y, 0)), -BIG, t);
                    sub(t, lb, t);
                    mul(t, b, t);
                    add(pd, t, pd);
                }
            }
        }
        mul(pacc, planes.edgeMask0, pacc);
        return eps * (acc.sumNumber().doubleValue() + pacc.sumNumber().doubleValue());
    }

    /** b_i(y) = exp(U_i(y) - max(lse_y U_i, -BIG)), natural order [V, L]. */
    INDArray unaryBeliefs() {
        final int L = labels;
        int nv = layout.numVariables();
        double[][] bh = new double[2][L * n2];
        INDArray lu = Nd4j.zeros(planes.dtype, n2), b = Nd4j.zerosLike(lu);
        for (int col = 0; col < 2; col++) {
            INDArray[] ps = unaryPlanes(col);
            PlaneOps.lse(ps, lu);
            maxScalar(lu, -BIG, lu);                                   // no label possible (infeasible): 0, not NaN
            for (int y = 0; y < L; y++) {
                sub(ps[y], lu, b);
                exp(b, b);
                System.arraycopy(b.toDoubleVector(), 0, bh[col], planes.unaryAt(y, 0), n2);
            }
        }
        double[] out = new double[nv * L];
        for (int v = 0; v < nv; v++) {
            GridLayout.Slot s = layout.varSlot[v];
            for (int y = 0; y < L; y++) out[v * L + y] = bh[s.colour()][planes.unaryAt(y, s.jn())];
        }
        return Nd4j.createFromArray(out).castTo(planes.dtype).reshape(nv, L);
    }

    /** b_a(y_i, y_j) = exp(z_a - max(lse z_a, -BIG)), natural order [E, L*L]. */
    INDArray pairBeliefs() {
        final int L = labels;
        int ne = layout.numEdges();
        pairScores();
        INDArray lse = pairLse();
        maxScalar(lse, -BIG, lse);                                     // no pair possible (infeasible): 0, not NaN
        pairLogBeliefs(lse);
        double[] b = Transforms.exp(sweep.z, true).toDoubleVector();
        double[] out = new double[ne * L * L];
        for (int e = 0; e < ne; e++) {
            GridLayout.EdgeSlots es = layout.edges[e];
            boolean firstIsZero = es.first().colour() == 0;
            int jn = firstIsZero ? es.first().jn() : es.second().jn();
            int dd = firstIsZero ? es.dir() : es.dir() ^ 1;
            for (int yi = 0; yi < L; yi++) {
                for (int yj = 0; yj < L; yj++) {
                    int own = firstIsZero ? yi : yj, other = firstIsZero ? yj : yi;
                    out[e * L * L + yi * L + yj] = b[(int) planes.potAt(other, dd, own, jn)];
                }
            }
        }
        return Nd4j.createFromArray(out).castTo(planes.dtype).reshape(ne, L * L);
    }

    /** argmax_y U_i(y) (first on ties). */
    int[] decode(double[] naturalU) {
        final int L = labels;
        int[] out = new int[layout.numVariables()];
        for (int v = 0; v < out.length; v++) {
            int best = 0;
            for (int y = 1; y < L; y++) if (naturalU[v * L + y] > naturalU[v * L + best]) best = y;
            out[v] = best;
        }
        return out;
    }
}
