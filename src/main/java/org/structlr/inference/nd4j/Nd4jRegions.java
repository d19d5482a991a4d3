package org.structlr.inference.nd4j;

import java.util.List;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.api.ops.DynamicCustomOp;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.indexing.BooleanIndexing;
import org.nd4j.linalg.indexing.NDArrayIndex;
import org.nd4j.linalg.indexing.conditions.Conditions;
import org.nd4j.linalg.ops.transforms.Transforms;
import org.structlr.graph.FactorGraph;
import org.structlr.inference.RegionScores;

/**
 * The regions of {@link GraphMessagePassing}: their tables, messages and the batched ops of the star
 * update ({@link RegionScores}' formulas on ND4J tensors), in the engine's eps units.
 *
 * <p>Layout. A (region r, its variable p) pair is one "slot"; slots are laid out colour class by
 * colour class, so the messages into the variables of one class are one contiguous block of rows of
 * {@code lam [slots, L]} (flat, slot-major, one zero entry past the end for padding). For the star
 * update of a class every entry t of every region with a variable i in the class is one work item:
 * <pre>
 *   z(t)            = T_r(t) + sum_{q != p} Lam_{r->q}(y_q(t))                  (one gather per position)
 *   M_{r->i}(y)     = lse_{t : y_p(t) = y} z(t)                                 (segment max, exp, segment sum, log)
 * </pre>
 * the segment of item t being (pair, y_p(t)); the pairs' M are summed per variable into the star
 * update's total, and the new messages are Lam_{r->i}(y) = U_i(y) - max(M_{r->i}(y), -BIG), the
 * edges' rule. Segments with no item (a label the variable lacks) give minus infinity.
 */
final class Nd4jRegions {
    private static final double BIG = Nd4jKernels.BIG;

    private final FactorGraph graph;
    private final DataType dtype;
    private final double eps;
    private final int L, S, T;
    /** Scaled tables T_r = theta_r / eps, natural layout [T]. */
    private INDArray theta;
    /** Messages, eps units: [S * L + 1], slot-major in class order; the last entry is a zero for padding gathers. */
    private final INDArray lam;
    private final INDArray lamInit;
    /** Natural slot -> internal slot, and the inverse as gather indices of rows. */
    private final int[] internal;
    private final INDArray naturalToInternalRows, internalToNaturalRows;
    private final ClassPart[] parts;
    /** For the dual and beliefs: every entry's gathers of all positions ([T, 1] each), and its region as segment id. */
    private final INDArray[] allIdx;
    private final INDArray allSeg, allSegIdx, allTheta;

    /** The work of one colour class. */
    private static final class ClassPart {
        int n;          // variables of the class
        int pairs;      // slots of the class
        int slotOffset; // first internal slot
        INDArray thIdx; // [W, 1] entry of each work item
        INDArray[] otherIdx; // per other position: [W, 1] index into lam
        INDArray seg;   // [W] pair * L + y_p
        INDArray segIdx; // the same as gather indices [W, 1]
        INDArray pairVar; // [pairs] class-local variable of each pair (segment ids for per-variable sums)
        INDArray pairVarIdx; // [pairs, 1] the same as gather indices
        INDArray lamBlock;   // view [pairs, L] of lam
        int items;
    }

    /**
     * @param classVars the variables of each colour class in the engine's class-local order
     */
    Nd4jRegions(FactorGraph graph, List<int[]> classVars, double eps, DataType dtype) {
        this.graph = graph;
        this.dtype = dtype;
        this.eps = eps;
        this.L = graph.maxLabels();
        this.S = graph.numRegionSlots();
        this.T = graph.totalRegionEntries();
        int V = graph.numVariables();
        int[] classOf = new int[V], posInClass = new int[V];
        for (int c = 0; c < classVars.size(); c++) {
            int[] vs = classVars.get(c);
            for (int k = 0; k < vs.length; k++) {
                classOf[vs[k]] = c;
                posInClass[vs[k]] = k;
            }
        }
        // internal slot order: class by class, region order within a class
        internal = new int[S];
        int[] naturalOf = new int[S];
        parts = new ClassPart[classVars.size()];
        int next = 0;
        for (int c = 0; c < classVars.size(); c++) {
            ClassPart cp = new ClassPart();
            cp.n = classVars.get(c).length;
            cp.slotOffset = next;
            for (int r = 0; r < graph.numRegions(); r++) {
                for (int p = 0; p < graph.regionSize(r); p++) {
                    if (classOf[graph.regionVariable(r, p)] != c) continue;
                    internal[graph.regionSlot(r, p)] = next;
                    naturalOf[next++] = graph.regionSlot(r, p);
                }
            }
            cp.pairs = next - cp.slotOffset;
            parts[c] = cp;
        }
        naturalToInternalRows = Nd4jKernels.indexColumn(naturalOf.length == 0 ? new int[] {0} : naturalOf);
        internalToNaturalRows = Nd4jKernels.indexColumn(internal.length == 0 ? new int[] {0} : internal);
        int kmax = 0;
        for (int r = 0; r < graph.numRegions(); r++) kmax = Math.max(kmax, graph.regionSize(r));
        int zero = S * L; // the padding entry of lam
        for (ClassPart cp : parts) {
            if (cp.pairs == 0) continue;
            int W = 0;
            for (int s = cp.slotOffset; s < cp.slotOffset + cp.pairs; s++) W += graph.regionEntries(regionOfSlot(naturalOf[s]));
            cp.items = W;
            int[] th = new int[W], seg = new int[W];
            int[][] other = new int[Math.max(kmax - 1, 1)][W];
            for (int[] o : other) java.util.Arrays.fill(o, zero);
            int[] pv = new int[cp.pairs];
            int w = 0;
            for (int k = 0; k < cp.pairs; k++) {
                int slot = naturalOf[cp.slotOffset + k];
                int r = regionOfSlot(slot), p = slot - graph.regionSlot(r, 0);
                pv[k] = posInClass[graph.regionVariable(r, p)];
                int off = graph.regionTableOffset(r);
                for (int t = 0; t < graph.regionEntries(r); t++, w++) {
                    th[w] = off + t;
                    seg[w] = k * L + graph.regionLabel(r, p, t);
                    int o = 0;
                    for (int q = 0; q < graph.regionSize(r); q++) {
                        if (q == p) continue;
                        other[o++][w] = internal[graph.regionSlot(r, q)] * L + graph.regionLabel(r, q, t);
                    }
                }
            }
            cp.thIdx = Nd4jKernels.indexColumn(th);
            cp.seg = Nd4j.createFromArray(seg);
            cp.segIdx = Nd4jKernels.indexColumn(seg);
            cp.otherIdx = new INDArray[other.length];
            for (int q = 0; q < other.length; q++) cp.otherIdx[q] = Nd4jKernels.indexColumn(other[q]);
            cp.pairVar = Nd4j.createFromArray(pv);
            cp.pairVarIdx = Nd4jKernels.indexColumn(pv);
        }
        // dual / beliefs: all entries with all positions
        int[][] all = new int[Math.max(kmax, 1)][T];
        for (int[] a : all) java.util.Arrays.fill(a, zero);
        int[] allSegA = new int[T];
        for (int r = 0; r < graph.numRegions(); r++) {
            int off = graph.regionTableOffset(r);
            for (int t = 0; t < graph.regionEntries(r); t++) {
                allSegA[off + t] = r;
                for (int q = 0; q < graph.regionSize(r); q++) all[q][off + t] = internal[graph.regionSlot(r, q)] * L + graph.regionLabel(r, q, t);
            }
        }
        allIdx = new INDArray[all.length];
        for (int q = 0; q < all.length; q++) allIdx[q] = Nd4jKernels.indexColumn(all[q]);
        allSeg = Nd4j.createFromArray(allSegA);
        allSegIdx = Nd4jKernels.indexColumn(allSegA);
        allTheta = Nd4jKernels.indexColumn(java.util.stream.IntStream.range(0, T).toArray());
        // messages: 0 on the labels a variable has, -inf on the padding; a final 0
        double[] init = new double[S * L + 1];
        for (int slot = 0; slot < S; slot++) {
            int r = regionOfSlot(slot), v = graph.regionVariable(r, slot - graph.regionSlot(r, 0));
            for (int y = graph.numLabels(v); y < L; y++) init[internal[slot] * L + y] = Double.NEGATIVE_INFINITY;
        }
        lamInit = Nd4j.createFromArray(init).castTo(dtype);
        lam = lamInit.dup();
        for (ClassPart cp : parts) {
            if (cp.pairs > 0) cp.lamBlock = lam.get(NDArrayIndex.interval((long) cp.slotOffset * L, (long) (cp.slotOffset + cp.pairs) * L)).reshape(cp.pairs, L);
        }
        theta = Nd4j.zeros(dtype, T);
    }

    private int regionOfSlot(int slot) {
        // slots are numbered region after region; a binary search over the regions' first slots
        int lo = 0, hi = graph.numRegions() - 1;
        while (lo < hi) {
            int mid = (lo + hi + 1) >>> 1;
            if (graph.regionSlot(mid, 0) <= slot) lo = mid; else hi = mid - 1;
        }
        return lo;
    }

    /** Region degree of each variable (for N_i). */
    int[] degrees() {
        return graph.regionDegrees();
    }

    void setPotentials(INDArray regions) {
        if (regions.length() != T) throw new IllegalArgumentException("region potentials must have " + T + " entries, got " + regions.length());
        if (Nd4jKernels.hasNanOrPlusInf(regions)) throw new IllegalArgumentException("region potentials contain NaN or +infinity");
        theta = regions.reshape(T).castTo(dtype).div(eps);
    }

    void reset() {
        lam.assign(lamInit);
    }

    /** True when class c has region slots. */
    boolean touches(int c) {
        return parts[c].pairs > 0;
    }

    /** The class's M_{r->i} for all its pairs, [pairs, L], from the current messages. */
    private INDArray incoming(ClassPart cp) {
        INDArray z = Nd4j.create(dtype, cp.items);
        Nd4jKernels.gather(theta, cp.thIdx, z);
        INDArray g = Nd4j.create(dtype, cp.items);
        for (INDArray idx : cp.otherIdx) {
            Nd4jKernels.gather(lam, idx, g);
            z.addi(g);
        }
        int segs = cp.pairs * L;
        INDArray mx = segment("unsorted_segment_max", z, cp.seg, segs);
        Transforms.max(mx, -BIG, false);
        INDArray back = Nd4j.create(dtype, cp.items);
        Nd4jKernels.gather(mx, cp.segIdx, back);
        z.subi(back);
        Transforms.exp(z, false);
        INDArray s = segment("unsorted_segment_sum", z, cp.seg, segs);
        Transforms.log(s, false);
        return s.addi(mx).reshape(cp.pairs, L);
    }

    /** total [L, n] += sum over the class's pairs of M_{r->i}; returns M ([pairs, L]) for {@link #update}. */
    INDArray addIncoming(int c, INDArray total) {
        ClassPart cp = parts[c];
        INDArray m = incoming(cp);
        INDArray perVar = segment("unsorted_segment_sum", m, cp.pairVar, cp.n); // [n, L]
        total.addi(perVar.transpose());
        return m;
    }

    /** Lam_{r->i}(y) = U_i(y) - max(M_{r->i}(y), -BIG) for the class's pairs, with u [L, n]. */
    void update(int c, INDArray u, INDArray m) {
        ClassPart cp = parts[c];
        INDArray ut = u.transpose().dup('c');                 // [n, L]
        INDArray rows = Nd4j.create(dtype, cp.pairs, L);
        Nd4j.exec(DynamicCustomOp.builder("gather_nd").addInputs(ut, cp.pairVarIdx).addOutputs(rows).build());
        Transforms.max(m, -BIG, false);
        cp.lamBlock.assign(rows.subi(m));
    }

    /** u [L, n] -= the class's incoming region messages (infinities are sorted out by the caller). */
    void subtractMessages(int c, INDArray u) {
        ClassPart cp = parts[c];
        if (cp.pairs == 0) return;
        INDArray perVar = segment("unsorted_segment_sum", cp.lamBlock.dup(), cp.pairVar, cp.n);
        u.subi(perVar.transpose());
    }

    /** Messages into a label that is impossible (u = -inf) become -inf, as a star update makes them. */
    void killImpossible(int c, INDArray u) {
        ClassPart cp = parts[c];
        if (cp.pairs == 0) return;
        INDArray dead = u.transpose().dup('c');
        BooleanIndexing.replaceWhere(dead, 0.0, Conditions.greaterThan(-Double.MAX_VALUE));
        INDArray rows = Nd4j.create(dtype, cp.pairs, L);
        Nd4j.exec(DynamicCustomOp.builder("gather_nd").addInputs(dead, cp.pairVarIdx).addOutputs(rows).build());
        cp.lamBlock.addi(rows);
    }

    /** The class's incoming region message sums [L, n] (eps units). */
    INDArray incomingSums(int c) {
        ClassPart cp = parts[c];
        if (cp.pairs == 0) return Nd4j.zeros(dtype, L, cp.n);
        return segment("unsorted_segment_sum", cp.lamBlock.dup(), cp.pairVar, cp.n).transpose().dup('c');
    }

    /** Scores T_r(t) + sum_q Lam_{r->q}(y_q(t)) of every entry, natural layout [T]. */
    private INDArray scores() {
        INDArray z = Nd4j.create(dtype, T);
        Nd4jKernels.gather(theta, allTheta, z);
        INDArray g = Nd4j.create(dtype, T);
        for (INDArray idx : allIdx) {
            Nd4jKernels.gather(lam, idx, g);
            z.addi(g);
        }
        return z;
    }

    /** sum_r lse_t(scores), eps units (the caller multiplies by eps). */
    double dualTerm() {
        if (T == 0) return 0;
        INDArray z = scores();
        INDArray mx = segment("unsorted_segment_max", z, allSeg, graph.numRegions());
        Transforms.max(mx, -BIG, false);
        INDArray back = Nd4j.create(dtype, T);
        Nd4jKernels.gather(mx, allSegIdx, back);
        z.subi(back);
        Transforms.exp(z, false);
        INDArray s = segment("unsorted_segment_sum", z, allSeg, graph.numRegions());
        Transforms.log(s, false);
        return s.addi(mx).sumNumber().doubleValue();
    }

    /** b_r = softmax of each region's scores, natural layout [T]. */
    INDArray beliefs() {
        if (T == 0) return Nd4j.create(dtype, 0);
        INDArray z = scores();
        INDArray mx = segment("unsorted_segment_max", z, allSeg, graph.numRegions());
        Transforms.max(mx, -BIG, false);
        INDArray idx = allSegIdx;
        INDArray back = Nd4j.create(dtype, T);
        Nd4jKernels.gather(mx, idx, back);
        z.subi(back);
        Transforms.exp(z, false);
        INDArray s = segment("unsorted_segment_sum", z, allSeg, graph.numRegions());
        Nd4jKernels.gather(s, idx, back);
        return z.divi(back);
    }

    /** sum_t b(t) (T(t) - log b(t)) with 0 for b = 0, eps units. */
    double primalTerm() {
        if (T == 0) return 0;
        INDArray b = beliefs();
        return Nd4jKernels.expectedPlusEntropy(theta.reshape(1, T), b.reshape(1, T));
    }

    /** Natural-order messages [S, L], natural units. */
    INDArray messages() {
        if (S == 0) return Nd4j.create(dtype, 0, L);
        INDArray block = lam.get(NDArrayIndex.interval(0, (long) S * L)).reshape(S, L).dup('c');
        INDArray out = Nd4j.create(dtype, S, L);
        Nd4j.exec(DynamicCustomOp.builder("gather_nd").addInputs(block, internalToNaturalRows).addOutputs(out).build());
        return out.muli(eps);
    }

    /** Sets natural-order messages [S, L] (natural units); padding labels get -inf. */
    void setMessages(INDArray messages) {
        if (messages.rank() != 2 || messages.size(0) != S || messages.size(1) != L) {
            throw new IllegalArgumentException("region messages must have shape [" + S + ", " + L + "], got " + java.util.Arrays.toString(messages.shape()));
        }
        if (S == 0) return;
        if (Nd4jKernels.hasNanOrPlusInf(messages)) throw new IllegalArgumentException("region messages contain NaN or +infinity");
        INDArray nat = messages.castTo(dtype).dup('c').divi(eps);
        INDArray rows = Nd4j.create(dtype, S, L);
        Nd4j.exec(DynamicCustomOp.builder("gather_nd").addInputs(nat, naturalToInternalRows).addOutputs(rows).build());
        INDArray flat = rows.reshape((long) S * L);
        INDArray pad = lamInit.get(NDArrayIndex.interval(0, (long) S * L));
        lam.get(NDArrayIndex.interval(0, (long) S * L)).assign(flat.addi(pad));
    }

    /** The message array itself, for state packing. */
    INDArray state() {
        return lam;
    }

    /**
     * An unsorted segment op ({@code out[s] = op over data rows with ids == s}). ND4J 1.0.0-M2.1 reads a
     * one-row [1, L] input as a vector and reduces only its first entry, so a single row gets a zero
     * row beside it in a segment of its own, which is dropped.
     */
    private INDArray segment(String op, INDArray data, INDArray ids, int segments) {
        if (data.size(0) == 1) {
            INDArray padded = Nd4j.concat(0, data.rank() == 1 ? data : data.reshape(1, data.size(1)), Nd4j.zeros(dtype, data.rank() == 1 ? new long[] {1} : new long[] {1, data.size(1)}));
            INDArray paddedIds = Nd4j.createFromArray(ids.getInt(0), segments);
            INDArray out = segment(op, padded, paddedIds, segments + 1);
            return out.get(NDArrayIndex.interval(0, segments)).dup();
        }
        long[] shape = data.rank() == 1 ? new long[] {segments} : new long[] {segments, data.size(1)};
        INDArray out = Nd4j.create(dtype, shape);
        Nd4j.exec(DynamicCustomOp.builder(op).addInputs(data, ids).addIntegerArguments(segments).addOutputs(out).build());
        return out;
    }
}
