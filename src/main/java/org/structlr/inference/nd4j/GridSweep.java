package org.structlr.inference.nd4j;

import org.structlr.inference.SweepProfile;

import static org.structlr.inference.nd4j.PlaneOps.BIG;
import static org.structlr.inference.nd4j.PlaneOps.add;
import static org.structlr.inference.nd4j.PlaneOps.exp;
import static org.structlr.inference.nd4j.PlaneOps.log;
import static org.structlr.inference.nd4j.PlaneOps.max;
import static org.structlr.inference.nd4j.PlaneOps.maxScalar;
import static org.structlr.inference.nd4j.PlaneOps.min;
import static org.structlr.inference.nd4j.PlaneOps.mul;
import static org.structlr.inference.nd4j.PlaneOps.softplus;
import static org.structlr.inference.nd4j.PlaneOps.sub;

import java.util.ArrayList;
import java.util.List;

import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;

/**
 * The grid engine's sweep: the star update (docs/design.md §1) of one colour at a time over the
 * {@link GridPlanes}, in eps units:
 * <pre>
 *   z[yo][d][y]   = P[yo][d][y] + lam_nb(d)[yo]                 (4 L^2 ops per member)
 *   m[d][y]       = lse_yo z[yo][d][y]                          (L = 2: max + softplus(min - max))
 *   total[y]      = T[y] + sum_d clamp(m[d][y])                 (real edges only, exact -inf)
 *   U[y]          = total[y] / N
 *   lam[d][y]     = U[y] - max(m[d][y], -BIG)                   (impossible labels: -inf)
 * </pre>
 * Only element-wise ops over whole contiguous buffers or offset views of 1-D buffers: all views are
 * made once here, nothing is allocated and nothing is copied to the host per sweep (the CUDA path).
 * Positions whose neighbour view wraps across a row or an image, or whose edge is missing, read
 * junk (finite or minus infinity, never NaN), which {@code clamp = min(max(m, lo), hi)} cuts out
 * exactly.
 */
final class GridSweep {
    /** One add of the z fill: out = potential + neighbour message (views of length n). */
    record AddInto(INDArray potential, INDArray neighbour, INDArray out) {}

    private final GridPlanes planes;
    private final int labels;
    /** Scratch [yo][d][y][jn]; also the read-outs' edge scores. */
    final INDArray z;
    final INDArray[] zYo;
    private final INDArray bufA, bufB, bufC;      // [d][y][jn]
    private final INDArray[] cD;                  // bufC per direction
    private final INDArray[] bD;                  // bufB per direction
    private final INDArray[][] lamD = new INDArray[2][];
    private final AddInto[][] zFill = new AddInto[2][];
    final SweepProfile profile = new SweepProfile();

    GridSweep(GridPlanes planes) {
        this.planes = planes;
        this.labels = planes.labels;
        GridLayout layout = planes.layout;
        final int L = labels, n = layout.n, blk = planes.blk, dl = L * planes.n2;
        z = Nd4j.zeros(planes.dtype, (long) L * blk);
        bufA = Nd4j.zeros(planes.dtype, blk);
        bufB = Nd4j.zeros(planes.dtype, blk);
        bufC = Nd4j.zeros(planes.dtype, blk);
        zYo = new INDArray[L];
        for (int yo = 0; yo < L; yo++) zYo[yo] = GridPlanes.view(z, (long) yo * blk, blk);
        bD = new INDArray[4];
        cD = new INDArray[4];
        for (int d = 0; d < 4; d++) {
            bD[d] = GridPlanes.view(bufB, (long) d * dl, dl);
            cD[d] = GridPlanes.view(bufC, (long) d * dl, dl);
        }
        for (int col = 0; col < 2; col++) {
            lamD[col] = new INDArray[4];
            for (int d = 0; d < 4; d++) lamD[col][d] = GridPlanes.view(planes.lam[col], (long) d * dl, dl);
            List<AddInto> fill = new ArrayList<>();
            for (int yo = 0; yo < L; yo++) {
                for (int d = 0; d < 4; d++) {
                    for (int y = 0; y < L; y++) {
                        for (int j = 0; j < 2; j++) {
                            long at = planes.potAt(yo, d, y, j * n);
                            GridLayout.Neighbour nb = layout.neighbour(col, j, d);
                            // the neighbour's message towards us: direction d ^ 1, its own label yo
                            long src = planes.pad + planes.lamAt(d ^ 1, yo, nb.member() * n) + nb.offset();
                            fill.add(new AddInto(GridPlanes.view(planes.pot[col], at, n),
                                    GridPlanes.view(planes.lamBase[1 - col], src, n), GridPlanes.view(z, at, n)));
                        }
                    }
                }
            }
            zFill[col] = fill.toArray(new AddInto[0]);
        }
    }

    void sweep() {
        update(0);
        update(1);
    }

    /** z[yo][d][y][jn] = P + neighbour message, for colour col. */
    void fillZ(int col) {
        for (AddInto a : zFill[col]) add(a.potential(), a.neighbour(), a.out());
    }

    private void update(int col) {
        final int L = labels;
        SweepProfile prof = profile;
        long t0 = prof.now();
        fillZ(col);
        long t1 = prof.now();
        // m -> bufA (exact, may be -inf), max(m, -BIG) -> bufB
        INDArray m = bufA, mc = bufB, tmp = bufC;
        if (L == 2) {
            max(zYo[0], zYo[1], m);          // MX
            min(zYo[0], zYo[1], tmp);        // MN
            maxScalar(m, -BIG, mc);          // MXc
            sub(tmp, mc, tmp);               // MN - MXc <= 0 (-inf when both are -inf)
            softplus(tmp, tmp);              // log(1 + exp(MN - MXc))
            add(m, tmp, m);                  // m = MX + softplus
            add(mc, tmp, mc);                // max(m, -BIG)
        } else {
            max(zYo[0], zYo[1], m);
            for (int yo = 2; yo < L; yo++) max(m, zYo[yo], m);
            maxScalar(m, -BIG, mc);
            for (int yo = 0; yo < L; yo++) sub(zYo[yo], mc, zYo[yo]);
            exp(z, z);
            add(zYo[0], zYo[1], tmp);
            for (int yo = 2; yo < L; yo++) add(tmp, zYo[yo], tmp);
            log(tmp, tmp);
            add(tmp, mc, m);                 // exact m
            maxScalar(m, -BIG, mc);
        }
        long t2 = prof.now();
        // real edges only: clamp = min(max(m, lo), hi)
        max(m, planes.lo[col], tmp);
        min(tmp, planes.hi[col], tmp);
        long t3 = prof.now();
        INDArray uu = planes.u[col];
        add(planes.unaryT[col], cD[0], uu);  // total = T + sum_d clamp
        add(uu, cD[1], uu);
        add(uu, cD[2], uu);
        add(uu, cD[3], uu);
        mul(uu, planes.invN[col], uu);       // U = total / N
        for (int d = 0; d < 4; d++) sub(uu, bD[d], lamD[col][d]);  // lam = U - max(m, -BIG)
        if (prof.on) {
            long t4 = System.nanoTime();
            prof.nanos[0] += t1 - t0;
            prof.nanos[1] += t2 - t1;
            prof.nanos[2] += t3 - t2;
            prof.nanos[3] += t4 - t3;
        }
    }
}
