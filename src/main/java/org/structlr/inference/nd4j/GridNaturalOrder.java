package org.structlr.inference.nd4j;

import org.structlr.inference.EngineInputs;
import org.structlr.inference.MessagePassing;

import static org.structlr.inference.nd4j.PlaneOps.add;
import static org.structlr.inference.nd4j.PlaneOps.max;
import static org.structlr.inference.nd4j.PlaneOps.min;
import static org.structlr.inference.nd4j.PlaneOps.sub;

import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.api.ops.impl.scalar.ScalarDivision;
import org.nd4j.linalg.api.ops.impl.scalar.ScalarMultiplication;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.indexing.BooleanIndexing;
import org.nd4j.linalg.indexing.conditions.Conditions;

/**
 * Moves potentials and messages between natural order ({@link MessagePassing}'s {@code [V, L]},
 * {@code [E, L*L]}, {@code [E, 2, L]}, natural units) and the {@link GridPlanes} (eps units), on
 * the device: every move is one gather per colour plane ({@code gather_nd}) through an index array
 * built once from the {@link GridLayout}, and the arithmetic is element-wise ND4J ops. A plane
 * position with nothing to read (a phantom pixel, a missing edge) reads a trailing zero appended to
 * the source. Nothing is copied to the host here except the labels of {@link #decode} (V ints) and
 * the two booleans of each input check ({@link EngineInputs}).
 *
 * <p>Hard constraints, as in {@link GraphMessagePassing}: after potentials or messages are set, a
 * label is impossible at a pixel when its unary potential or any incoming message on a real edge
 * is minus infinity; it then gets {@code U = -inf} and minus infinity on every incoming message,
 * as a star update would give it. Otherwise {@code U = T - sum of incoming messages}. Since no
 * input is plus infinity, {@code T - sum} is not finite exactly where the label is impossible
 * ({@code -inf - x}, {@code x - (-inf)} or {@code -inf - (-inf)}), which is how it is found.
 */
final class GridNaturalOrder {
    private final GridPlanes planes;
    private final GridLayout layout;
    private final double eps;
    private final int labels, numVars, numEdges, n2, blk;
    /** Per colour: for each plane position, the natural index it reads (the sentinel when none). */
    private final INDArray[] unaryFrom = new INDArray[2], pairFrom = new INDArray[2], messageFrom = new INDArray[2];
    /** Natural (v, y) and (e, s, y) -> position in the two colours' planes laid end to end. */
    private final INDArray unaryTo, messageTo;
    /** Natural inputs with a trailing zero (the sentinel): [V*L + 1], [E*L*L + 1], [E*2*L + 1]. */
    private final INDArray unarySrc, pairSrc, messageSrc;
    /** Scratch: both colours' [y][jn] planes, or [d][y][jn] message planes, end to end. */
    private final INDArray unaryCat, messageCat;
    /** Scratch [y][jn]: the impossible-label mask (0 or -inf). */
    private final INDArray dead;

    GridNaturalOrder(GridPlanes planes, double eps) {
        this.planes = planes;
        this.layout = planes.layout;
        this.eps = eps;
        this.labels = planes.labels;
        this.numVars = layout.numVariables();
        this.numEdges = layout.numEdges();
        this.n2 = planes.n2;
        this.blk = planes.blk;
        final int L = labels;
        int sentU = numVars * L, sentP = numEdges * L * L, sentM = numEdges * 2 * L;
        int[][] uFrom = new int[2][L * n2], pFrom = new int[2][L * blk], mFrom = new int[2][blk];
        for (int c = 0; c < 2; c++) {
            java.util.Arrays.fill(uFrom[c], sentU);
            java.util.Arrays.fill(pFrom[c], sentP);
            java.util.Arrays.fill(mFrom[c], sentM);
        }
        int[] uTo = new int[numVars * L], mTo = new int[numEdges * 2 * L];
        for (int v = 0; v < numVars; v++) {
            GridLayout.Slot s = layout.varSlot[v];
            for (int y = 0; y < L; y++) {
                uFrom[s.colour()][planes.unaryAt(y, s.jn())] = v * L + y;
                uTo[v * L + y] = s.colour() * L * n2 + planes.unaryAt(y, s.jn());
            }
        }
        for (int e = 0; e < numEdges; e++) {
            GridLayout.EdgeSlots es = layout.edges[e];
            GridLayout.Slot a = es.first(), b = es.second();
            int d = es.dir();
            for (int yi = 0; yi < L; yi++) {
                for (int yj = 0; yj < L; yj++) {
                    int k = e * L * L + yi * L + yj;
                    pFrom[a.colour()][(int) planes.potAt(yj, d, yi, a.jn())] = k;       // at the first end: own yi, other yj
                    pFrom[b.colour()][(int) planes.potAt(yi, d ^ 1, yj, b.jn())] = k;   // at the second end: own yj, other yi
                }
            }
            for (int y = 0; y < L; y++) {
                int first = planes.lamAt(d, y, a.jn()), second = planes.lamAt(d ^ 1, y, b.jn());
                mFrom[a.colour()][first] = (e * 2) * L + y;
                mFrom[b.colour()][second] = (e * 2 + 1) * L + y;
                mTo[(e * 2) * L + y] = a.colour() * blk + first;
                mTo[(e * 2 + 1) * L + y] = b.colour() * blk + second;
            }
        }
        for (int c = 0; c < 2; c++) {
            unaryFrom[c] = Nd4jKernels.indexColumn(uFrom[c]);
            pairFrom[c] = Nd4jKernels.indexColumn(pFrom[c]);
            messageFrom[c] = Nd4jKernels.indexColumn(mFrom[c]);
        }
        unaryTo = Nd4jKernels.indexColumn(uTo);
        messageTo = numEdges == 0 ? null : Nd4jKernels.indexColumn(mTo);
        unarySrc = Nd4j.zeros(planes.dtype, sentU + 1L);
        pairSrc = Nd4j.zeros(planes.dtype, sentP + 1L);
        messageSrc = Nd4j.zeros(planes.dtype, sentM + 1L);
        unaryCat = Nd4j.zeros(planes.dtype, 2L * L * n2);
        messageCat = Nd4j.zeros(planes.dtype, 2L * blk);
        dead = Nd4j.zeros(planes.dtype, (long) L * n2);
    }

    void setPotentials(INDArray unary, INDArray pairwise) {
        final int L = labels;
        EngineInputs.checkPotentials("unary", unary, numVars, L);
        EngineInputs.checkPotentials("pairwise", pairwise, numEdges, (long) L * L);
        load(unary, unarySrc, (long) numVars * L);
        load(pairwise, pairSrc, (long) numEdges * L * L);
        for (int col = 0; col < 2; col++) {
            Nd4jKernels.gather(unarySrc, unaryFrom[col], planes.unaryT[col]);
            Nd4jKernels.gather(pairSrc, pairFrom[col], planes.pot[col]);
            Nd4j.exec(new ScalarDivision(planes.unaryT[col], eps));
            Nd4j.exec(new ScalarDivision(planes.pot[col], eps));
        }
        recomputeU();
    }

    /** Copies natural values into the first {@code n} entries of a source (its last stays the sentinel 0). */
    private void load(INDArray natural, INDArray src, long n) {
        if (n == 0) return;
        GridPlanes.view(src, 0, n).assign(natural.castTo(planes.dtype).reshape('c', new long[] {n}));
    }

    /** Both colours' lam planes end to end, missing-edge and phantom slots 0 (the sweep leaves junk there). */
    private INDArray lamPlanes() {
        for (int col = 0; col < 2; col++) {
            INDArray out = GridPlanes.view(messageCat, (long) col * blk, blk);
            max(planes.lam[col], planes.lo[col], out);
            min(out, planes.hi[col], out);
        }
        return messageCat;
    }

    INDArray messages() {
        final int L = labels;
        if (numEdges == 0) return Nd4j.create(planes.dtype, 0, 2, L);
        INDArray out = Nd4j.create(planes.dtype, (long) numEdges * 2 * L);
        Nd4jKernels.gather(lamPlanes(), messageTo, out);
        return out.muli(eps).reshape(numEdges, 2, L);
    }

    void setMessages(INDArray messages) {
        EngineInputs.checkMessages(messages, numEdges, labels);
        load(messages, messageSrc, (long) numEdges * 2 * labels);
        for (int col = 0; col < 2; col++) {
            Nd4jKernels.gather(messageSrc, messageFrom[col], planes.lam[col]);
            Nd4j.exec(new ScalarDivision(planes.lam[col], eps));
        }
        recomputeU();
    }

    /** All messages 0, U = T; impossible labels (T = -inf) get -inf messages. */
    void resetMessages() {
        for (int col = 0; col < 2; col++) planes.lam[col].assign(0);
        recomputeU();
    }

    /** [V, L]: eps * sum over real edges of the incoming messages (directions in order, missing ones 0). */
    INDArray incomingMessageSums() {
        final int L = labels, dl = L * n2;
        INDArray lam = lamPlanes();
        for (int col = 0; col < 2; col++) {
            INDArray sum = GridPlanes.view(unaryCat, (long) col * dl, dl);
            long at = (long) col * blk;
            add(GridPlanes.view(lam, at, dl), GridPlanes.view(lam, at + dl, dl), sum);
            add(sum, GridPlanes.view(lam, at + 2L * dl, dl), sum);
            add(sum, GridPlanes.view(lam, at + 3L * dl, dl), sum);
        }
        return toNatural(unaryCat).muli(eps);
    }

    /** The U planes (eps units) in natural order, {@code [V, L]}: what the beliefs and the labels are read from. */
    INDArray naturalU() {
        for (int col = 0; col < 2; col++) GridPlanes.view(unaryCat, (long) col * labels * n2, (long) labels * n2).assign(planes.u[col]);
        return toNatural(unaryCat);
    }

    /** [V, L] in natural order from both colours' [y][jn] planes laid end to end ({@code [2 L n2]}). */
    INDArray toNatural(INDArray planesEndToEnd) {
        INDArray out = Nd4j.create(planes.dtype, (long) numVars * labels);
        Nd4jKernels.gather(planesEndToEnd, unaryTo, out);
        return out.reshape(numVars, labels);
    }

    /**
     * Stores the current lam planes (eps units) with U = T - sum over real edges of the incoming
     * messages, minus infinity exact (see the class comment): the missing-edge and phantom messages
     * are set to 0, the messages into an impossible label to -inf.
     */
    private void recomputeU() {
        final int dl = labels * n2;
        for (int col = 0; col < 2; col++) {
            INDArray lam = planes.lam[col], u = planes.u[col];
            max(lam, planes.lo[col], lam);
            min(lam, planes.hi[col], lam);                                   // missing edges, phantoms: 0
            sub(planes.unaryT[col], GridPlanes.view(lam, 0, dl), u);
            for (int d = 1; d < 4; d++) sub(u, GridPlanes.view(lam, (long) d * dl, dl), u);
            BooleanIndexing.replaceWhere(u, Double.NEGATIVE_INFINITY, Conditions.isNan());
            BooleanIndexing.replaceWhere(u, Double.NEGATIVE_INFINITY, Conditions.isInfinite());  // +inf -> -inf
            Nd4j.exec(new ScalarMultiplication(u, null, dead, 0.0));        // 0, or NaN where U = -inf
            BooleanIndexing.replaceWhere(dead, Double.NEGATIVE_INFINITY, Conditions.isNan());
            for (int d = 0; d < 4; d++) {
                INDArray ld = GridPlanes.view(lam, (long) d * dl, dl);
                add(ld, dead, ld);
            }
            max(lam, planes.lo[col], lam);
            min(lam, planes.hi[col], lam);                                   // -inf only on real edges
        }
    }
}
