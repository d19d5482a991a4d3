package org.structlr.inference.loop;

import org.structlr.inference.EngineInputs;
import org.structlr.inference.MessagePassing;
import org.structlr.inference.StatePacking;
import org.structlr.inference.RegionScores;

import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.structlr.graph.Coloring;
import org.structlr.graph.FactorGraph;

/**
 * Star-update message passing (docs/design.md §1) as a plain, single-threaded loop over {@code double}
 * arrays. It is the "obviously correct" implementation: the baseline that {@code bench} prints
 * beside the ND4J engines and a second implementation for the tests. Always computes in double
 * precision; the arrays it returns are {@link DataType#DOUBLE}.
 *
 * <p>Layout (all row-major, {@code L = graph.maxLabels()}): {@code theta_i(y) = thetaU[i*L + y]},
 * {@code theta_a(y_i, y_j) = thetaP[a*L*L + y_i*L + y_j]}, {@code lambda_{a->end s}(y) =
 * lam[(a*2 + s)*L + y]}. Labels a variable does not have are padded as impossible labels (minus
 * infinity everywhere).
 *
 * <p>Minus infinity (hard constraints). A label y of variable i is <em>impossible</em> when its
 * total {@code theta_i(y) + sum_a m_a(y)} is minus infinity. To never subtract an infinity from an
 * infinity, the engine keeps {@code u_i(y) = theta_i(y) - sum_{a contains i} lambda_{a->i}(y)} as
 * state instead of recomputing it from the messages: after a star update {@code u_i = total / N_i}
 * exactly, which is minus infinity for an impossible label, and the new messages are
 * {@code lambda_{a->i}(y) = u_i(y) - max(m_a(y), -1e30)}, minus infinity for an impossible label and
 * finite otherwise. Messages are therefore never plus infinity. When messages are given from outside
 * ({@link #setMessages}, {@link #setPotentials}) {@code u_i(y)} is recomputed from its definition,
 * with the convention that it is minus infinity when {@code theta_i(y)} or any incoming message is.
 * Every log-sum-exp clamps its maximum below at {@code -1e30}, so an all minus infinity row gives
 * minus infinity, not NaN.
 *
 * <p>Regions (factors over any number of variables, {@link RegionScores}): a star update at i also
 * takes m_{r->i} from every region r containing i, and N_i counts them; their messages live in
 * {@code lamR[slot * L + y]} ({@link FactorGraph#regionSlot}), their tables in the regions' flat
 * layout. A pairwise graph has none, and then every number is the pairwise engine's.
 *
 * <p>Speed: the star update's per-edge log-sum-exp runs in probability space against kernels
 * {@code exp((theta_a - rowMax) / eps)} precomputed when the potentials are set, so an edge costs
 * L exponentials, L logarithms and an L x L multiply-add instead of 2 L^2 exponentials (dense and
 * many-label UAI models), with no allocation per update. Rows whose shifted sum underflows fall
 * back to the exact log-sum-exp, so results and the minus infinity semantics are those of the
 * direct formula to rounding.
 */
public final class LoopMessagePassing implements MessagePassing {
    /** Floor of the maximum in every log-sum-exp: an all minus infinity row then gives minus infinity. */
    private static final double FLOOR = -1e30;
    private static final double NEG_INF = Double.NEGATIVE_INFINITY;
    /**
     * Fast messages: factors exp(x) with x below CUT (about 1e-120) are flushed to 0, which keeps every
     * product of two factors a normal double (subnormal arithmetic is many times slower) and drops
     * terms below 1e-120; a sum at most TINY = 1e-100 is then recomputed exactly, so the dropped
     * terms never weigh more than about 1e-20 of the sum.
     */
    private static final double CUT = -276, TINY = 1e-100;

    private final FactorGraph graph;
    private final double eps;
    private final int numVars, numEdges, numLabels;
    private final int[] labelsOf;
    private final int[] edgeFrom, edgeTo;
    /** CSR adjacency from {@link FactorGraph#incidence()}: edges of variable v are {@code edge[off[v]..off[v+1])}. */
    private final int[] off, edge, side;
    /** Variables of each colour class, in variable order; classes are swept in colour order. */
    private final int[][] colorClasses;

    private final double[] thetaU, thetaP, lam, u;
    /**
     * Per edge end s, the pairwise potentials in probability space, shifted by their row maximum
     * (so no overflow whatever eps): {@code kern[((e*2 + s)*L + y)*L + y'] = exp((theta_a(y, y') -
     * rowMax[(e*2 + s)*L + y]) / eps)} with y the label of end s and y' the other end's. Rebuilt by
     * {@link #setPotentials}; it turns the star update's log-sum-exp into a matrix-vector product.
     */
    private final double[] kern, rowMax;
    /** Scratch for one star update: m[k*L + y] for the k-th edge of the variable; w the other end's weights. */
    private final double[] scratchM, scratchW;

    /** Regions: incidence of each variable ({@link FactorGraph#regionIncidence}), tables, messages, scratch. */
    private final int[] rOff, rReg, rPos;
    private final RegionScores regionScores;
    private final double[] thetaR, lamR, scratchMR, scratchZ;

    /** An engine with the greedy colouring of {@code graph}. */
    public LoopMessagePassing(FactorGraph graph, double eps) {
        this(graph, Coloring.greedy(graph), eps);
    }

    public LoopMessagePassing(FactorGraph graph, Coloring coloring, double eps) {
        if (!(eps > 0) || Double.isInfinite(eps)) throw new IllegalArgumentException("eps must be a positive finite number, got " + eps);
        coloring.checkProper(graph);
        this.graph = graph;
        this.eps = eps;
        this.numVars = graph.numVariables();
        this.numEdges = graph.numEdges();
        this.numLabels = graph.maxLabels();
        this.labelsOf = graph.numLabels();
        this.edgeFrom = new int[numEdges];
        this.edgeTo = new int[numEdges];
        for (int e = 0; e < numEdges; e++) {
            edgeFrom[e] = graph.edgeFrom(e);
            edgeTo[e] = graph.edgeTo(e);
        }
        int[][] inc = graph.incidence();
        this.off = inc[0];
        this.edge = inc[1];
        this.side = inc[2];
        int[] count = new int[coloring.numColors()];
        for (int v = 0; v < numVars; v++) count[coloring.color(v)]++;
        this.colorClasses = new int[coloring.numColors()][];
        for (int c = 0; c < count.length; c++) colorClasses[c] = new int[count[c]];
        int[] fill = new int[count.length];
        for (int v = 0; v < numVars; v++) colorClasses[coloring.color(v)][fill[coloring.color(v)]++] = v;
        int maxDeg = 0;
        for (int v = 0; v < numVars; v++) maxDeg = Math.max(maxDeg, off[v + 1] - off[v]);
        int L = numLabels;
        this.thetaU = new double[numVars * L];
        this.thetaP = new double[numEdges * L * L];
        this.lam = new double[numEdges * 2 * L];
        this.u = new double[numVars * L];
        this.scratchM = new double[Math.max(1, maxDeg) * L];
        this.scratchW = new double[L];
        this.kern = new double[numEdges * 2 * L * L];
        this.rowMax = new double[numEdges * 2 * L];
        int[][] rinc = graph.regionIncidence();
        this.rOff = rinc[0];
        this.rReg = rinc[1];
        this.rPos = rinc[2];
        int maxRDeg = 0;
        for (int v = 0; v < numVars; v++) maxRDeg = Math.max(maxRDeg, rOff[v + 1] - rOff[v]);
        this.regionScores = new RegionScores(graph);
        this.thetaR = new double[graph.totalRegionEntries()];
        this.lamR = new double[graph.numRegionSlots() * L];
        this.scratchMR = new double[maxRDeg * L];
        this.scratchZ = new double[regionScores.maxEntries()];
        // zero potentials on the labels that exist, minus infinity on the padding
        for (int i = 0; i < numVars; i++) {
            for (int y = 0; y < L; y++) thetaU[i * L + y] = y < labelsOf[i] ? 0 : NEG_INF;
        }
        for (int e = 0; e < numEdges; e++) {
            for (int yi = 0; yi < L; yi++) {
                for (int yj = 0; yj < L; yj++) {
                    thetaP[(e * L + yi) * L + yj] = yi < labelsOf[edgeFrom[e]] && yj < labelsOf[edgeTo[e]] ? 0 : NEG_INF;
                }
            }
        }
        buildKernels();
        resetMessages();
    }

    /** Fills {@link #kern} and {@link #rowMax} from thetaP; a row with no possible entry has rowMax -inf. */
    private void buildKernels() {
        int L = numLabels;
        for (int e = 0; e < numEdges; e++) {
            for (int s = 0; s < 2; s++) {
                int base = (e * 2 + s) * L;
                for (int y = 0; y < L; y++) {
                    double max = NEG_INF;
                    for (int yo = 0; yo < L; yo++) max = Math.max(max, pair(e, s, y, yo));
                    rowMax[base + y] = max;
                    for (int yo = 0; yo < L; yo++) {
                        double x = (pair(e, s, y, yo) - max) / eps;
                        kern[(base + y) * L + yo] = max == NEG_INF || x < CUT ? 0 : Math.exp(x);
                    }
                }
            }
        }
    }

    @Override public FactorGraph graph() { return graph; }
    @Override public double eps() { return eps; }

    // ------------------------------------------------------------------ potentials and messages

    /** Also sets the regions' tables ({@code [graph().totalRegionEntries()]}, any shape with that many entries). */
    @Override
    public void setPotentials(INDArray unary, INDArray pairwise, INDArray regions) {
        int n = thetaR.length;
        EngineInputs.checkRegionPotentials(regions, n);
        System.arraycopy(flat(regions, n), 0, thetaR, 0, n);
        setPotentials(unary, pairwise);
    }

    /** Sets unary and pairwise potentials; the regions' tables stay as they are. */
    @Override
    public void setPotentials(INDArray unary, INDArray pairwise) {
        int L = numLabels;
        EngineInputs.checkPotentials("unary", unary, numVars, L);
        EngineInputs.checkPotentials("pairwise", pairwise, numEdges, (long) L * L);
        double[] un = flat(unary, numVars * L);
        for (int i = 0; i < numVars; i++) {
            for (int y = 0; y < labelsOf[i]; y++) thetaU[i * L + y] = un[i * L + y];
        }
        if (numEdges > 0) {
            double[] pw = flat(pairwise, numEdges * L * L);
            for (int e = 0; e < numEdges; e++) {
                for (int yi = 0; yi < labelsOf[edgeFrom[e]]; yi++) {
                    for (int yj = 0; yj < labelsOf[edgeTo[e]]; yj++) {
                        int k = (e * L + yi) * L + yj;
                        thetaP[k] = pw[k];
                    }
                }
            }
        }
        buildKernels();
        recomputeU();
    }

    @Override
    public INDArray messages() {
        if (numEdges == 0) return Nd4j.create(DataType.DOUBLE, 0, 2, numLabels);
        return Nd4j.create(lam.clone(), new long[] {numEdges, 2, numLabels}, DataType.DOUBLE);
    }

    /** Accepts finite values or minus infinity ({@link EngineInputs}); padding is set to minus infinity. */
    @Override
    public void setMessages(INDArray messages) {
        int L = numLabels;
        EngineInputs.checkMessages(messages, numEdges, L);
        double[] m = flat(messages, numEdges * 2 * L);
        for (int e = 0; e < numEdges; e++) {
            for (int s = 0; s < 2; s++) {
                int v = s == 0 ? edgeFrom[e] : edgeTo[e];
                for (int y = 0; y < L; y++) {
                    int k = (e * 2 + s) * L + y;
                    if (y >= labelsOf[v]) {
                        lam[k] = NEG_INF;
                    } else {
                        lam[k] = m[k];
                    }
                }
            }
        }
        recomputeU();
    }

    @Override
    public void resetMessages() {
        int L = numLabels;
        for (int e = 0; e < numEdges; e++) {
            for (int s = 0; s < 2; s++) {
                int v = s == 0 ? edgeFrom[e] : edgeTo[e];
                for (int y = 0; y < L; y++) lam[(e * 2 + s) * L + y] = y < labelsOf[v] ? 0 : NEG_INF;
            }
        }
        for (int r = 0; r < graph.numRegions(); r++) {
            for (int p = 0; p < graph.regionSize(r); p++) {
                int v = graph.regionVariable(r, p), slot = graph.regionSlot(r, p);
                for (int y = 0; y < L; y++) lamR[slot * L + y] = y < labelsOf[v] ? 0 : NEG_INF;
            }
        }
        recomputeU();
    }

    @Override
    public INDArray regionMessages() {
        return Nd4j.create(lamR.clone(), new long[] {graph.numRegionSlots(), numLabels}, DataType.DOUBLE);
    }

    /** Accepts any finite values or minus infinity on existing labels; padding is set to minus infinity. */
    @Override
    public void setRegionMessages(INDArray messages) {
        int L = numLabels, S = graph.numRegionSlots();
        if (messages == null || messages.rank() != 2 || messages.size(0) != S || messages.size(1) != L) {
            throw new IllegalArgumentException("region messages must be [" + S + ", " + L + "], got "
                    + (messages == null ? "null" : java.util.Arrays.toString(messages.shape())));
        }
        double[] m = flat(messages, S * L);
        for (int r = 0; r < graph.numRegions(); r++) {
            for (int p = 0; p < graph.regionSize(r); p++) {
                int v = graph.regionVariable(r, p), slot = graph.regionSlot(r, p);
                for (int y = 0; y < L; y++) {
                    double x = m[slot * L + y];
                    if (y < labelsOf[v] && (Double.isNaN(x) || x == Double.POSITIVE_INFINITY)) {
                        throw new IllegalArgumentException("region message [" + slot + ", " + y + "] is " + x);
                    }
                    lamR[slot * L + y] = y < labelsOf[v] ? x : NEG_INF;
                }
            }
        }
        recomputeU();
    }

    /**
     * The edge messages, then the region messages, as they are held: each double as two floats
     * ({@link StatePacking#packDoubles}), so that a checkpoint continues bit for bit (u is recomputed from
     * them, as after every learning iteration's re-seat: {@link #exactState()} stays false).
     */
    @Override
    public float[] state() {
        return StatePacking.packDoubles(lam, lamR);
    }

    /** A {@link #state()}, or the plain float messages (edges, then regions) of checkpoints written before it held doubles. */
    @Override
    public void setState(float[] state) {
        int n = lam.length + lamR.length;
        double[] e, r;
        if (state.length == 2 * n) {
            e = StatePacking.unpackDoubles(state, 0, lam.length);
            r = StatePacking.unpackDoubles(state, lam.length, lamR.length);
        } else if (state.length == n) {
            e = new double[lam.length];
            r = new double[lamR.length];
            for (int k = 0; k < e.length; k++) e[k] = state[k];
            for (int k = 0; k < r.length; k++) r[k] = state[lam.length + k];
        } else {
            throw new IllegalArgumentException("state of " + state.length + " floats, this engine holds " + 2 * n);
        }
        setMessages(Nd4j.create(e, new long[] {numEdges, 2, numLabels}, DataType.DOUBLE));
        if (lamR.length > 0) setRegionMessages(Nd4j.create(r, new long[] {graph.numRegionSlots(), numLabels}, DataType.DOUBLE));
    }

    /**
     * u_i(y) = theta_i(y) - sum_{a contains i} lambda_{a->i}(y), minus infinity when theta_i(y) or
     * any incoming message is minus infinity (an impossible label).
     */
    private void recomputeU() {
        int L = numLabels;
        for (int i = 0; i < numVars; i++) {
            for (int y = 0; y < L; y++) {
                double t = thetaU[i * L + y];
                for (int k = off[i]; k < off[i + 1] && t != NEG_INF; k++) {
                    double l = lam[(edge[k] * 2 + side[k]) * L + y];
                    t = l == NEG_INF ? NEG_INF : t - l;
                }
                for (int k = rOff[i]; k < rOff[i + 1] && t != NEG_INF; k++) {
                    double l = lamR[graph.regionSlot(rReg[k], rPos[k]) * L + y];
                    t = l == NEG_INF ? NEG_INF : t - l;
                }
                u[i * L + y] = t;
            }
        }
    }

    // ------------------------------------------------------------------ star updates

    @Override
    public void iterate(int sweeps) {
        if (sweeps < 0) throw new IllegalArgumentException("sweeps must be at least 0, got " + sweeps);
        for (int t = 0; t < sweeps; t++) {
            for (int[] cls : colorClasses) {
                for (int i : cls) starUpdate(i);
            }
        }
    }

    /**
     * Star update at variable i, N_i = deg(i) + (regions containing i) + 1:
     * <pre>
     *   m_a(y)           = eps * log sum_{y_j} exp( (theta_a(y, y_j) + lambda_{a->j}(y_j)) / eps )   for each a = (i, j)
     *   m_r(y)           = eps * log sum_{y_r: y_i = y} exp( (theta_r(y_r) + sum_{j != i} lambda_{r->j}(y_j)) / eps )   each region r
     *   total(y)         = theta_i(y) + sum_a m_a(y) + sum_r m_r(y)
     *   u_i(y)           = total(y) / N_i              (= theta_i(y) - sum_a lambda_{a->i}(y) afterwards)
     *   lambda_{a->i}(y) = total(y) / N_i - m_a(y)     (computed as u_i(y) - max(m_a(y), -1e30)); lambda_{r->i} alike
     * </pre>
     * A variable without edges gets u_i = theta_i, so b_i = softmax(theta_i / eps).
     */
    private void starUpdate(int i) {
        int L = numLabels;
        int deg = off[i + 1] - off[i];
        int li = labelsOf[i];
        double[] m = scratchM, w = scratchW;
        for (int k = 0; k < deg; k++) {
            int e = edge[off[i] + k];
            int s = side[off[i] + k];
            int j = s == 0 ? edgeTo[e] : edgeFrom[e];
            int lj = labelsOf[j];
            int otherMsg = (e * 2 + (1 - s)) * L;           // lambda_{a->j}
            // m_a(y) = rowMax(y) + mx + eps * log sum_{y_j} kern(y, y_j) w(y_j), with
            // w(y_j) = exp((lambda_{a->j}(y_j) - mx) / eps) and mx = max lambda_{a->j}: the same
            // log-sum-exp with lj exponentials per edge instead of li * lj.
            double mx = NEG_INF;
            for (int yj = 0; yj < lj; yj++) mx = Math.max(mx, lam[otherMsg + yj]);
            int base = (e * 2 + s) * L;
            if (mx == NEG_INF) {
                for (int y = 0; y < li; y++) m[k * L + y] = NEG_INF;
                continue;
            }
            for (int yj = 0; yj < lj; yj++) {
                double x = (lam[otherMsg + yj] - mx) / eps;
                w[yj] = x < CUT ? 0 : Math.exp(x);
            }
            for (int y = 0; y < li; y++) {
                double rm = rowMax[base + y];
                if (rm == NEG_INF) {
                    m[k * L + y] = NEG_INF;
                    continue;
                }
                int kb = (base + y) * L;
                double sum = 0;
                for (int yj = 0; yj < lj; yj++) sum += kern[kb + yj] * w[yj];
                // Every term underflowed relative to the two separate maxima: take the slow exact path.
                m[k * L + y] = sum > TINY ? rm + mx + eps * Math.log(sum) : exactMessage(e, s, y, otherMsg, lj);
            }
        }
        int rdeg = rOff[i + 1] - rOff[i];
        double[] mr = scratchMR;
        for (int k = 0; k < rdeg; k++) {
            int r = rReg[rOff[i] + k], p = rPos[rOff[i] + k];
            regionScores.scores(r, p, thetaR, lamR, scratchZ);
            regionScores.groupLse(r, p, scratchZ, eps, mr, k * L);
        }
        int n = deg + rdeg + 1;
        for (int y = 0; y < L; y++) {
            if (y >= li) {
                u[i * L + y] = NEG_INF;
                for (int k = 0; k < deg; k++) lam[(edge[off[i] + k] * 2 + side[off[i] + k]) * L + y] = NEG_INF;
                for (int k = 0; k < rdeg; k++) lamR[graph.regionSlot(rReg[rOff[i] + k], rPos[rOff[i] + k]) * L + y] = NEG_INF;
                continue;
            }
            double total = thetaU[i * L + y];
            for (int k = 0; k < deg; k++) total += m[k * L + y];
            for (int k = 0; k < rdeg; k++) total += mr[k * L + y];
            double ui = total / n;
            u[i * L + y] = ui;
            for (int k = 0; k < deg; k++) {
                lam[(edge[off[i] + k] * 2 + side[off[i] + k]) * L + y] = ui - Math.max(m[k * L + y], FLOOR);
            }
            for (int k = 0; k < rdeg; k++) {
                lamR[graph.regionSlot(rReg[rOff[i] + k], rPos[rOff[i] + k]) * L + y] = ui - Math.max(mr[k * L + y], FLOOR);
            }
        }
    }

    /** m_a(y) = eps * lse_{y_j} (theta_a(y, y_j) + lambda_{a->j}(y_j)) / eps, shifted by the joint maximum. */
    private double exactMessage(int e, int s, int y, int otherMsg, int lj) {
        double max = FLOOR;
        for (int yj = 0; yj < lj; yj++) {
            double x = pair(e, s, y, yj) + lam[otherMsg + yj];
            if (x > max) max = x;
        }
        double sum = 0;
        for (int yj = 0; yj < lj; yj++) sum += Math.exp((pair(e, s, y, yj) + lam[otherMsg + yj] - max) / eps);
        return max + eps * Math.log(sum);
    }

    /** theta_a(y_self, y_other) for edge e seen from its end {@code s}. */
    private double pair(int e, int s, int ySelf, int yOther) {
        int L = numLabels;
        return s == 0 ? thetaP[(e * L + ySelf) * L + yOther] : thetaP[(e * L + yOther) * L + ySelf];
    }

    // ------------------------------------------------------------------ dual, beliefs, primal

    /** eps * lse(x / eps) over {@code x[from..from+n)}, with the maximum clamped below at -1e30. */
    private double epsLse(double[] x, int from, int n) {
        double max = FLOOR;
        for (int k = 0; k < n; k++) max = Math.max(max, x[from + k]);
        double sum = 0;
        for (int k = 0; k < n; k++) sum += Math.exp((x[from + k] - max) / eps);
        return max + eps * Math.log(sum);
    }

    /** theta_a(y_i, y_j) + lambda_{a->i}(y_i) + lambda_{a->j}(y_j) over existing labels, row-major [L_i, L_j]. */
    private double[] edgeScores(int e, double[] out) {
        int L = numLabels;
        int li = labelsOf[edgeFrom[e]], lj = labelsOf[edgeTo[e]];
        int k = 0;
        for (int yi = 0; yi < li; yi++) {
            for (int yj = 0; yj < lj; yj++) {
                out[k++] = thetaP[(e * L + yi) * L + yj] + lam[(e * 2) * L + yi] + lam[(e * 2 + 1) * L + yj];
            }
        }
        return out;
    }

    /**
     * A(lambda, theta) = sum_a eps * lse_{y_i,y_j}((theta_a + lambda_{a->i} + lambda_{a->j}) / eps)
     *                  + sum_r eps * lse_{y_r}((theta_r + sum_{j in r} lambda_{r->j}) / eps)
     *                  + sum_i eps * lse_y(u_i(y) / eps).
     */
    @Override
    public double dual() {
        int L = numLabels;
        double[] buf = new double[L * L];
        double total = 0;
        for (int e = 0; e < numEdges; e++) {
            edgeScores(e, buf);
            total += epsLse(buf, 0, labelsOf[edgeFrom[e]] * labelsOf[edgeTo[e]]);
        }
        for (int r = 0; r < graph.numRegions(); r++) {
            regionScores.scores(r, -1, thetaR, lamR, scratchZ);
            total += RegionScores.lse(scratchZ, graph.regionEntries(r), eps);
        }
        for (int i = 0; i < numVars; i++) total += epsLse(u, i * L, labelsOf[i]);
        return total;
    }

    /** softmax(x / eps) over {@code x[0..n)} into {@code out}; all zeros when every entry is minus infinity. */
    private void softmax(double[] x, int from, int n, double[] out, int outFrom) {
        double max = FLOOR;
        for (int k = 0; k < n; k++) max = Math.max(max, x[from + k]);
        double sum = 0;
        for (int k = 0; k < n; k++) {
            out[outFrom + k] = Math.exp((x[from + k] - max) / eps);
            sum += out[outFrom + k];
        }
        if (sum > 0) {
            for (int k = 0; k < n; k++) out[outFrom + k] /= sum;
        }
    }

    /** b_i(y) proportional to exp(u_i(y) / eps) = exp((theta_i(y) - sum_a lambda_{a->i}(y)) / eps); [V*L]. */
    private double[] unaryBeliefArray() {
        int L = numLabels;
        double[] b = new double[numVars * L];
        for (int i = 0; i < numVars; i++) softmax(u, i * L, labelsOf[i], b, i * L);
        return b;
    }

    /** b_a(y_i, y_j) proportional to exp((theta_a + lambda_{a->i} + lambda_{a->j}) / eps); [E*L*L]. */
    private double[] pairBeliefArray() {
        int L = numLabels;
        double[] b = new double[numEdges * L * L];
        double[] buf = new double[L * L], p = new double[L * L];
        for (int e = 0; e < numEdges; e++) {
            int li = labelsOf[edgeFrom[e]], lj = labelsOf[edgeTo[e]];
            edgeScores(e, buf);
            softmax(buf, 0, li * lj, p, 0);
            for (int yi = 0; yi < li; yi++) {
                for (int yj = 0; yj < lj; yj++) b[(e * L + yi) * L + yj] = p[yi * lj + yj];
            }
        }
        return b;
    }

    /** b_r(y_r) proportional to exp((theta_r + sum_{j in r} lambda_{r->j}) / eps); the regions' flat layout. */
    private double[] regionBeliefArray() {
        double[] b = new double[thetaR.length];
        for (int r = 0; r < graph.numRegions(); r++) {
            regionScores.scores(r, -1, thetaR, lamR, scratchZ);
            RegionScores.softmax(scratchZ, graph.regionEntries(r), eps, b, graph.regionTableOffset(r));
        }
        return b;
    }

    @Override
    public INDArray regionBeliefs() {
        return Nd4j.create(regionBeliefArray(), new long[] {thetaR.length}, DataType.DOUBLE);
    }

    /** theta . b + eps * (sum_i H(b_i) + sum_a H(b_a) + sum_r H(b_r)); zero beliefs contribute nothing (not 0 * -inf). */
    @Override
    public double primal() {
        double[] bu = unaryBeliefArray(), bp = pairBeliefArray(), br = regionBeliefArray();
        double total = 0;
        for (int k = 0; k < br.length; k++) {
            if (br[k] > 0) total += br[k] * thetaR[k] - eps * br[k] * Math.log(br[k]);
        }
        for (int k = 0; k < bu.length; k++) {
            if (bu[k] > 0) total += bu[k] * thetaU[k] - eps * bu[k] * Math.log(bu[k]);
        }
        for (int k = 0; k < bp.length; k++) {
            if (bp[k] > 0) total += bp[k] * thetaP[k] - eps * bp[k] * Math.log(bp[k]);
        }
        return total;
    }

    @Override
    public INDArray unaryBeliefs() {
        return Nd4j.create(unaryBeliefArray(), new long[] {numVars, numLabels}, DataType.DOUBLE);
    }

    @Override
    public INDArray pairBeliefs() {
        if (numEdges == 0) return Nd4j.create(DataType.DOUBLE, 0, (long) numLabels * numLabels);
        return Nd4j.create(pairBeliefArray(), new long[] {numEdges, (long) numLabels * numLabels}, DataType.DOUBLE);
    }

    /** argmax_y b_i(y) = argmax_y u_i(y) over the labels of i; the lowest label wins a tie. */
    @Override
    public int[] decode() {
        int L = numLabels;
        int[] y = new int[numVars];
        for (int i = 0; i < numVars; i++) {
            int best = 0;
            for (int k = 1; k < labelsOf[i]; k++) if (u[i * L + k] > u[i * L + best]) best = k;
            y[i] = best;
        }
        return y;
    }

    @Override
    public INDArray incomingMessageSums() {
        int L = numLabels;
        double[] s = new double[numVars * L];
        for (int i = 0; i < numVars; i++) {
            for (int k = off[i]; k < off[i + 1]; k++) {
                for (int y = 0; y < L; y++) s[i * L + y] += lam[(edge[k] * 2 + side[k]) * L + y];
            }
            for (int k = rOff[i]; k < rOff[i + 1]; k++) {
                int slot = graph.regionSlot(rReg[k], rPos[k]);
                for (int y = 0; y < L; y++) s[i * L + y] += lamR[slot * L + y];
            }
        }
        return Nd4j.create(s, new long[] {numVars, L}, DataType.DOUBLE);
    }

    // ------------------------------------------------------------------ helpers

    private static double[] flat(INDArray a, int n) {
        if (n == 0) return new double[0];
        double[] d = a.dup('c').castTo(DataType.DOUBLE).data().asDouble();
        if (d.length != n) throw new IllegalStateException("expected " + n + " values, got " + d.length);
        return d;
    }
}
