package org.structlr.inference;

import java.util.ArrayList;
import java.util.List;

import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.api.ops.impl.scalar.ScalarMax;
import org.nd4j.linalg.api.ops.impl.transforms.pairwise.arithmetic.Axpy;
import org.nd4j.linalg.api.ops.impl.transforms.pairwise.arithmetic.MulOp;
import org.nd4j.linalg.api.ops.impl.transforms.same.Max;
import org.nd4j.linalg.api.ops.impl.transforms.same.Min;
import org.nd4j.linalg.api.ops.impl.transforms.strict.Exp;
import org.nd4j.linalg.api.ops.impl.transforms.strict.Log;
import org.nd4j.linalg.api.ops.impl.transforms.strict.SoftPlus;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.indexing.NDArrayIndex;
import org.nd4j.linalg.ops.transforms.Transforms;
import org.structlr.graph.FactorGraph;
import org.structlr.graph.Grids;

/**
 * Star-update message passing (DESIGN §1) specialised to a batch of {@code count} 4-connected
 * grids of {@code height x width} pixels with {@code labels} labels each: the fast path behind
 * {@link MessagePassing}. The graph is the disjoint union of {@code count} copies of
 * {@code Grids.grid(height, width, labels, false)}; the colouring is the checkerboard
 * {@code (row + col) % 2}, colour 0 first.
 *
 * <h2>Layout</h2>
 * Pixel {@code (r, c) = (2p + a, 2q + b)} belongs to sub-lattice {@code (a, b)}; odd sizes are
 * padded with phantom pixels that have no edges. Colour 0 holds sub-lattices (0,0) and (1,1),
 * colour 1 holds (0,1) and (1,0); in both, member {@code j = a}. A position is
 * {@code k = (image * H2 + p) * W2 + q} with {@code H2 = ceil(H/2)}, {@code W2 = ceil(W/2)},
 * {@code n = count * H2 * W2}, and {@code jn = j * n + k}. Per colour, every quantity is one flat
 * contiguous 1-D array (all in units of eps):
 * <ul>
 *   <li>{@code lam[d][y][jn]}: message into the pixel from its edge in direction d
 *       (0 right, 1 left, 2 down, 3 up);</li>
 *   <li>{@code P[yo][d][y][jn]}: the pairwise potential of that edge, oriented (own label y,
 *       neighbour label yo); zero on missing edges;</li>
 *   <li>{@code T[y][jn]}, {@code U[y][jn]} = T - sum of incoming messages (= total / N after an
 *       update), {@code invN[y][jn]} = 1 / (real degree + 1).</li>
 * </ul>
 * Every neighbour of a sub-lattice is a sub-lattice of the other colour at a flat offset of 0,
 * +-1 or +-W2, so the neighbour's message is a 1-D view at an offset. Positions whose view wraps
 * across a row or image, or whose edge is missing, read junk (always finite or minus infinity,
 * never NaN) and are cut out exactly by clamping with per-element bounds
 * {@code min(max(m, LO), HI)}: LO = -inf, HI = +inf on real edges, LO = HI = 0 on missing ones.
 *
 * <h2>Star update of one colour (eps units)</h2>
 * <pre>
 *   z[yo][d][y]   = P[yo][d][y] + lam_nb(d)[yo]                 (4 L^2 ops per member)
 *   m[d][y]       = lse_yo z[yo][d][y]                          (L = 2: max + softplus(min - max))
 *   total[y]      = T[y] + sum_d clamp(m[d][y])                 (real edges only, exact -inf)
 *   U[y]          = total[y] / N
 *   lam[d][y]     = U[y] - max(m[d][y], -BIG)                   (impossible labels: -inf)
 * </pre>
 * Only whole contiguous buffers or offset views of 1-D buffers are touched in the hot loop; all
 * views are made once here and no array is allocated per sweep.
 */
public final class GridMessagePassing implements MessagePassing {
    private static final double BIG = 1e30;
    private static final int R = 0, LEFT = 1, D = 2, UP = 3;

    private final int count, height, width, labels, h2, w2, n, pad;
    private final double eps;
    private final DataType dtype;
    private final FactorGraph graph;

    // natural order -> layout
    private final int[] varColor, varJn; // per natural variable
    private final int[] edgeFromColor, edgeFromJn, edgeToColor, edgeToJn, edgeDir; // edgeDir: R or D (at the first end)
    // geometry masks per colour: realPix[c][jn], realEdge[c][d][jn]
    private final boolean[][] realPix;
    private final boolean[][][] realEdge;

    // per-colour state
    private final INDArray[] lamBase = new INDArray[2]; // padded
    private final INDArray[] lam = new INDArray[2];     // [d][y][jn]
    private final INDArray[] pot = new INDArray[2];     // [yo][d][y][jn]
    private final INDArray[] unaryT = new INDArray[2];  // [y][jn]
    private final INDArray[] u = new INDArray[2];       // [y][jn]
    private final INDArray[] invN = new INDArray[2];    // [y][jn]
    private final INDArray[] lo = new INDArray[2], hi = new INDArray[2]; // [d][y][jn]
    private final INDArray pixMask[] = new INDArray[2];  // [jn] 0/1
    private final INDArray edgeLo0, edgeHi0, edgeMask0;   // colour 0, [d][jn]

    // scratch
    private final INDArray z;        // [yo][d][y][jn]
    private final INDArray bufA, bufB, bufC; // [d][y][jn]

    // views for the hot loop
    private final INDArray[][] zAdd = new INDArray[2][];   // per colour: triples (P view, nb view, z view) flattened
    private final INDArray[] zYo;                          // z[yo] blocks
    private final INDArray[] aD, bD, cD;                   // buffer [d] blocks
    private final INDArray[][] lamD = new INDArray[2][];   // lam[c][d]

    private boolean potentialsSet;

    /** Per-phase nanoseconds of the last sweeps, when {@link #profile} is on (for GridSpeedCheck). */
    final long[] phaseNanos = new long[4];
    boolean profile;

    public GridMessagePassing(int count, int height, int width, int labels, double eps, DataType dtype) {
        if (count < 1) throw new IllegalArgumentException("count must be at least 1, got " + count);
        if (height < 1 || width < 1) throw new IllegalArgumentException("grid of " + height + "x" + width + " has no pixels");
        if (labels < 2) throw new IllegalArgumentException("at least 2 labels are needed, got " + labels);
        if (!(eps > 0) || Double.isInfinite(eps)) throw new IllegalArgumentException("eps must be positive and finite, got " + eps);
        if (dtype != DataType.FLOAT && dtype != DataType.DOUBLE) throw new IllegalArgumentException("dtype must be FLOAT or DOUBLE, got " + dtype);
        this.count = count;
        this.height = height;
        this.width = width;
        this.labels = labels;
        this.eps = eps;
        this.dtype = dtype;
        this.h2 = (height + 1) / 2;
        this.w2 = (width + 1) / 2;
        long nl = (long) count * h2 * w2;
        if (nl * 8L * labels * labels > Integer.MAX_VALUE) throw new IllegalArgumentException("grid batch too large");
        this.n = (int) nl;
        this.pad = w2 + 1;
        FactorGraph one = Grids.grid(height, width, labels, false);
        List<FactorGraph> parts = new ArrayList<>();
        for (int i = 0; i < count; i++) parts.add(one);
        this.graph = FactorGraph.disjointUnion(parts);
        final int L = labels, n2 = 2 * n, blk = 4 * L * n2;

        // ---- index maps -------------------------------------------------------------
        int nv = graph.numVariables();
        varColor = new int[nv];
        varJn = new int[nv];
        realPix = new boolean[2][n2];
        realEdge = new boolean[2][4][n2];
        for (int img = 0; img < count; img++) {
            for (int r = 0; r < height; r++) {
                for (int c = 0; c < width; c++) {
                    int v = (img * height + r) * width + c;
                    int col = (r + c) & 1, jn = jnOf(img, r, c);
                    varColor[v] = col;
                    varJn[v] = jn;
                    realPix[col][jn] = true;
                    realEdge[col][R][jn] = c + 1 < width;
                    realEdge[col][LEFT][jn] = c > 0;
                    realEdge[col][D][jn] = r + 1 < height;
                    realEdge[col][UP][jn] = r > 0;
                }
            }
        }
        int ne = graph.numEdges(), nh = height * (width - 1);
        edgeFromColor = new int[ne];
        edgeFromJn = new int[ne];
        edgeToColor = new int[ne];
        edgeToJn = new int[ne];
        edgeDir = new int[ne];
        for (int e = 0; e < ne; e++) {
            int a = graph.edgeFrom(e), b = graph.edgeTo(e);
            edgeFromColor[e] = varColor[a];
            edgeFromJn[e] = varJn[a];
            edgeToColor[e] = varColor[b];
            edgeToJn[e] = varJn[b];
            int local = e % (nh + (height - 1) * width);
            edgeDir[e] = local < nh ? R : D;
        }

        // ---- buffers --------------------------------------------------------------------
        for (int col = 0; col < 2; col++) {
            lamBase[col] = Nd4j.zeros(dtype, blk + 2L * pad);
            lam[col] = lamBase[col].get(NDArrayIndex.interval(pad, pad + blk));
            pot[col] = Nd4j.zeros(dtype, (long) L * blk);
            unaryT[col] = Nd4j.zeros(dtype, (long) L * n2);
            u[col] = Nd4j.zeros(dtype, (long) L * n2);
            double[] inv = new double[L * n2], pm = new double[n2];
            double[] los = new double[blk], his = new double[blk];
            for (int jn = 0; jn < n2; jn++) {
                int deg = 0;
                for (int d = 0; d < 4; d++) if (realEdge[col][d][jn]) deg++;
                for (int y = 0; y < L; y++) inv[y * n2 + jn] = 1.0 / (deg + 1);
                pm[jn] = realPix[col][jn] ? 1 : 0;
                for (int d = 0; d < 4; d++) {
                    for (int y = 0; y < L; y++) {
                        int i = (d * L + y) * n2 + jn;
                        los[i] = realEdge[col][d][jn] ? Double.NEGATIVE_INFINITY : 0;
                        his[i] = realEdge[col][d][jn] ? Double.POSITIVE_INFINITY : 0;
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
                boolean real = realEdge[0][d][jn];
                elo[d * n2 + jn] = real ? Double.NEGATIVE_INFINITY : 0;
                ehi[d * n2 + jn] = real ? Double.POSITIVE_INFINITY : 0;
                em[d * n2 + jn] = real ? 1 : 0;
            }
        }
        edgeLo0 = vec(elo);
        edgeHi0 = vec(ehi);
        edgeMask0 = vec(em);
        z = Nd4j.zeros(dtype, (long) L * blk);
        bufA = Nd4j.zeros(dtype, blk);
        bufB = Nd4j.zeros(dtype, blk);
        bufC = Nd4j.zeros(dtype, blk);

        // ---- views ----------------------------------------------------------------------
        zYo = new INDArray[L];
        for (int yo = 0; yo < L; yo++) zYo[yo] = view(z, (long) yo * blk, blk);
        aD = new INDArray[4];
        bD = new INDArray[4];
        cD = new INDArray[4];
        for (int d = 0; d < 4; d++) {
            aD[d] = view(bufA, (long) d * L * n2, L * n2);
            bD[d] = view(bufB, (long) d * L * n2, L * n2);
            cD[d] = view(bufC, (long) d * L * n2, L * n2);
        }
        for (int col = 0; col < 2; col++) {
            lamD[col] = new INDArray[4];
            for (int d = 0; d < 4; d++) lamD[col][d] = view(lam[col], (long) d * L * n2, L * n2);
            List<INDArray> triples = new ArrayList<>();
            for (int yo = 0; yo < L; yo++) {
                for (int d = 0; d < 4; d++) {
                    for (int y = 0; y < L; y++) {
                        for (int j = 0; j < 2; j++) {
                            long at = (long) yo * blk + ((long) (d * L + y) * 2 + j) * n;
                            int[] nb = neighbour(col, j, d); // {j', offset}
                            long src = pad + ((long) ((d ^ 1) * L + yo) * 2 + nb[0]) * n + nb[1];
                            // the padded base keeps every offset view in bounds; reads outside the batch are junk on missing edges
                            triples.add(view(pot[col], at, n));
                            triples.add(view(lamBase[1 - col], src, n));
                            triples.add(view(z, at, n));
                        }
                    }
                }
            }
            zAdd[col] = triples.toArray(new INDArray[0]);
        }
        resetMessages();
    }

    private INDArray vec(double[] a) {
        return Nd4j.createFromArray(a).castTo(dtype);
    }

    private static INDArray view(INDArray base, long offset, long length) {
        return base.get(NDArrayIndex.interval(offset, offset + length));
    }

    private int jnOf(int img, int r, int c) {
        int j = r & 1;
        return j * n + (img * h2 + (r >> 1)) * w2 + (c >> 1);
    }

    /** The neighbour of member j of colour col in direction d: {member j' of the other colour, flat offset}. */
    private int[] neighbour(int col, int j, int d) {
        int a = j, b = (col + j) & 1;
        switch (d) {
            case R: return b == 0 ? new int[] {a, 0} : new int[] {a, 1};
            case LEFT: return b == 1 ? new int[] {a, 0} : new int[] {a, -1};
            case D: return a == 0 ? new int[] {1, 0} : new int[] {0, w2};
            default: return a == 1 ? new int[] {0, 0} : new int[] {1, -w2};
        }
    }

    // ---- element-wise kernels (explicit outputs, no allocation) ---------------------------
    // Axpy (out = p * x + y) is a legacy pairwise op: about a third of the dispatch cost of the
    // custom AddOp/SubOp, and bit-identical to them (p = +-1 is an exact sign change), infinities included.
    private static void add(INDArray x, INDArray y, INDArray out) { Nd4j.exec(new Axpy(y, x, out, 1.0)); }
    private static void sub(INDArray x, INDArray y, INDArray out) { Nd4j.exec(new Axpy(y, x, out, -1.0)); }
    private static void mul(INDArray x, INDArray y, INDArray out) { Nd4j.exec(new MulOp(x, y, out)); }
    private static void max(INDArray x, INDArray y, INDArray out) { Nd4j.exec(new Max(x, y, out)); }
    private static void min(INDArray x, INDArray y, INDArray out) { Nd4j.exec(new Min(x, y, out)); }
    private static void maxScalar(INDArray x, double v, INDArray out) { Nd4j.exec(new ScalarMax(x, null, out, v)); }
    private static void exp(INDArray x, INDArray out) { Nd4j.exec(new Exp(x, out)); }
    private static void log(INDArray x, INDArray out) { Nd4j.exec(new Log(x, out)); }
    private static void softplus(INDArray x, INDArray out) { Nd4j.exec(new SoftPlus(x, out)); }

    @Override public FactorGraph graph() { return graph; }
    @Override public double eps() { return eps; }

    public int count() { return count; }
    public int height() { return height; }
    public int width() { return width; }
    public int labels() { return labels; }
    public DataType dataType() { return dtype; }

    // ---- hot loop ---------------------------------------------------------------------------

    @Override
    public void iterate(int sweeps) {
        if (sweeps < 0) throw new IllegalArgumentException("sweeps must be at least 0, got " + sweeps);
        for (int s = 0; s < sweeps; s++) {
            updateColour(0);
            updateColour(1);
        }
    }

    /** Fills z[yo][d][y][jn] = P + neighbour message for colour col. */
    private void fillZ(int col) {
        INDArray[] t = zAdd[col];
        for (int i = 0; i < t.length; i += 3) add(t[i], t[i + 1], t[i + 2]);
    }

    private void updateColour(int col) {
        final int L = labels;
        long t0 = profile ? System.nanoTime() : 0;
        fillZ(col);
        long t1 = profile ? System.nanoTime() : 0;
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
        long t2 = profile ? System.nanoTime() : 0;
        // real edges only: tmp = min(max(m, LO), HI)
        max(m, lo[col], tmp);
        min(tmp, hi[col], tmp);
        long t3 = profile ? System.nanoTime() : 0;
        INDArray uu = u[col];
        add(unaryT[col], cD[0], uu);
        add(uu, cD[1], uu);
        add(uu, cD[2], uu);
        add(uu, cD[3], uu);
        mul(uu, invN[col], uu);
        for (int d = 0; d < 4; d++) sub(uu, bD[d], lamD[col][d]);
        if (profile) {
            long t4 = System.nanoTime();
            phaseNanos[0] += t1 - t0;
            phaseNanos[1] += t2 - t1;
            phaseNanos[2] += t3 - t2;
            phaseNanos[3] += t4 - t3;
        }
    }

    // ---- potentials and messages (natural order <-> layout) --------------------------------

    @Override
    public void setPotentials(INDArray unary, INDArray pairwise) {
        final int L = labels, n2 = 2 * n, blk = 4 * L * n2;
        int nv = graph.numVariables(), ne = graph.numEdges();
        checkShape("unary", unary, nv, L);
        checkShape("pairwise", pairwise, ne, L * L);
        double[] un = unary.dup('c').data().asDouble();
        double[] pw = pairwise.dup('c').data().asDouble();
        checkValues("unary", un, L);
        checkValues("pairwise", pw, L * L);
        double[][] t = new double[2][L * n2];
        double[][] p = new double[2][L * blk];
        for (int v = 0; v < nv; v++) {
            for (int y = 0; y < L; y++) t[varColor[v]][y * n2 + varJn[v]] = un[v * L + y] / eps;
        }
        for (int e = 0; e < ne; e++) {
            int d = edgeDir[e], cf = edgeFromColor[e], ct = edgeToColor[e], jf = edgeFromJn[e], jt = edgeToJn[e];
            for (int yi = 0; yi < L; yi++) {
                for (int yj = 0; yj < L; yj++) {
                    double val = pw[e * L * L + yi * L + yj] / eps;
                    p[cf][yj * blk + (d * L + yi) * n2 + jf] = val;          // at the first end: own yi, other yj
                    p[ct][yi * blk + ((d ^ 1) * L + yj) * n2 + jt] = val;    // at the second end: own yj, other yi
                }
            }
        }
        for (int col = 0; col < 2; col++) {
            unaryT[col].assign(vec(t[col]));
            pot[col].assign(vec(p[col]));
        }
        potentialsSet = true;
        recomputeU(t);
    }

    private static void checkShape(String what, INDArray a, long rows, long cols) {
        if (a == null) throw new IllegalArgumentException(what + " potentials are null");
        if (a.rank() != 2 || a.size(0) != rows || a.size(1) != cols) {
            throw new IllegalArgumentException(what + " potentials must have shape [" + rows + ", " + cols + "], got "
                    + java.util.Arrays.toString(a.shape()));
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

    private double[][] hostT() {
        return new double[][] {unaryT[0].toDoubleVector(), unaryT[1].toDoubleVector()};
    }

    /**
     * U = T - sum over real edges of the incoming messages, with exact minus infinity: a label
     * whose unary potential is -inf gets U = -inf and -inf messages; a -inf message on a label
     * whose potential is finite is taken as 0 (and stored as 0). Missing-edge and phantom
     * messages are set to 0.
     */
    private void recomputeU(double[][] t) {
        final int L = labels, n2 = 2 * n;
        for (int col = 0; col < 2; col++) {
            double[] lm = lam[col].toDoubleVector();
            double[] uu = new double[L * n2];
            for (int jn = 0; jn < n2; jn++) {
                for (int y = 0; y < L; y++) {
                    double tv = t[col][y * n2 + jn];
                    double s = tv;
                    for (int d = 0; d < 4; d++) {
                        int i = (d * L + y) * n2 + jn;
                        if (!realEdge[col][d][jn]) {
                            lm[i] = 0;
                            continue;
                        }
                        if (tv == Double.NEGATIVE_INFINITY) lm[i] = Double.NEGATIVE_INFINITY;
                        else if (lm[i] == Double.NEGATIVE_INFINITY) lm[i] = 0;
                        s -= lm[i];
                    }
                    uu[y * n2 + jn] = tv == Double.NEGATIVE_INFINITY ? Double.NEGATIVE_INFINITY : s;
                }
            }
            lam[col].assign(vec(lm));
            u[col].assign(vec(uu));
        }
    }

    @Override
    public INDArray messages() {
        final int L = labels, n2 = 2 * n;
        int ne = graph.numEdges();
        double[][] lm = {lam[0].toDoubleVector(), lam[1].toDoubleVector()};
        double[] out = new double[ne * 2 * L];
        for (int e = 0; e < ne; e++) {
            int d = edgeDir[e];
            for (int y = 0; y < L; y++) {
                out[(e * 2) * L + y] = eps * lm[edgeFromColor[e]][(d * L + y) * n2 + edgeFromJn[e]];
                out[(e * 2 + 1) * L + y] = eps * lm[edgeToColor[e]][((d ^ 1) * L + y) * n2 + edgeToJn[e]];
            }
        }
        return Nd4j.createFromArray(out).castTo(dtype).reshape(ne, 2, L);
    }

    @Override
    public void setMessages(INDArray messages) {
        final int L = labels, n2 = 2 * n, blk = 4 * L * n2;
        int ne = graph.numEdges();
        if (messages == null || messages.rank() != 3 || messages.size(0) != ne || messages.size(1) != 2 || messages.size(2) != L) {
            throw new IllegalArgumentException("messages must have shape [" + ne + ", 2, " + L + "], got "
                    + (messages == null ? "null" : java.util.Arrays.toString(messages.shape())));
        }
        double[] in = messages.dup('c').data().asDouble();
        for (int i = 0; i < in.length; i++) {
            if (Double.isNaN(in[i]) || in[i] == Double.POSITIVE_INFINITY) {
                throw new IllegalArgumentException("message [" + (i / (2 * L)) + ", " + (i / L % 2) + ", " + (i % L) + "] is " + in[i]);
            }
        }
        double[][] lm = new double[2][blk];
        for (int e = 0; e < ne; e++) {
            int d = edgeDir[e];
            for (int y = 0; y < L; y++) {
                lm[edgeFromColor[e]][(d * L + y) * n2 + edgeFromJn[e]] = in[(e * 2) * L + y] / eps;
                lm[edgeToColor[e]][((d ^ 1) * L + y) * n2 + edgeToJn[e]] = in[(e * 2 + 1) * L + y] / eps;
            }
        }
        for (int col = 0; col < 2; col++) lam[col].assign(vec(lm[col]));
        recomputeU(hostT());
    }

    @Override
    public void resetMessages() {
        final int L = labels, n2 = 2 * n, blk = 4 * L * n2;
        double[][] t = hostT();
        for (int col = 0; col < 2; col++) {
            double[] lm = new double[blk];
            for (int d = 0; d < 4; d++) {
                for (int y = 0; y < L; y++) {
                    for (int jn = 0; jn < n2; jn++) {
                        if (realEdge[col][d][jn] && t[col][y * n2 + jn] == Double.NEGATIVE_INFINITY) {
                            lm[(d * L + y) * n2 + jn] = Double.NEGATIVE_INFINITY;
                        }
                    }
                }
            }
            lam[col].assign(vec(lm));
            u[col].assign(unaryT[col]);
        }
    }

    @Override
    public INDArray incomingMessageSums() {
        final int L = labels, n2 = 2 * n;
        int nv = graph.numVariables();
        double[][] lm = {lam[0].toDoubleVector(), lam[1].toDoubleVector()};
        double[] out = new double[nv * L];
        for (int v = 0; v < nv; v++) {
            int col = varColor[v], jn = varJn[v];
            for (int y = 0; y < L; y++) {
                double s = 0;
                for (int d = 0; d < 4; d++) if (realEdge[col][d][jn]) s += lm[col][(d * L + y) * n2 + jn];
                out[v * L + y] = eps * s;
            }
        }
        return Nd4j.createFromArray(out).castTo(dtype).reshape(nv, L);
    }

    // ---- dual, primal, beliefs (not in the hot loop; these allocate) -----------------------
    // Everything stays in the plane layout: element-wise ops over contiguous views, no permutes,
    // no reductions except the final sums.

    /** out = element-wise log-sum-exp of equal-length planes; all -inf gives -inf, never NaN. */
    private static void lsePlanes(INDArray[] planes, INDArray out) {
        INDArray mx = planes[0].dup();
        for (int i = 1; i < planes.length; i++) max(mx, planes[i], mx);
        maxScalar(mx, -BIG, mx);
        INDArray s = Nd4j.zerosLike(mx), t = Nd4j.zerosLike(mx);
        for (INDArray p : planes) {
            sub(p, mx, t);
            exp(t, t);
            add(s, t, s);
        }
        log(s, s);
        add(s, mx, out);
    }

    private INDArray plane(INDArray base, long offset) {
        return view(base, offset, 2L * n);
    }

    private INDArray[] unaryPlanes(int col) {
        INDArray[] ps = new INDArray[labels];
        for (int y = 0; y < labels; y++) ps[y] = plane(u[col], (long) y * 2 * n);
        return ps;
    }

    /** z[yo][d][y][jn] of colour 0 = P + own message + neighbour message: the edge scores, each edge once. */
    private void pairScores() {
        fillZ(0);
        for (int yo = 0; yo < labels; yo++) add(zYo[yo], lam[0], zYo[yo]);
    }

    private long zAt(int yo, int d, int y) {
        return (long) yo * 8 * labels * n + (long) (d * labels + y) * 2 * n;
    }

    /** Per direction d, lse over (yo, y) of the edge scores in z: [d][jn]. */
    private INDArray pairLse() {
        final int L = labels;
        INDArray out = Nd4j.zeros(dtype, 8L * n);
        for (int d = 0; d < 4; d++) {
            INDArray[] ps = new INDArray[L * L];
            for (int yo = 0; yo < L; yo++) for (int y = 0; y < L; y++) ps[yo * L + y] = plane(z, zAt(yo, d, y));
            lsePlanes(ps, plane(out, (long) d * 2 * n));
        }
        return out;
    }

    /** Turns the edge scores in z into log pair beliefs (subtracting the per-edge lse). */
    private void pairLogBeliefs(INDArray lse) {
        final int L = labels;
        for (int yo = 0; yo < L; yo++) {
            for (int d = 0; d < 4; d++) {
                for (int y = 0; y < L; y++) {
                    INDArray zv = plane(z, zAt(yo, d, y));
                    sub(zv, plane(lse, (long) d * 2 * n), zv);
                }
            }
        }
    }

    @Override
    public double dual() {
        requirePotentials();
        double total = 0;
        INDArray lu = Nd4j.zeros(dtype, 2L * n);
        for (int col = 0; col < 2; col++) {
            lsePlanes(unaryPlanes(col), lu);
            total += lu.mul(pixMask[col]).sumNumber().doubleValue();   // phantom lse is finite
        }
        pairScores();
        INDArray le = pairLse();
        max(le, edgeLo0, le);
        min(le, edgeHi0, le);                                          // missing edges -> exactly 0
        total += le.sumNumber().doubleValue();
        return eps * total;
    }

    /**
     * theta . b - b log b summed in eps units, with 0 * log 0 and 0 * (-inf) read as 0: both
     * factors are clamped at -BIG first, which changes nothing where b > 0 (there log b and theta
     * are finite) and gives exactly 0 where b = 0.
     */
    @Override
    public double primal() {
        requirePotentials();
        final int L = labels;
        INDArray lu = Nd4j.zeros(dtype, 2L * n), lb = Nd4j.zerosLike(lu), b = Nd4j.zerosLike(lu),
                t = Nd4j.zerosLike(lu), acc = Nd4j.zerosLike(lu);
        for (int col = 0; col < 2; col++) {
            INDArray[] ps = unaryPlanes(col);
            lsePlanes(ps, lu);
            maxScalar(lu, -BIG, lu);
            INDArray part = Nd4j.zerosLike(lu);
            for (int y = 0; y < L; y++) {
                sub(ps[y], lu, lb);                                    // log b
                exp(lb, b);
                maxScalar(lb, -BIG, lb);
                maxScalar(plane(unaryT[col], (long) y * 2 * n), -BIG, t);
                sub(t, lb, t);
                mul(t, b, t);
                add(part, t, part);
            }
            mul(part, pixMask[col], part);
            add(acc, part, acc);
        }
        pairScores();
        INDArray lse = pairLse();
        maxScalar(lse, -BIG, lse);                                     // no NaN from junk on missing edges
        pairLogBeliefs(lse);
        INDArray pacc = Nd4j.zeros(dtype, 8L * n);
        for (int yo = 0; yo < L; yo++) {
            for (int d = 0; d < 4; d++) {
                INDArray pd = plane(pacc, (long) d * 2 * n);
                for (int y = 0; y < L; y++) {
                    INDArray zv = plane(z, zAt(yo, d, y));
                    exp(zv, b);
                    maxScalar(zv, -BIG, lb);
                    maxScalar(plane(pot[0], zAt(yo, d, y)), -BIG, t);
                    sub(t, lb, t);
                    mul(t, b, t);
                    add(pd, t, pd);
                }
            }
        }
        mul(pacc, edgeMask0, pacc);
        return eps * (acc.sumNumber().doubleValue() + pacc.sumNumber().doubleValue());
    }

    @Override
    public INDArray unaryBeliefs() {
        requirePotentials();
        final int L = labels, n2 = 2 * n;
        int nv = graph.numVariables();
        double[][] bh = new double[2][L * n2];
        INDArray lu = Nd4j.zeros(dtype, n2), b = Nd4j.zerosLike(lu);
        for (int col = 0; col < 2; col++) {
            INDArray[] ps = unaryPlanes(col);
            lsePlanes(ps, lu);
            for (int y = 0; y < L; y++) {
                sub(ps[y], lu, b);
                exp(b, b);
                System.arraycopy(b.toDoubleVector(), 0, bh[col], y * n2, n2);
            }
        }
        double[] out = new double[nv * L];
        for (int v = 0; v < nv; v++) {
            for (int y = 0; y < L; y++) out[v * L + y] = bh[varColor[v]][y * n2 + varJn[v]];
        }
        return Nd4j.createFromArray(out).castTo(dtype).reshape(nv, L);
    }

    @Override
    public INDArray pairBeliefs() {
        requirePotentials();
        final int L = labels, n2 = 2 * n, blk = 4 * L * n2;
        int ne = graph.numEdges();
        pairScores();
        pairLogBeliefs(pairLse());
        double[] b = Transforms.exp(z, true).toDoubleVector();
        double[] out = new double[ne * L * L];
        for (int e = 0; e < ne; e++) {
            int d = edgeDir[e];
            boolean fromIsZero = edgeFromColor[e] == 0;
            int jn = fromIsZero ? edgeFromJn[e] : edgeToJn[e];
            int dd = fromIsZero ? d : d ^ 1;
            for (int yi = 0; yi < L; yi++) {
                for (int yj = 0; yj < L; yj++) {
                    int own = fromIsZero ? yi : yj, other = fromIsZero ? yj : yi;
                    out[e * L * L + yi * L + yj] = b[other * blk + (dd * L + own) * n2 + jn];
                }
            }
        }
        return Nd4j.createFromArray(out).castTo(dtype).reshape(ne, L * L);
    }

    @Override
    public int[] decode() {
        requirePotentials();
        final int L = labels, n2 = 2 * n;
        int nv = graph.numVariables();
        double[][] uh = {u[0].toDoubleVector(), u[1].toDoubleVector()};
        int[] out = new int[nv];
        for (int v = 0; v < nv; v++) {
            double[] uc = uh[varColor[v]];
            int best = 0;
            for (int y = 1; y < L; y++) if (uc[y * n2 + varJn[v]] > uc[best * n2 + varJn[v]]) best = y;
            out[v] = best;
        }
        return out;
    }

    private void requirePotentials() {
        if (!potentialsSet) throw new IllegalStateException("setPotentials has not been called");
    }
}
