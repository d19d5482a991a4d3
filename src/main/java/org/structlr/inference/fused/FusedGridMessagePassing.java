package org.structlr.inference.fused;

import org.structlr.inference.EngineInputs;
import org.structlr.inference.MessagePassing;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.structlr.graph.FactorGraph;
import org.structlr.graph.GridBatch;
import org.structlr.graph.Grids;

/**
 * Star-update message passing (docs/design.md §1) on a batch of 4-connected grids of any sizes
 * ({@link GridBatch}, any label count) with one fused Vector API pass per colour of the
 * checkerboard ({@link FusedGridKernel}), over float planes laid out by {@link FusedGridLayout},
 * strip by strip in the order of {@link FusedRowSchedule} (both colours of a strip while it is in
 * cache; each thread owns a block of strips) on a {@link SweepPool}. Pixels of one colour share no
 * edge, so the result equals the plain red-black order bit for bit, whatever the thread count.
 *
 * <p>State: the messages into every pixel, in units of eps ({@code lam = lambda / eps}), as two
 * float planes (one per colour); {@link #state()} is exactly those planes. Everything else is
 * derived from them and the potentials, so there is nothing to keep in step:
 * {@code u_i(y) = theta_i(y)/eps - sum_a lam_{a->i}(y)}, minus infinity when theta_i(y) or any
 * incoming message is (an impossible label: zero belief). When potentials, messages or a reset are
 * set, every message into a label whose unary potential is minus infinity is set to minus infinity
 * (docs/design.md §1: impossibility propagates through the messages from the start).
 *
 * <p>The dual, primal and beliefs are read out in double from the float state (not in the hot
 * loop); arrays returned are {@link DataType#FLOAT}, like the ND4J float engines'.
 */
public final class FusedGridMessagePassing implements MessagePassing {
    private final FusedGridLayout layout;
    private final FactorGraph graph;
    /** P: the stride between two planes of {@code lam}, {@code t} (and the two-label {@code pot}): the layout's plane length. */
    private final int labels, P, pad;
    private final double eps;
    private final SweepPool pool;
    /**
     * Per colour: messages (padded), unary, pairwise. Every edge's table is stored once, at its
     * left/upper pixel. Two labels: {@code pot} holds a plane per slot (right, down edge) and label
     * pair, padded like the messages, as {@link FusedGridKernel#pass2} reads it. More labels: row blocks as
     * {@link FusedGridKernel#passL} reads them ({@code pot} in log space, {@code tab} the
     * probability-space tables with their row maxima), {@link #TABLE_PAD} floats before and after.
     */
    private final float[][] lam = new float[2][], t = new float[2][], pot = new float[2][], tab = new float[2][];
    /** Per colour and (image, member), {@code 2 k + j}: the four neighbour offsets of its positions. */
    private final int[][][] offsets = new int[2][][];
    /** Floats per position in {@code tab} (2 (L^2 + L)) and in {@code pot} (2 L^2), for more labels. */
    private final int tabEntries, potEntries;
    /** The strip-by-strip sweep order and the threads' blocks of strips, and one scratch buffer per part of it. */
    private final FusedRowSchedule schedule;
    private final float[][] rowScratch;
    /** Per image: sweeps run at once, so that the 2T + 2 strips in flight take at most {@link #CACHE_BUDGET} bytes. */
    private final int[] sweepsAtOnce;
    private static final int CACHE_BUDGET = 1 << 20;
    private static final int TABLE_PAD = 64;
    private boolean potentialsSet;

    /** An engine over {@code Grids.grid} graphs of the batch's shapes with {@code labels} labels. */
    public FusedGridMessagePassing(GridBatch batch, int labels, double eps, int threads) {
        this(null, batch, labels, eps, threads);
    }

    /** An engine over {@code graph}, which must be exactly the batch's grids ({@link GridBatch#matches}). */
    public FusedGridMessagePassing(FactorGraph graph, GridBatch batch, double eps, int threads) {
        this(graph, batch, graph.maxLabels(), eps, threads);
    }

    private FusedGridMessagePassing(FactorGraph graph, GridBatch batch, int labels, double eps, int threads) {
        if (labels < 2) throw new IllegalArgumentException("at least 2 labels are needed, got " + labels);
        if (!(eps > 0) || Double.isInfinite(eps)) throw new IllegalArgumentException("eps must be positive and finite, got " + eps);
        if (graph == null) {
            List<FactorGraph> parts = new ArrayList<>();
            for (int k = 0; k < batch.count(); k++) parts.add(Grids.grid(batch.height(k), batch.width(k), labels, false));
            graph = parts.size() == 1 ? parts.get(0) : FactorGraph.disjointUnion(parts);
        } else if (!batch.matches(graph)) {
            throw new IllegalArgumentException("the graph is not the grid batch " + batch);
        }
        this.graph = graph;
        this.labels = labels;
        this.eps = eps;
        this.pool = SweepPool.of(threads);
        this.layout = new FusedGridLayout(batch, FusedGridKernel.S.length(), labels > 2);
        this.P = layout.planeLength;
        this.pad = layout.pad;
        int L = labels;
        tabEntries = 2 * (L * L + L);
        potEntries = 2 * L * L;
        if ((long) 4 * L * L * P + 2 * TABLE_PAD > Integer.MAX_VALUE) throw new IllegalArgumentException("grid batch too large for the fused engine: " + batch);
        for (int c = 0; c < 2; c++) {
            lam[c] = new float[2 * pad + 4 * L * P];
            t[c] = new float[L * P];
            if (L > 2) {
                pot[c] = new float[2 * TABLE_PAD + potEntries * P];
                tab[c] = new float[2 * TABLE_PAD + tabEntries * P];
            } else {
                pot[c] = new float[2 * pad + 2 * L * L * P];
            }
            offsets[c] = new int[2 * batch.count()][4];
            for (int k = 0; k < batch.count(); k++) {
                for (int j = 0; j < 2; j++) {
                    for (int d = 0; d < 4; d++) offsets[c][2 * k + j][d] = layout.neighbourOffset(c, j, k, d);
                }
            }
        }
        int[] strips = new int[batch.count()];
        for (int k = 0; k < batch.count(); k++) strips[k] = layout.strips(k);
        schedule = new FusedRowSchedule(batch, strips, layout.stripRows, pool.threads());
        // one buffer per thread, each followed by 128 unused bytes, so that no cache line holds two threads' scratch
        rowScratch = new float[L > 2 ? schedule.parts.size() : 0][5 * L * FusedGridKernel.S.length() + 32];
        sweepsAtOnce = new int[batch.count()];
        // floats per position (both colours): tables, messages, unary, mask and 1/N
        int perPosition = (L > 2 ? tabEntries : 2 * L * L) + 4 * L + L + 2;
        for (int k = 0; k < batch.count(); k++) {
            long stripBytes = 4L * layout.stride[k] * layout.stripRows[k] * 2 * perPosition;
            sweepsAtOnce[k] = (int) Math.max(1, Math.min(16, (CACHE_BUDGET / stripBytes - 2) / 2));
        }
    }

    @Override public FactorGraph graph() { return graph; }
    @Override public double eps() { return eps; }
    public GridBatch batch() { return layout.batch; }
    public int threads() { return pool.threads(); }

    // ------------------------------------------------------------------ sweeps

    @Override
    public void iterate(int sweeps) {
        if (sweeps < 0) throw new IllegalArgumentException("sweeps must be at least 0, got " + sweeps);
        schedule.iterate(pool, sweeps, sweepsAtOnce, this::passStrip);
    }

    /**
     * One sweep in the plain order, colour 0 then colour 1, one thread (for tests: same bits as
     * {@link #iterate}); two labels: each (image, member) block in one pass, not strip by strip.
     */
    void plainSweep() {
        if (labels > 2) {
            schedule.plainSweep(this::passStrip);
            return;
        }
        for (int c = 0; c < 2; c++) {
            for (int k = 0; k < layout.batch.count(); k++) {
                for (int j = 0; j < 2; j++) {
                    int start = j * layout.n + layout.base[k];
                    pass2(c, k, j, start, start + layout.blockLength[k]);
                }
            }
        }
    }

    /** The star update of colour c over strip s of image k, with part p's scratch. */
    private void passStrip(int p, int c, int k, int s) {
        if (labels == 2) {
            for (int j = 0; j < 2; j++) pass2(c, k, j, layout.stripStart(k, j, s), layout.stripStart(k, j, s + 1));
        } else {
            passRow(p, c, k, s);
        }
    }

    /** Two labels: colour c over positions [start, end) of member j of image k. */
    private void pass2(int c, int k, int j, int start, int end) {
        if (start >= end) return;
        int[] off = offsets[c][2 * k + j];
        FusedGridKernel.pass2(lam[c], lam[1 - c], t[c], pot[c], pot[1 - c], layout.invN[c], layout.realEdge[c], P, pad, start, end,
                off[0], off[1], off[2], off[3]);
    }

    /** More labels (strips are rows): colour c over pixel row r of image k, with part p's scratch. */
    private void passRow(int p, int c, int k, int r) {
        int start = layout.position(k, r, 0), stride = layout.stride[k];
        int[] off = offsets[c][2 * k + (r & 1)];
        int up = start + off[FusedGridLayout.UP];
        FusedGridKernel.passL(labels, lam[c], lam[1 - c], t[c], tab[c], tab[1 - c], pot[c], pot[1 - c], layout.invN[c], layout.realEdge[c],
                P, pad, start, start + stride, off, stride,
                TABLE_PAD + start * tabEntries, TABLE_PAD + start * tabEntries + off[FusedGridLayout.LEFT], TABLE_PAD + up * tabEntries,
                TABLE_PAD + start * potEntries, TABLE_PAD + start * potEntries + off[FusedGridLayout.LEFT], TABLE_PAD + up * potEntries,
                rowScratch[p]);
    }

    // ------------------------------------------------------------------ potentials and messages

    private int lamIndex(int d, int y, int i) {
        return pad + (d * labels + y) * P + i;
    }

    /** Two labels: index in {@code pot[c]} of theta(own y, other yo) of the right (slot 0) or down (slot 1) edge of position i. */
    private int potIndex(int slot, int y, int yo, int i) {
        return pad + ((slot * labels + y) * labels + yo) * P + i;
    }

    /** More labels: index of entry {@code e} of variable v's row block in an array with {@code entries} floats per position. */
    private int tableIndex(int v, int entries, int e) {
        int rs = layout.varRowStart[v];
        return TABLE_PAD + rs * entries + e * layout.varStride[v] + (layout.varPos[v] - rs);
    }

    /** theta_e(yi, yj) / eps in float, yi the label of the edge's first end. */
    private float pairPotential(int e, int yi, int yj) {
        int a = graph.edgeFrom(e), d = layout.edgeDir[e];
        if (labels == 2) return pot[layout.varColour[a]][potIndex(d >> 1, yi, yj, layout.varPos[a])];
        return pot[layout.varColour[a]][tableIndex(a, potEntries, (d >> 1) * labels * labels + yi * labels + yj)];
    }

    @Override
    public void setPotentials(INDArray unary, INDArray pairwise) {
        final int L = labels;
        int nv = graph.numVariables(), ne = graph.numEdges();
        EngineInputs.HostValues un = EngineInputs.potentialsOnHost("unary", unary, nv, L);
        EngineInputs.HostValues pw = EngineInputs.potentialsOnHost("pairwise", pairwise, ne, L * L);
        for (int v = 0; v < nv; v++) {
            int c = layout.varColour[v], i = layout.varPos[v];
            for (int y = 0; y < L; y++) t[c][y * P + i] = (float) (un.at(v * L + y) / eps);
        }
        for (int e = 0; e < ne; e++) {
            int a = graph.edgeFrom(e), b = graph.edgeTo(e), d = layout.edgeDir[e];
            int ca = layout.varColour[a], ia = layout.varPos[a], cb = layout.varColour[b], ib = layout.varPos[b];
            if (L == 2) {
                for (int yi = 0; yi < L; yi++) {
                    for (int yj = 0; yj < L; yj++) {
                        float val = (float) (pw.at(e * L * L + yi * L + yj) / eps);
                        pot[ca][potIndex(d >> 1, yi, yj, ia)] = val;     // once, at the first end (left / upper pixel): own yi, other yj
                    }
                }
                continue;
            }
            // once, at the first end (left / upper pixel), slot 0 for its right edge, 1 for its down edge
            int slot = d >> 1;
            for (int yi = 0; yi < L; yi++) {
                float mx = Float.NEGATIVE_INFINITY;
                for (int yj = 0; yj < L; yj++) {
                    float val = (float) (pw.at(e * L * L + yi * L + yj) / eps);
                    pot[ca][tableIndex(a, potEntries, slot * L * L + yi * L + yj)] = val;
                    mx = Math.max(mx, val);
                }
                // E(yi, yj) = exp(pot - rowMax(yi)) (0 on an impossible row), rowMax after the L^2 entries of the slot
                tab[ca][tableIndex(a, tabEntries, slot * (L * L + L) + L * L + yi)] = mx;
                for (int yj = 0; yj < L; yj++) {
                    float val = pot[ca][tableIndex(a, potEntries, slot * L * L + yi * L + yj)];
                    tab[ca][tableIndex(a, tabEntries, slot * (L * L + L) + yi * L + yj)] =
                            mx == Float.NEGATIVE_INFINITY ? 0f : (float) Math.exp((double) val - mx);
                }
            }
        }
        potentialsSet = true;
        markImpossible();
    }

    /** Messages into a label whose unary potential is minus infinity are minus infinity (real edges). */
    private void markImpossible() {
        for (int c = 0; c < 2; c++) {
            for (int y = 0; y < labels; y++) {
                for (int i = 0; i < layout.planeLength; i++) {
                    if (t[c][y * P + i] != Float.NEGATIVE_INFINITY) continue;
                    for (int d = 0; d < 4; d++) if (layout.realEdge[c][d][i]) lam[c][lamIndex(d, y, i)] = Float.NEGATIVE_INFINITY;
                }
            }
        }
    }

    @Override
    public INDArray messages() {
        final int L = labels;
        int ne = graph.numEdges();
        float[] out = new float[ne * 2 * L];
        for (int e = 0; e < ne; e++) {
            int a = graph.edgeFrom(e), b = graph.edgeTo(e), d = layout.edgeDir[e];
            for (int y = 0; y < L; y++) {
                out[(e * 2) * L + y] = (float) (eps * lam[layout.varColour[a]][lamIndex(d, y, layout.varPos[a])]);
                out[(e * 2 + 1) * L + y] = (float) (eps * lam[layout.varColour[b]][lamIndex(d ^ 1, y, layout.varPos[b])]);
            }
        }
        return ne == 0 ? Nd4j.create(DataType.FLOAT, 0, 2, L) : Nd4j.create(out, new long[] {ne, 2, L}, DataType.FLOAT);
    }

    @Override
    public void setMessages(INDArray messages) {
        final int L = labels;
        int ne = graph.numEdges();
        EngineInputs.checkMessages(messages, ne, L);
        double[] in = ne == 0 ? new double[0] : messages.dup('c').castTo(DataType.DOUBLE).data().asDouble();
        for (int e = 0; e < ne; e++) {
            int a = graph.edgeFrom(e), b = graph.edgeTo(e), d = layout.edgeDir[e];
            for (int y = 0; y < L; y++) {
                lam[layout.varColour[a]][lamIndex(d, y, layout.varPos[a])] = (float) (in[(e * 2) * L + y] / eps);
                lam[layout.varColour[b]][lamIndex(d ^ 1, y, layout.varPos[b])] = (float) (in[(e * 2 + 1) * L + y] / eps);
            }
        }
        markImpossible();
    }

    @Override
    public void resetMessages() {
        for (int c = 0; c < 2; c++) Arrays.fill(lam[c], 0f);
        markImpossible();
    }

    @Override
    public boolean exactState() {
        return true;
    }

    /** Both colours' message planes, padding included, colour 0 first: exactly what the sweeps read and write. */
    @Override
    public float[] state() {
        float[] s = new float[lam[0].length + lam[1].length];
        System.arraycopy(lam[0], 0, s, 0, lam[0].length);
        System.arraycopy(lam[1], 0, s, lam[0].length, lam[1].length);
        return s;
    }

    @Override
    public void setState(float[] state) {
        if (state == null || state.length != lam[0].length + lam[1].length) {
            throw new IllegalArgumentException("state of " + (state == null ? "null" : state.length + " floats")
                    + ", this engine holds " + (lam[0].length + lam[1].length));
        }
        System.arraycopy(state, 0, lam[0], 0, lam[0].length);
        System.arraycopy(state, lam[0].length, lam[1], 0, lam[1].length);
    }

    // ------------------------------------------------------------------ read-outs (double, natural order)

    /** u_v(y) = t(y) - sum of incoming messages, minus infinity when any term is (eps units), into {@code out[0..L)}. */
    private void unaryRegion(int v, double[] out) {
        int c = layout.varColour[v], i = layout.varPos[v];
        for (int y = 0; y < labels; y++) {
            double s = t[c][y * P + i];
            for (int d = 0; d < 4 && s != Double.NEGATIVE_INFINITY; d++) {
                if (!layout.realEdge[c][d][i]) continue;
                double l = lam[c][lamIndex(d, y, i)];
                s = l == Double.NEGATIVE_INFINITY ? Double.NEGATIVE_INFINITY : s - l;
            }
            out[y] = s;
        }
    }

    /** theta_a(yi, yj)/eps + lam_{a->i}(yi) + lam_{a->j}(yj) at {@code out[yi L + yj]}. */
    private void edgeRegion(int e, double[] out) {
        final int L = labels;
        int a = graph.edgeFrom(e), b = graph.edgeTo(e), d = layout.edgeDir[e];
        float[] la = lam[layout.varColour[a]], lb = lam[layout.varColour[b]], pa = pot[layout.varColour[a]];
        // the layout's indices once per edge: lamIndex(d, y, i) = atA + y P, potIndex / tableIndex = at + (yi L + yj) step
        int atA = lamIndex(d, 0, layout.varPos[a]), atB = lamIndex(d ^ 1, 0, layout.varPos[b]);
        int potAt = L == 2 ? potIndex(d >> 1, 0, 0, layout.varPos[a]) : tableIndex(a, potEntries, (d >> 1) * L * L);
        int potStep = L == 2 ? P : layout.varStride[a];
        for (int yi = 0; yi < L; yi++) {
            double li = la[atA + yi * P];
            for (int yj = 0; yj < L; yj++) {
                out[yi * L + yj] = pa[potAt + (yi * L + yj) * potStep] + li + lb[atB + yj * P];
            }
        }
    }

    /** log sum exp over {@code x[0..n)}; minus infinity when all are. */
    private static double lse(double[] x, int n) {
        double m = Double.NEGATIVE_INFINITY;
        for (int k = 0; k < n; k++) m = Math.max(m, x[k]);
        if (m == Double.NEGATIVE_INFINITY) return m;
        double s = 0;
        for (int k = 0; k < n; k++) s += x[k] == m ? 1.0 : Math.exp(x[k] - m);   // exp(0) = 1 exactly: the same sum, one exp fewer
        return m + Math.log(s);
    }

    /** softmax in place over {@code x[0..n)}: b = exp(x - lse), exactly 0 for minus infinity, all 0 when all are. */
    private static void softmax(double[] x, int n) {
        double l = lse(x, n);
        for (int k = 0; k < n; k++) x[k] = l == Double.NEGATIVE_INFINITY || x[k] == Double.NEGATIVE_INFINITY ? 0 : Math.exp(x[k] - l);
    }

    /**
     * A(lambda, theta) = eps * [ sum_a lse(edge region) + sum_i lse(u_i) ]: two labels in the
     * kernel's float lanes ({@link FusedGridKernel#dual2}, block by block, each vector's sum in
     * double; about a sweep's time), more labels in double here.
     */
    @Override
    public double dual() {
        requirePotentials();
        final int L = labels;
        if (L == 2) {
            double sum = 0;
            for (int c = 0; c < 2; c++) {
                for (int k = 0; k < layout.batch.count(); k++) {
                    for (int j = 0; j < 2; j++) {
                        int start = j * layout.n + layout.base[k];
                        int[] off = offsets[c][2 * k + j];
                        sum += FusedGridKernel.dual2(lam[c], lam[1 - c], t[c], pot[c], layout.realEdge[c], layout.pixel[c], P, pad,
                                start, start + layout.blockLength[k], off[FusedGridLayout.RIGHT], off[FusedGridLayout.DOWN]);
                    }
                }
            }
            return eps * sum;
        }
        double[] buf = new double[L * L];
        double total = 0;
        for (int e = 0; e < graph.numEdges(); e++) {
            edgeRegion(e, buf);
            total += lse(buf, L * L);
        }
        for (int v = 0; v < graph.numVariables(); v++) {
            unaryRegion(v, buf);
            total += lse(buf, L);
        }
        return eps * total;
    }

    /** eps * [ sum b (theta/eps) - b log b ] over unary and edge regions; zero beliefs contribute nothing. */
    @Override
    public double primal() {
        requirePotentials();
        final int L = labels;
        double[] buf = new double[L * L];
        double total = 0;
        for (int v = 0; v < graph.numVariables(); v++) {
            int c = layout.varColour[v], i = layout.varPos[v];
            unaryRegion(v, buf);
            softmax(buf, L);
            for (int y = 0; y < L; y++) if (buf[y] > 0) total += buf[y] * (t[c][y * P + i] - Math.log(buf[y]));
        }
        for (int e = 0; e < graph.numEdges(); e++) {
            edgeRegion(e, buf);
            softmax(buf, L * L);
            for (int yi = 0; yi < L; yi++) {
                for (int yj = 0; yj < L; yj++) {
                    double b = buf[yi * L + yj];
                    if (b > 0) total += b * (pairPotential(e, yi, yj) - Math.log(b));
                }
            }
        }
        return eps * total;
    }

    @Override
    public INDArray unaryBeliefs() {
        requirePotentials();
        final int L = labels;
        int nv = graph.numVariables();
        double[] buf = new double[L];
        float[] out = new float[nv * L];
        for (int v = 0; v < nv; v++) {
            unaryRegion(v, buf);
            softmax(buf, L);
            for (int y = 0; y < L; y++) out[v * L + y] = (float) buf[y];
        }
        return Nd4j.create(out, new long[] {nv, L}, DataType.FLOAT);
    }

    @Override
    public INDArray pairBeliefs() {
        requirePotentials();
        final int L = labels;
        int ne = graph.numEdges();
        double[] buf = new double[L * L];
        float[] out = new float[ne * L * L];
        for (int e = 0; e < ne; e++) {
            edgeRegion(e, buf);
            softmax(buf, L * L);
            for (int k = 0; k < L * L; k++) out[e * L * L + k] = (float) buf[k];
        }
        return ne == 0 ? Nd4j.create(DataType.FLOAT, 0, (long) L * L) : Nd4j.create(out, new long[] {ne, (long) L * L}, DataType.FLOAT);
    }

    /** argmax_y u_i(y); the lowest label wins a tie. */
    @Override
    public int[] decode() {
        requirePotentials();
        return labels == 2 ? decode2() : decodeAnyLabels();
    }

    /** {@link #decode} for any label count, through {@link #unaryRegion} (for tests with two labels: the same labels as {@link #decode2}). */
    int[] decodeAnyLabels() {
        int[] out = new int[graph.numVariables()];
        double[] buf = new double[labels];
        for (int v = 0; v < out.length; v++) {
            unaryRegion(v, buf);
            int best = 0;
            for (int y = 1; y < labels; y++) if (buf[y] > buf[best]) best = y;
            out[v] = best;
        }
        return out;
    }

    /**
     * Two labels: {@link #decode} with {@link #unaryRegion} written out for L = 2 (the same double
     * operations in the same order, so the same labels; an evaluation decodes both sets).
     */
    private int[] decode2() {
        int[] out = new int[graph.numVariables()];
        for (int v = 0; v < out.length; v++) {
            int c = layout.varColour[v], i = layout.varPos[v];
            float[] tc = t[c], lc = lam[c];
            boolean[][] real = layout.realEdge[c];
            double s0 = tc[i], s1 = tc[P + i];
            for (int d = 0; d < 4; d++) {
                if (!real[d][i]) continue;
                int at = pad + 2 * d * P + i;
                double l0 = lc[at], l1 = lc[at + P];
                s0 = s0 == Double.NEGATIVE_INFINITY || l0 == Double.NEGATIVE_INFINITY ? Double.NEGATIVE_INFINITY : s0 - l0;
                s1 = s1 == Double.NEGATIVE_INFINITY || l1 == Double.NEGATIVE_INFINITY ? Double.NEGATIVE_INFINITY : s1 - l1;
            }
            out[v] = s1 > s0 ? 1 : 0;
        }
        return out;
    }

    @Override
    public INDArray incomingMessageSums() {
        final int L = labels;
        int nv = graph.numVariables();
        float[] out = new float[nv * L];
        for (int v = 0; v < nv; v++) {
            int c = layout.varColour[v], i = layout.varPos[v];
            for (int y = 0; y < L; y++) {
                double s = 0;
                for (int d = 0; d < 4; d++) if (layout.realEdge[c][d][i]) s += lam[c][lamIndex(d, y, i)];
                out[v * L + y] = (float) (eps * s);
            }
        }
        return Nd4j.create(out, new long[] {nv, L}, DataType.FLOAT);
    }

    private void requirePotentials() {
        if (!potentialsSet) throw new IllegalStateException("setPotentials has not been called");
    }
}
