package org.structlr.inference.nd4j;

import org.structlr.inference.MessagePassing;

import java.util.Arrays;

import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;

/**
 * Moves potentials and messages between natural order ({@link MessagePassing}'s {@code [V, L]},
 * {@code [E, L*L]}, {@code [E, 2, L]}, natural units) and the {@link GridPlanes} (eps units). These
 * go through the host once per call; none is in the sweep loop.
 *
 * <p>Hard constraints, as in {@link GraphMessagePassing}: after potentials or messages are set, a
 * label is impossible at a pixel when its unary potential or any incoming message on a real edge
 * is minus infinity; it then gets {@code U = -inf} and minus infinity on every incoming message,
 * as a star update would give it. Otherwise {@code U = T - sum of incoming messages}.
 */
final class GridNaturalOrder {
    private final GridPlanes planes;
    private final GridLayout layout;
    private final double eps;

    GridNaturalOrder(GridPlanes planes, double eps) {
        this.planes = planes;
        this.layout = planes.layout;
        this.eps = eps;
    }

    void setPotentials(INDArray unary, INDArray pairwise) {
        final int L = planes.labels;
        int nv = layout.numVariables(), ne = layout.numEdges();
        checkShape("unary", unary, nv, L);
        checkShape("pairwise", pairwise, ne, L * L);
        double[] un = unary.dup('c').data().asDouble();
        double[] pw = pairwise.dup('c').data().asDouble();
        checkValues("unary", un, L);
        checkValues("pairwise", pw, L * L);
        double[][] t = new double[2][L * planes.n2];
        double[][] p = new double[2][L * planes.blk];
        for (int v = 0; v < nv; v++) {
            GridLayout.Slot s = layout.varSlot[v];
            for (int y = 0; y < L; y++) t[s.colour()][planes.unaryAt(y, s.jn())] = un[v * L + y] / eps;
        }
        for (int e = 0; e < ne; e++) {
            GridLayout.EdgeSlots es = layout.edges[e];
            GridLayout.Slot a = es.first(), b = es.second();
            int d = es.dir();
            for (int yi = 0; yi < L; yi++) {
                for (int yj = 0; yj < L; yj++) {
                    double val = pw[e * L * L + yi * L + yj] / eps;
                    p[a.colour()][(int) planes.potAt(yj, d, yi, a.jn())] = val;       // at the first end: own yi, other yj
                    p[b.colour()][(int) planes.potAt(yi, d ^ 1, yj, b.jn())] = val;   // at the second end: own yj, other yi
                }
            }
        }
        for (int col = 0; col < 2; col++) {
            planes.unaryT[col].assign(planes.vec(t[col]));
            planes.pot[col].assign(planes.vec(p[col]));
        }
        recomputeU(t, lamHost());
    }

    INDArray messages() {
        final int L = planes.labels;
        int ne = layout.numEdges();
        double[][] lm = lamHost();
        double[] out = new double[ne * 2 * L];
        for (int e = 0; e < ne; e++) {
            GridLayout.EdgeSlots es = layout.edges[e];
            for (int y = 0; y < L; y++) {
                out[(e * 2) * L + y] = eps * lm[es.first().colour()][planes.lamAt(es.dir(), y, es.first().jn())];
                out[(e * 2 + 1) * L + y] = eps * lm[es.second().colour()][planes.lamAt(es.dir() ^ 1, y, es.second().jn())];
            }
        }
        return Nd4j.createFromArray(out).castTo(planes.dtype).reshape(ne, 2, L);
    }

    void setMessages(INDArray messages) {
        final int L = planes.labels;
        int ne = layout.numEdges();
        if (messages == null || messages.rank() != 3 || messages.size(0) != ne || messages.size(1) != 2 || messages.size(2) != L) {
            throw new IllegalArgumentException("messages must have shape [" + ne + ", 2, " + L + "], got "
                    + (messages == null ? "null" : Arrays.toString(messages.shape())));
        }
        double[] in = messages.dup('c').data().asDouble();
        for (int i = 0; i < in.length; i++) {
            if (Double.isNaN(in[i]) || in[i] == Double.POSITIVE_INFINITY) {
                throw new IllegalArgumentException("message [" + (i / (2 * L)) + ", " + (i / L % 2) + ", " + (i % L) + "] is " + in[i]);
            }
        }
        double[][] lm = new double[2][planes.blk];
        for (int e = 0; e < ne; e++) {
            GridLayout.EdgeSlots es = layout.edges[e];
            for (int y = 0; y < L; y++) {
                lm[es.first().colour()][planes.lamAt(es.dir(), y, es.first().jn())] = in[(e * 2) * L + y] / eps;
                lm[es.second().colour()][planes.lamAt(es.dir() ^ 1, y, es.second().jn())] = in[(e * 2 + 1) * L + y] / eps;
            }
        }
        recomputeU(unaryHost(), lm);
    }

    /** All messages 0, U = T; impossible labels (T = -inf) get -inf messages. */
    void resetMessages() {
        recomputeU(unaryHost(), new double[][] {new double[planes.blk], new double[planes.blk]});
    }

    /** [V, L]: eps * sum over real edges of the incoming messages. */
    INDArray incomingMessageSums() {
        final int L = planes.labels;
        int nv = layout.numVariables();
        double[][] lm = lamHost();
        double[] out = new double[nv * L];
        for (int v = 0; v < nv; v++) {
            GridLayout.Slot s = layout.varSlot[v];
            for (int y = 0; y < L; y++) {
                double sum = 0;
                for (int d = 0; d < 4; d++) if (layout.realEdge[s.colour()][d][s.jn()]) sum += lm[s.colour()][planes.lamAt(d, y, s.jn())];
                out[v * L + y] = eps * sum;
            }
        }
        return Nd4j.createFromArray(out).castTo(planes.dtype).reshape(nv, L);
    }

    /** Per natural variable, the U plane value (eps units) of label y: {@code [V * L]}. */
    double[] naturalU() {
        final int L = planes.labels;
        double[][] uh = {planes.u[0].toDoubleVector(), planes.u[1].toDoubleVector()};
        double[] out = new double[layout.numVariables() * L];
        for (int v = 0; v < layout.numVariables(); v++) {
            GridLayout.Slot s = layout.varSlot[v];
            for (int y = 0; y < L; y++) out[v * L + y] = uh[s.colour()][planes.unaryAt(y, s.jn())];
        }
        return out;
    }

    private double[][] lamHost() {
        return new double[][] {planes.lam[0].toDoubleVector(), planes.lam[1].toDoubleVector()};
    }

    private double[][] unaryHost() {
        return new double[][] {planes.unaryT[0].toDoubleVector(), planes.unaryT[1].toDoubleVector()};
    }

    /**
     * Stores messages {@code lm} (eps units, layout order) with U = T - sum over real edges of the
     * incoming messages, keeping minus infinity exact: a label whose T or any real incoming message
     * is -inf is impossible (U = -inf, every real incoming message -inf). Missing-edge and phantom
     * messages are set to 0.
     */
    private void recomputeU(double[][] t, double[][] lm) {
        final int L = planes.labels, n2 = planes.n2;
        for (int col = 0; col < 2; col++) {
            double[] uu = new double[L * n2];
            boolean[][] real = layout.realEdge[col];
            for (int jn = 0; jn < n2; jn++) {
                for (int y = 0; y < L; y++) {
                    double s = t[col][planes.unaryAt(y, jn)];
                    boolean dead = s == Double.NEGATIVE_INFINITY;
                    for (int d = 0; d < 4; d++) {
                        int i = planes.lamAt(d, y, jn);
                        if (!real[d][jn]) lm[col][i] = 0;
                        else if (lm[col][i] == Double.NEGATIVE_INFINITY) dead = true;
                        else s -= lm[col][i];
                    }
                    if (dead) {
                        for (int d = 0; d < 4; d++) if (real[d][jn]) lm[col][planes.lamAt(d, y, jn)] = Double.NEGATIVE_INFINITY;
                        s = Double.NEGATIVE_INFINITY;
                    }
                    uu[planes.unaryAt(y, jn)] = s;
                }
            }
            planes.lam[col].assign(planes.vec(lm[col]));
            planes.u[col].assign(planes.vec(uu));
        }
    }

    private static void checkShape(String what, INDArray a, long rows, long cols) {
        if (a == null) throw new IllegalArgumentException(what + " potentials are null");
        if (a.rank() != 2 || a.size(0) != rows || a.size(1) != cols) {
            throw new IllegalArgumentException(what + " potentials must have shape [" + rows + ", " + cols + "], got " + Arrays.toString(a.shape()));
        }
    }

    private static void checkValues(String what, double[] a, int cols) {
        for (int i = 0; i < a.length; i++) {
            if (Double.isNaN(a[i]) || a[i] == Double.POSITIVE_INFINITY) {
                throw new IllegalArgumentException(what + " potential [" + (i / cols) + ", " + (i % cols) + "] is "
                        + a[i] + "; only finite values and minus infinity are allowed");
            }
        }
    }
}
