package org.structlr.inference.nd4j;

import org.structlr.inference.StatePacking;

import org.structlr.inference.EngineInputs;
import org.structlr.inference.MessagePassing;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.indexing.BooleanIndexing;
import org.nd4j.linalg.indexing.NDArrayIndex;
import org.nd4j.linalg.indexing.conditions.Conditions;
import org.nd4j.linalg.ops.transforms.Transforms;
import org.structlr.graph.Coloring;
import org.structlr.graph.FactorGraph;

/**
 * Star-update message passing on any pairwise graph, batched on ND4J tensors (CPU or CUDA).
 *
 * <p>Layout. Every message lambda_{a->i} lives in one "slot" of the receiving variable i. The
 * variables of one colour class are sorted by decreasing degree, and their slots are laid out
 * plane by plane: plane d holds the d-th incident edge of every variable that has more than d
 * edges, which is a prefix of the class. So every per-variable sum over edges is a handful of
 * contiguous 1-D adds, no padding and no masks. Reading the message at the other end of each edge
 * is the only gather (gather_nd, one per label per colour per sweep). Labels are separate rows
 * ({@code [L, slots]}), so the log-sum-exp over a neighbour's labels is element-wise over planes.
 *
 * <p>Units: internally everything is divided by eps (T = theta/eps, Lam = lambda/eps, U = u/eps),
 * which saves a multiply per op. U_i(y) = T_i(y) - sum_a Lam_{a->i}(y) is kept as state; after a
 * star update it equals total_i(y)/N_i, and it is minus infinity for an impossible label.
 *
 * <p>Star update at i (docs/design.md §1), in eps units:
 * <pre>
 *   M_a(y)          = lse_{y_j} ( T_a(y, y_j) + Lam_{a->j}(y_j) )          for each edge a = (i, j)
 *   total_i(y)      = T_i(y) + sum_a M_a(y)
 *   U_i(y)          = total_i(y) / N_i,   N_i = deg(i) + 1
 *   Lam_{a->i}(y)   = U_i(y) - max(M_a(y), -BIG)
 * </pre>
 * The floor on M only matters when total_i(y) = -inf (an impossible label): then every message to
 * that label is -inf and nothing computes inf - inf.
 *
 * <p>Regions (factors over any number of variables) are batched by {@link Nd4jRegions}: their M_r
 * join the total and N_i counts them. A pairwise graph has none and runs exactly as before.
 */
public final class GraphMessagePassing implements MessagePassing {
    private final FactorGraph graph;
    private final double eps;
    private final DataType dtype;
    private final int numLabels;
    private final int numVars;
    private final int numEdges;
    private final ColourClass[] classes;
    /** slot of (edge e, side s) at index 2e + s. */
    private final int[] slotOf;
    /** Lam: [L, totalSlots]; row views per label. */
    private final INDArray lam;
    private final INDArray[] lamRow;
    /** Initial messages: 0, or -inf for labels a variable does not have. */
    private final INDArray lamInit;
    /** Additive masks (0 / -inf) for labels a variable does not have; null when all have L. */
    private final INDArray unaryPad;
    private final INDArray pairPad;
    private final INDArray edgeSlot0;
    private final INDArray edgeSlot1;
    /** Natural-order variable index -> position in the concatenation of the colour classes. */
    private final INDArray varToClassPos;
    /** Global slot -> 2e+s, to fill slots from natural-order messages. */
    private final INDArray slotToEdgeSide;
    /** T_pair: [L*L, E] (scaled, masked), kept for dual/beliefs. */
    private INDArray pairT;
    /** The regions, or null for a pairwise graph. */
    private final Nd4jRegions regions;

    private static final class ColourClass {
        int n;
        int[] vars;
        int slotOffset;
        int slots;
        int[] planeCount;
        int[] planeOffset;
        INDArray otherIdx;      // [slots, 1] global slot of the other end's message
        INDArray thIdx;         // [slots, 1] index into [L*L, 2E] (e + side*E)
        INDArray invN;          // [1, n]
        INDArray varIdx;        // [n, 1]
        INDArray thU;           // [L, n] scaled unary potentials
        INDArray thP;           // [L*L, slots] oriented pairwise potentials, rows (y, y_other)
        INDArray u;             // [L, n] state U
        // scratch
        INDArray g;             // [L, slots] messages at the other ends
        INDArray z;             // [L, slots]
        INDArray mx;            // [slots]
        INDArray m;             // [L, slots]
        INDArray total;         // [L, n]
        // views created once (hot path)
        INDArray[] gRow, zRow, mRow, uRow, totalRow, thURow, thPBlock;
        INDArray[][] mPlane, totalPrefix, uPrefix, lamPlane;
    }

    public GraphMessagePassing(FactorGraph graph, Coloring coloring, double eps, DataType dtype) {
        if (!(eps > 0) || Double.isInfinite(eps)) throw new IllegalArgumentException("eps must be positive and finite, got " + eps);
        if (dtype != DataType.FLOAT && dtype != DataType.DOUBLE) throw new IllegalArgumentException("dtype must be FLOAT or DOUBLE, got " + dtype);
        coloring.checkProper(graph);
        this.graph = graph;
        this.eps = eps;
        this.dtype = dtype;
        this.numLabels = graph.maxLabels();
        this.numVars = graph.numVariables();
        this.numEdges = graph.numEdges();
        int L = numLabels;

        int[][] inc = graph.incidence();
        int[] off = inc[0], incEdge = inc[1], incSide = inc[2];
        int[] deg = graph.degrees();
        List<List<Integer>> members = new ArrayList<>();
        for (int c = 0; c < coloring.numColors(); c++) members.add(new ArrayList<>());
        for (int v = 0; v < numVars; v++) members.get(coloring.color(v)).add(v);

        slotOf = new int[2 * numEdges];
        List<ColourClass> cls = new ArrayList<>();
        int slotBase = 0;
        int[] classPos = new int[numVars];
        int posBase = 0;
        for (List<Integer> mem : members) {
            if (mem.isEmpty()) continue;
            ColourClass cc = new ColourClass();
            cc.vars = mem.stream().sorted((a, b) -> deg[b] != deg[a] ? Integer.compare(deg[b], deg[a]) : Integer.compare(a, b))
                    .mapToInt(Integer::intValue).toArray();
            cc.n = cc.vars.length;
            int maxDeg = deg[cc.vars[0]];
            cc.planeCount = new int[maxDeg];
            cc.planeOffset = new int[maxDeg];
            for (int v : cc.vars) for (int d = 0; d < deg[v]; d++) cc.planeCount[d]++;
            int s = 0;
            for (int d = 0; d < maxDeg; d++) {
                cc.planeOffset[d] = s;
                s += cc.planeCount[d];
            }
            cc.slots = s;
            cc.slotOffset = slotBase;
            for (int k = 0; k < cc.n; k++) {
                int v = cc.vars[k];
                classPos[v] = posBase + k;
                for (int d = 0; d < deg[v]; d++) {
                    int e = incEdge[off[v] + d], side = incSide[off[v] + d];
                    slotOf[2 * e + side] = slotBase + cc.planeOffset[d] + k;
                }
            }
            slotBase += s;
            posBase += cc.n;
            cls.add(cc);
        }
        int totalSlots = slotBase;
        classes = cls.toArray(new ColourClass[0]);
        List<int[]> classVars = new ArrayList<>();
        for (ColourClass cc : classes) classVars.add(cc.vars);
        regions = graph.hasRegions() ? new Nd4jRegions(graph, classVars, eps, dtype) : null;
        int[] rdeg = graph.regionDegrees();

        int[] s2es = new int[totalSlots];
        for (int es = 0; es < 2 * numEdges; es++) s2es[slotOf[es]] = es;
        slotToEdgeSide = Nd4jKernels.indexColumn(s2es);
        varToClassPos = Nd4jKernels.indexColumn(classPos);
        int[] s0 = new int[numEdges], s1 = new int[numEdges];
        for (int e = 0; e < numEdges; e++) {
            s0[e] = slotOf[2 * e];
            s1[e] = slotOf[2 * e + 1];
        }
        edgeSlot0 = Nd4jKernels.indexColumn(s0);
        edgeSlot1 = Nd4jKernels.indexColumn(s1);

        lam = Nd4j.zeros(dtype, L, Math.max(totalSlots, 1));
        lamRow = new INDArray[L];
        for (int y = 0; y < L; y++) lamRow[y] = lam.getRow(y);

        for (ColourClass cc : classes) {
            int[] other = new int[cc.slots], th = new int[cc.slots];
            for (int k = 0; k < cc.n; k++) {
                int v = cc.vars[k];
                for (int d = 0; d < deg[v]; d++) {
                    int e = incEdge[off[v] + d], side = incSide[off[v] + d];
                    int local = cc.planeOffset[d] + k;
                    other[local] = slotOf[2 * e + 1 - side];
                    th[local] = e + side * numEdges;
                }
            }
            cc.otherIdx = cc.slots > 0 ? Nd4jKernels.indexColumn(other) : null;
            cc.thIdx = cc.slots > 0 ? Nd4jKernels.indexColumn(th) : null;
            double[] invND = new double[cc.n];
            for (int k = 0; k < cc.n; k++) invND[k] = 1.0 / (deg[cc.vars[k]] + rdeg[cc.vars[k]] + 1);
            cc.invN = Nd4j.createFromArray(invND).castTo(dtype).reshape(1, cc.n);
            cc.varIdx = Nd4jKernels.indexColumn(cc.vars);
            cc.thU = Nd4j.zeros(dtype, L, cc.n);
            cc.u = Nd4j.zeros(dtype, L, cc.n);
            cc.total = Nd4j.zeros(dtype, L, cc.n);
            int sl = Math.max(cc.slots, 1);
            cc.thP = Nd4j.zeros(dtype, L * L, sl);
            cc.g = Nd4j.zeros(dtype, L, sl);
            cc.z = Nd4j.zeros(dtype, L, sl);
            cc.m = Nd4j.zeros(dtype, L, sl);
            cc.mx = Nd4j.zeros(dtype, sl);
            cc.gRow = rows(cc.g);
            cc.zRow = rows(cc.z);
            cc.mRow = rows(cc.m);
            cc.uRow = rows(cc.u);
            cc.totalRow = rows(cc.total);
            cc.thURow = rows(cc.thU);
            cc.thPBlock = new INDArray[L];
            for (int y = 0; y < L; y++) cc.thPBlock[y] = cc.thP.get(NDArrayIndex.interval(y * L, (y + 1) * L), NDArrayIndex.all());
            int D = cc.planeCount.length;
            cc.mPlane = new INDArray[L][D];
            cc.totalPrefix = new INDArray[L][D];
            cc.uPrefix = new INDArray[L][D];
            cc.lamPlane = new INDArray[L][D];
            for (int y = 0; y < L; y++) {
                for (int d = 0; d < D; d++) {
                    int po = cc.planeOffset[d], pc = cc.planeCount[d];
                    cc.mPlane[y][d] = cc.mRow[y].get(NDArrayIndex.interval(po, po + pc));
                    cc.totalPrefix[y][d] = cc.totalRow[y].get(NDArrayIndex.interval(0, pc));
                    cc.uPrefix[y][d] = cc.uRow[y].get(NDArrayIndex.interval(0, pc));
                    cc.lamPlane[y][d] = lamRow[y].get(NDArrayIndex.interval(cc.slotOffset + po, cc.slotOffset + po + pc));
                }
            }
        }

        // Labels a variable does not have are impossible: -inf potentials and messages.
        boolean ragged = false;
        for (int v = 0; v < numVars; v++) ragged |= graph.numLabels(v) < L;
        if (ragged) {
            double[][] up = new double[numVars][L];
            for (int v = 0; v < numVars; v++) for (int y = graph.numLabels(v); y < L; y++) up[v][y] = Double.NEGATIVE_INFINITY;
            unaryPad = Nd4j.createFromArray(up).castTo(dtype);
            double[][] pp = new double[numEdges][L * L];
            for (int e = 0; e < numEdges; e++) {
                int li = graph.numLabels(graph.edgeFrom(e)), lj = graph.numLabels(graph.edgeTo(e));
                for (int a = 0; a < L; a++) for (int b = 0; b < L; b++) if (a >= li || b >= lj) pp[e][a * L + b] = Double.NEGATIVE_INFINITY;
            }
            pairPad = Nd4j.createFromArray(pp).castTo(dtype);
            double[][] li = new double[L][Math.max(totalSlots, 1)];
            for (int es = 0; es < 2 * numEdges; es++) {
                int e = es / 2, v = (es % 2 == 0) ? graph.edgeFrom(e) : graph.edgeTo(e);
                for (int y = graph.numLabels(v); y < L; y++) li[y][slotOf[es]] = Double.NEGATIVE_INFINITY;
            }
            lamInit = Nd4j.createFromArray(li).castTo(dtype);
        } else {
            unaryPad = null;
            pairPad = null;
            lamInit = Nd4j.zeros(dtype, L, Math.max(totalSlots, 1));
        }
        lam.assign(lamInit);
        setPotentials(Nd4j.zeros(dtype, numVars, L), Nd4j.zeros(dtype, numEdges, L * L));
    }

    private static INDArray[] rows(INDArray a) {
        INDArray[] r = new INDArray[(int) a.size(0)];
        for (int k = 0; k < r.length; k++) r[k] = a.getRow(k);
        return r;
    }

    @Override
    public FactorGraph graph() {
        return graph;
    }

    @Override
    public double eps() {
        return eps;
    }

    public DataType dataType() {
        return dtype;
    }

    @Override
    public void setPotentials(INDArray unary, INDArray pairwise, INDArray regionTables) {
        if (regions == null) {
            MessagePassing.super.setPotentials(unary, pairwise, regionTables);
            return;
        }
        regions.setPotentials(regionTables);
        setPotentials(unary, pairwise);
    }

    /** Sets unary and pairwise potentials; the regions' tables stay as they are. */
    @Override
    public void setPotentials(INDArray unary, INDArray pairwise) {
        int L = numLabels;
        EngineInputs.checkPotentials("unary", unary, numVars, L);
        EngineInputs.checkPotentials("pairwise", pairwise, numEdges, (long) L * L);
        INDArray tu = unary.castTo(dtype).div(eps);
        if (unaryPad != null) tu.addi(unaryPad);
        INDArray tuT = tu.transpose().dup('c');                        // [L, V]
        INDArray both = null;                                          // [L*L, 2E]: rows (y_i, y_j), then (y_j, y_i)
        if (numEdges == 0) {
            pairT = Nd4j.create(dtype, (long) L * L, 0);               // ND4J refuses arithmetic on empty arrays
        } else {
            INDArray tp = pairwise.castTo(dtype).div(eps);
            if (pairPad != null) tp.addi(pairPad);
            pairT = tp.transpose().dup('c');                           // [L*L, E], rows (y_i, y_j)
            INDArray swapped = tp.reshape(numEdges, L, L).permute(0, 2, 1).dup('c').reshape(numEdges, (long) L * L)
                    .transpose().dup('c');                             // rows (y_j, y_i)
            both = Nd4j.concat(1, pairT, swapped);
        }
        for (ColourClass cc : classes) {
            for (int y = 0; y < L; y++) Nd4jKernels.gather(tuT.getRow(y), cc.varIdx, cc.thURow[y]);
            if (cc.slots > 0) {
                for (int r = 0; r < L * L; r++) Nd4jKernels.gather(both.getRow(r), cc.thIdx, cc.thP.getRow(r));
            }
        }
        recomputeU();
    }

    /** U = T_u - sum of incoming messages; a label whose messages were -inf stays impossible. */
    private void recomputeU() {
        for (int c = 0; c < classes.length; c++) {
            ColourClass cc = classes[c];
            cc.u.assign(cc.thU);
            for (int y = 0; y < numLabels; y++) {
                for (int d = 0; d < cc.planeCount.length; d++) cc.uPrefix[y][d].subi(cc.lamPlane[y][d]);
            }
            if (regions != null) regions.subtractMessages(c, cc.u);
            BooleanIndexing.replaceWhere(cc.u, Double.NEGATIVE_INFINITY, Conditions.isNan());
            BooleanIndexing.replaceWhere(cc.u, Double.NEGATIVE_INFINITY, Conditions.greaterThan(Double.MAX_VALUE));
            // Messages into an impossible label are -inf, as a star update would make them.
            INDArray dead = cc.u.dup();
            BooleanIndexing.replaceWhere(dead, 0.0, Conditions.greaterThan(-Double.MAX_VALUE));
            for (int y = 0; y < numLabels; y++) {
                INDArray deadRow = dead.getRow(y);
                for (int d = 0; d < cc.planeCount.length; d++) {
                    cc.lamPlane[y][d].addi(deadRow.get(NDArrayIndex.interval(0, cc.planeCount[d])));
                }
            }
            if (regions != null) regions.killImpossible(c, cc.u);
        }
    }

    @Override
    public void iterate(int sweeps) {
        if (sweeps < 0) throw new IllegalArgumentException("sweeps must be at least 0, got " + sweeps);
        for (int s = 0; s < sweeps; s++) {
            for (int c = 0; c < classes.length; c++) update(c, classes[c]);
        }
    }

    private void update(int c, ColourClass cc) {
        int L = numLabels;
        int D = cc.planeCount.length;
        boolean withRegions = regions != null && regions.touches(c);
        if (cc.slots == 0 && !withRegions) return;   // isolated variables: U = T_u already
        if (cc.slots > 0) edgeIncoming(cc);
        cc.total.assign(cc.thU);
        for (int y = 0; y < L; y++) {
            for (int d = 0; d < D; d++) cc.totalPrefix[y][d].addi(cc.mPlane[y][d]);
        }
        INDArray mRegions = withRegions ? regions.addIncoming(c, cc.total) : null;
        cc.u.assign(cc.total).muliRowVector(cc.invN);
        if (cc.slots > 0) {
            Transforms.max(cc.m, -Nd4jKernels.BIG, false);
            for (int y = 0; y < L; y++) {
                for (int d = 0; d < D; d++) Nd4jKernels.sub(cc.uPrefix[y][d], cc.mPlane[y][d], cc.lamPlane[y][d]);
            }
        }
        if (withRegions) regions.update(c, cc.u, mRegions);
    }

    /** cc.m = M_a(y) for every edge slot of the class. */
    private void edgeIncoming(ColourClass cc) {
        int L = numLabels;
        for (int y = 0; y < L; y++) Nd4jKernels.gather(lamRow[y], cc.otherIdx, cc.gRow[y]);
        for (int y = 0; y < L; y++) {
            // z[y_o] = T(y, y_o) + Lam_other(y_o);  M(y) = lse over y_o
            Nd4jKernels.add(cc.thPBlock[y], cc.g, cc.z);
            cc.mx.assign(cc.zRow[0]);
            for (int k = 1; k < L; k++) Nd4jKernels.max(cc.mx, cc.zRow[k], cc.mx);
            Transforms.max(cc.mx, -Nd4jKernels.BIG, false);
            cc.z.subiRowVector(cc.mx);
            Transforms.exp(cc.z, false);
            INDArray out = cc.mRow[y];
            out.assign(cc.zRow[0]);
            for (int k = 1; k < L; k++) out.addi(cc.zRow[k]);
            Transforms.log(out, false);
            out.addi(cc.mx);
        }
    }

    /** [L*L, E] scaled pair exponents T_a + Lam_{a->i} + Lam_{a->j}. */
    private INDArray pairExponents() {
        int L = numLabels;
        INDArray z = pairT.dup();
        if (numEdges == 0) return z;
        INDArray l0 = Nd4j.create(dtype, L, numEdges), l1 = Nd4j.create(dtype, L, numEdges);
        for (int y = 0; y < L; y++) {
            Nd4jKernels.gather(lamRow[y], edgeSlot0, l0.getRow(y));
            Nd4jKernels.gather(lamRow[y], edgeSlot1, l1.getRow(y));
        }
        for (int a = 0; a < L; a++) {
            for (int b = 0; b < L; b++) {
                INDArray row = z.getRow(a * L + b);
                row.addi(l0.getRow(a)).addi(l1.getRow(b));
            }
        }
        return z;
    }

    private static double sumLse(INDArray rows) {
        if (rows.size(1) == 0) return 0;
        INDArray r = rows.dup();
        INDArray mx = Nd4j.create(r.dataType(), r.size(1));
        INDArray out = Nd4j.create(r.dataType(), r.size(1));
        Nd4jKernels.logSumExpRows(r, mx, out);
        return Nd4jKernels.sum(out);
    }

    @Override
    public double dual() {
        double s = 0;
        for (ColourClass cc : classes) s += sumLse(cc.u);
        if (numEdges > 0) s += sumLse(pairExponents());
        if (regions != null) s += regions.dualTerm();
        return eps * s;
    }

    @Override
    public double primal() {
        double s = 0;
        for (ColourClass cc : classes) {
            INDArray b = cc.u.dup();
            Nd4jKernels.softmaxRows(b);
            s += Nd4jKernels.expectedPlusEntropy(cc.thU, b);
        }
        if (numEdges > 0) {
            INDArray b = pairExponents();
            Nd4jKernels.softmaxRows(b);
            s += Nd4jKernels.expectedPlusEntropy(pairT, b);
        }
        if (regions != null) s += regions.primalTerm();
        return eps * s;
    }

    /** [L, V] in natural order from per-class [L, n] blocks. */
    private INDArray toNatural(java.util.function.Function<ColourClass, INDArray> block) {
        INDArray cat = Nd4j.concat(1, Arrays.stream(classes).map(block).toArray(INDArray[]::new));
        INDArray out = Nd4j.create(dtype, numLabels, numVars);
        for (int y = 0; y < numLabels; y++) Nd4jKernels.gather(cat.getRow(y).dup(), varToClassPos, out.getRow(y));
        return out;
    }

    @Override
    public INDArray unaryBeliefs() {
        INDArray b = toNatural(cc -> cc.u);
        Nd4jKernels.softmaxRows(b);
        return b.transpose().dup('c');
    }

    @Override
    public INDArray pairBeliefs() {
        if (numEdges == 0) return Nd4j.create(dtype, 0, (long) numLabels * numLabels);
        INDArray b = pairExponents();
        Nd4jKernels.softmaxRows(b);
        return b.transpose().dup('c');
    }

    @Override
    public int[] decode() {
        INDArray u = toNatural(cc -> cc.u);
        return u.argMax(0).toIntVector();
    }

    @Override
    public INDArray messages() {
        int L = numLabels;
        if (numEdges == 0) return Nd4j.create(dtype, 0, 2, L);
        INDArray out = Nd4j.create(dtype, L, 2L * numEdges);
        {
            int[] all = new int[2 * numEdges];
            System.arraycopy(slotOf, 0, all, 0, all.length);
            INDArray idx = Nd4jKernels.indexColumn(all);
            for (int y = 0; y < L; y++) Nd4jKernels.gather(lamRow[y], idx, out.getRow(y));
        }
        return out.muli(eps).transpose().dup('c').reshape(numEdges, 2, L);
    }

    @Override
    public void setMessages(INDArray messages) {
        int L = numLabels;
        EngineInputs.checkMessages(messages, numEdges, L);
        if (numEdges == 0) return;
        INDArray nat = messages.castTo(dtype).reshape(2L * numEdges, L).transpose().dup('c').divi(eps); // [L, 2E]
        for (int y = 0; y < L; y++) Nd4jKernels.gather(nat.getRow(y), slotToEdgeSide, lamRow[y]);
        if (unaryPad != null) lam.addi(lamInit);
        recomputeU();
    }

    @Override
    public void resetMessages() {
        lam.assign(lamInit);
        if (regions != null) regions.reset();
        recomputeU();
    }

    @Override
    public INDArray regionBeliefs() {
        return regions == null ? MessagePassing.super.regionBeliefs() : regions.beliefs();
    }

    @Override
    public INDArray regionMessages() {
        return regions == null ? MessagePassing.super.regionMessages() : regions.messages();
    }

    @Override
    public void setRegionMessages(INDArray messages) {
        if (regions == null) {
            MessagePassing.super.setRegionMessages(messages);
            return;
        }
        regions.setMessages(messages);
        recomputeU();
    }

    @Override
    public boolean exactState() {
        return true;
    }

    /** Lam {@code [L, slots]} then U {@code [L, n]} of each colour class, eps units, bit for bit (see {@link StatePacking}). */
    @Override
    public float[] state() {
        return StatePacking.pack(dtype, stateParts());
    }

    @Override
    public void setState(float[] state) {
        StatePacking.unpack(state, dtype, stateParts());
    }

    private INDArray[] stateParts() {
        INDArray[] parts = new INDArray[1 + classes.length + (regions == null ? 0 : 1)];
        parts[0] = lam;
        for (int c = 0; c < classes.length; c++) parts[1 + c] = classes[c].u;
        if (regions != null) parts[1 + classes.length] = regions.state();
        return parts;
    }

    @Override
    public INDArray incomingMessageSums() {
        int L = numLabels;
        INDArray out = toNatural(cc -> {
            INDArray s = Nd4j.zeros(dtype, L, cc.n);
            for (int y = 0; y < L; y++) {
                for (int d = 0; d < cc.planeCount.length; d++) s.getRow(y).get(NDArrayIndex.interval(0, cc.planeCount[d])).addi(cc.lamPlane[y][d]);
            }
            if (regions != null) s.addi(regions.incomingSums(java.util.Arrays.asList(classes).indexOf(cc)));
            return s;
        });
        return out.muli(eps).transpose().dup('c');
    }
}
