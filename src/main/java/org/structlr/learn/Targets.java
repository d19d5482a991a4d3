package org.structlr.learn;

import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.api.ops.impl.shape.Gather;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.indexing.NDArrayIndex;
import org.structlr.data.Example;
import org.structlr.memory.Device;
import org.structlr.memory.RowGather;
import org.structlr.model.ExampleBatch;
import org.structlr.oracle.BiasedLogisticProblem;
import org.structlr.oracle.ImageRows;

/**
 * The training truth of a batch in the forms the loop reads every iteration (docs/design.md §1), as ND4J
 * arrays built once, so that the per-iteration terms are ND4J ops on the engine's own arrays and
 * only scalars reach the host (on a GPU the arrays stay on the device):
 * <pre>
 *   Delta_i(y)         = [y != y_i]                                                   (Hamming loss augmentation)
 *   b_i(y)             = (Delta_i(y) - sum_{a ∋ i} lambda_{a->i}(y)) / eps            (unary oracle bias)
 *   b_a(y_i, y_j)      = (lambda_{a->i}(y_i) + lambda_{a->j}(y_j)) / eps              (pairwise oracle bias)
 *   F(x, y)            = sum_i theta_i(y_i) + sum_a theta_a(y_i, y_j)                 (score of the truth)
 * </pre>
 * The per-row labels of the oracle problems ({@link #labels}, {@link #pairLabels}) are host arrays,
 * read once. This is where a loss other than Hamming, void labels or soft targets change the terms
 * (the loop itself never looks at labels). Void labels, in one of two forms ({@link VoidForm}): the
 * simple form ({@link VoidRows}): a void variable adds no term of its own (Delta 0, no term in F, no
 * oracle row; its factors and those of the edges touching it are zero in training); the clamped form
 * ({@link ClampedRows}, {@link #clamps}): F is replaced by the clamped problem's dual and the oracle
 * rows' targets by its beliefs (the batch states then keep a second, clamped engine).
 */
public final class Targets {
    private final int L;
    private final int[] labels;
    private final int[][] pairLabels;       // per pairwise type, in the type's edge order
    private final RowGather[] edgesOfType;   // per pairwise type, its edges' rows of edge-order arrays (the batch's)
    private final INDArray delta;           // [V, L]
    private final INDArray truthU, truthP;  // flat indices of the true entries: v * L + y_v, e * L^2 + y_i L + y_j (labelled only)
    private final long[] truthUHost, truthPHost;   // the same on the host, for F on the CPU backend
    private final VoidRows voids;
    private final double[] unaryWeights;    // row weights of the unary rows (RowWeights), or null: all 1
    private final double[][] pairWeights;   // per pairwise type, in the type's edge order, or null: all 1
    private final ClampedRows clamped;      // the clamped form's rows, or null (simple form, or no void)
    private final org.structlr.graph.FactorGraph graph;
    private final int[][] regionLabels;     // per region type, the true joint label (table entry) of its regions, in region order (0 where void)
    private final int[][] regionRows;       // per region type, the positions (type order) of its regions whose variables are all labelled
    private final RowGather[] regionRowGather;   // the same as row gathers (on CUDA the indices stay on the device)
    private final double[][] regionWeights; // per region type, in the type's order, or null: all 1
    private final INDArray regionMask;      // [total region entries]: 0 on the tables of regions touching a void variable (simple form), or null
    private final INDArray truthR;          // flat indices of the true entries in the region layout (regions with every variable labelled)

    private Targets(ExampleBatch b, RowWeights weights, boolean clamp) {
        if (!b.hasLabels()) throw new IllegalArgumentException("training examples must carry labels");
        L = b.numLabels();
        labels = b.labels();
        int[] joint = b.jointLabels();
        pairLabels = new int[b.numPairTypes()][];
        edgesOfType = new RowGather[b.numPairTypes()];
        for (int t = 0; t < pairLabels.length; t++) {
            pairLabels[t] = b.pairLabels(t);
            edgesOfType[t] = b.typeRows(t);
        }
        truthUHost = java.util.stream.IntStream.range(0, labels.length).filter(v -> labels[v] != Example.VOID)
                .mapToLong(v -> (long) v * L + labels[v]).toArray();
        truthPHost = java.util.stream.IntStream.range(0, joint.length).filter(e -> joint[e] != Example.VOID)
                .mapToLong(e -> (long) e * L * L + joint[e]).toArray();
        truthU = Nd4j.createFromArray(truthUHost);
        truthP = Nd4j.createFromArray(truthPHost);
        delta = org.structlr.model.Potentials.hammingLoss(b);
        voids = new VoidRows(b);
        double[] classW = null, exampleW = null;
        graph = b.graph();
        // regions: a region touching a void variable is treated as an edge touching one (VoidRows): no row, no term in F, zero in training
        int[][] byType = graph.regionsByType();
        boolean[] regionLabelled = new boolean[graph.numRegions()];
        java.util.List<Long> tr = new java.util.ArrayList<>();
        for (int r = 0; r < graph.numRegions(); r++) {
            boolean all = true;
            for (int p = 0; p < graph.regionSize(r); p++) all &= labels[graph.regionVariable(r, p)] != Example.VOID;
            regionLabelled[r] = all;
            if (all) tr.add((long) graph.regionTableOffset(r) + graph.regionEntry(r, labels));
        }
        truthR = Nd4j.createFromArray(tr.stream().mapToLong(Long::longValue).toArray());
        regionLabels = new int[byType.length][];
        regionRows = new int[byType.length][];
        regionRowGather = new RowGather[byType.length];
        for (int t = 0; t < byType.length; t++) {
            int[] rs = byType[t];
            regionLabels[t] = new int[rs.length];
            for (int k = 0; k < rs.length; k++) if (regionLabelled[rs[k]]) regionLabels[t][k] = graph.regionEntry(rs[k], labels);
            regionRows[t] = java.util.stream.IntStream.range(0, rs.length).filter(k -> regionLabelled[rs[k]]).toArray();
            regionRowGather[t] = RowGather.of(regionRows[t]);
        }
        if (voids.any() && !clamp && graph.numRegions() > 0) {
            float[] mask = new float[graph.totalRegionEntries()];
            for (int r = 0; r < graph.numRegions(); r++) {
                if (regionLabelled[r]) java.util.Arrays.fill(mask, graph.regionTableOffset(r), graph.regionTableOffset(r) + graph.regionEntries(r), 1f);
            }
            regionMask = Nd4j.create(mask, new long[] {mask.length}, 'c');
        } else {
            regionMask = null;
        }
        if (weights.any()) {
            // w_i = e_k c_{y_i}, w_a = e_k (c_{y_i} + c_{y_j}) / 2 (RowWeights); void rows are dropped, so their weight is never read
            int n = b.examples().size();
            double[] c = weights.classWeights(labels, L), e = weights.exampleWeights(n);
            classW = weights.hasClassWeights() ? c : null;
            exampleW = weights.hasExampleWeights() ? e : null;
            unaryWeights = new double[labels.length];
            double[] edgeWeights = new double[joint.length];
            org.structlr.graph.FactorGraph g = b.graph();
            for (int k = 0; k < n; k++) {
                for (int v = b.variableOffset(k); v < b.variableOffset(k + 1); v++) unaryWeights[v] = labels[v] == Example.VOID ? 0 : e[k] * c[labels[v]];
                for (int a = b.edgeOffset(k); a < b.edgeOffset(k + 1); a++) {
                    edgeWeights[a] = joint[a] == Example.VOID ? 0 : e[k] * (c[labels[g.edgeFrom(a)]] + c[labels[g.edgeTo(a)]]) / 2;
                }
            }
            pairWeights = new double[pairLabels.length][];
            for (int t = 0; t < pairLabels.length; t++) {
                int[] edges = b.edgesOfType(t);
                pairWeights[t] = new double[edges.length];
                for (int k = 0; k < edges.length; k++) pairWeights[t][k] = edgeWeights[edges[k]];
            }
            // a region row over (i_1..i_m) in example k: w_r = e_k (c_{y_1} + ... + c_{y_m}) / m, the pairwise rule for m variables
            int[] exampleOf = new int[labels.length];
            for (int k = 0; k < n; k++) java.util.Arrays.fill(exampleOf, b.variableOffset(k), b.variableOffset(k + 1), k);
            regionWeights = new double[byType.length][];
            for (int t = 0; t < byType.length; t++) {
                regionWeights[t] = new double[byType[t].length];
                for (int k = 0; k < byType[t].length; k++) {
                    int r = byType[t][k], m = graph.regionSize(r);
                    if (!regionLabelled[r]) continue;
                    double sum = 0;
                    for (int p = 0; p < m; p++) sum += c[labels[graph.regionVariable(r, p)]];
                    regionWeights[t][k] = e[exampleOf[graph.regionVariable(r, 0)]] * sum / m;
                }
            }
        } else {
            unaryWeights = null;
            pairWeights = null;
            regionWeights = null;
        }
        clamped = clamp ? new ClampedRows(b, classW, exampleW) : null;
    }

    /**
     * Whether training runs the clamped form (a second, clamped problem per example; {@link ClampedRows}):
     * with {@link VoidForm#CLAMPED} on a batch with void labels.
     */
    public boolean clamps() {
        return clamped != null;
    }

    /** The clamped problem's unary potentials [V, L] from the training unary potentials without the loss ({@link ClampedRows#clampUnary}). */
    INDArray clampUnary(INDArray thetaU0) {
        return clamped.clampUnary(thetaU0);
    }

    /** The clamped form's unary oracle problem: every variable, fitted to the clamped unary beliefs [V, L]. */
    BiasedLogisticProblem clampedUnaryProblem(INDArray features, INDArray bias, INDArray beliefs, ImageRows images) {
        return clamped.unaryProblem(features, bias, beliefs, images);
    }

    /** The clamped form's problem of pairwise type {@code t}: its every edge, fitted to the type's clamped pairwise beliefs (type order). */
    BiasedLogisticProblem clampedPairProblem(int t, INDArray features, INDArray bias, INDArray beliefs, ImageRows images) {
        return clamped.pairProblem(t, features, bias, beliefs, images);
    }

    /**
     * The clamped form's problem of region type {@code t}: its every region, fitted to the clamped region
     * beliefs ({@code beliefs}: the clamped engine's flat region layout).
     */
    BiasedLogisticProblem clampedRegionProblem(int t, INDArray features, INDArray bias, INDArray beliefs) {
        return clamped.regionProblem(t, features, bias, beliefs);
    }

    /** Whether some training variable is void (it then adds no term of its own, {@link VoidRows}). */
    public boolean hasVoid() {
        return voids.any();
    }

    /** Training unary potentials [V, L]: the simple form's void variables' rows zero (a copy), or the input without void or clamped. */
    INDArray maskUnary(INDArray thetaU) {
        return clamped != null ? thetaU : voids.maskUnary(thetaU);
    }

    /** Training pairwise potentials [E, L^2]: the simple form's rows of edges touching a void variable zero (a copy), or the input without void or clamped. */
    INDArray maskPair(INDArray thetaP) {
        return clamped != null ? thetaP : voids.maskPair(thetaP);
    }

    /** The unary oracle problem: the labelled variables' rows of the features and bias [V, L], placed by {@code images} (may be null). */
    BiasedLogisticProblem unaryProblem(INDArray features, INDArray bias, ImageRows images) {
        return voids.unaryProblem(features, bias, unaryWeights, images);
    }

    /**
     * Pairwise type {@code t}'s oracle problem: the rows of its edges with two labelled ends, from the
     * type's features and bias (type order); null when the type has no such edge.
     */
    BiasedLogisticProblem pairProblem(int t, INDArray features, INDArray bias, ImageRows images) {
        return voids.pairProblem(t, features, pairLabels[t], bias, pairWeights == null ? null : pairWeights[t], images);
    }

    /** The truth of a labelled batch (void labels in the simple form). */
    public static Targets of(ExampleBatch b) {
        return new Targets(b, RowWeights.NONE, false);
    }

    /**
     * The truth of a labelled batch whose oracle rows carry {@code weights} (class weights and one
     * example weight per example of the batch, in its order); void labels in the simple form.
     *
     * @throws IllegalArgumentException when the weights do not fit the batch (class or example count)
     */
    public static Targets of(ExampleBatch b, RowWeights weights) {
        return new Targets(b, weights, false);
    }

    /**
     * The truth of a labelled batch with {@code weights}, its void labels in {@code form} (the
     * clamped form only where the batch has void: without it both forms are the same loss).
     */
    public static Targets of(ExampleBatch b, RowWeights weights, VoidForm form) {
        return new Targets(b, weights, form == VoidForm.CLAMPED && b.hasVoid());
    }

    /** The clamped form even without void (for tests: it must then learn what the full-label loss learns). */
    static Targets clampedEvenWithoutVoid(ExampleBatch b, RowWeights weights) {
        return new Targets(b, weights, true);
    }

    /** [V, L] Delta: 1 where y differs from the true label. Do not modify. */
    INDArray delta() {
        return delta;
    }

    /** The true label of every variable (the unary rows' labels). */
    int[] labels() {
        return labels;
    }

    /** The true joint label y_i L + y_j of every edge of pairwise type {@code t}, in the type's order. */
    int[] pairLabels(int t) {
        return pairLabels[t];
    }

    /** [V, L] unary bias (Delta - incoming) / eps from the engine's incoming message sums [V, L]. */
    INDArray unaryBias(INDArray incoming, double eps) {
        return delta.sub(incoming.castTo(DataType.FLOAT)).divi((float) eps);
    }

    /** [E, L*L] pairwise bias of every edge, in edge order, from the engine's messages [E, 2, L]. */
    INDArray pairBias(INDArray messages, double eps) {
        INDArray m = messages.castTo(DataType.FLOAT);
        long E = m.size(0);
        INDArray toI = m.get(NDArrayIndex.all(), NDArrayIndex.point(0), NDArrayIndex.all()).reshape(E, L, 1);
        INDArray toJ = m.get(NDArrayIndex.all(), NDArrayIndex.point(1), NDArrayIndex.all()).reshape(E, 1, L);
        return toI.broadcast(E, L, L).add(toJ.broadcast(E, L, L)).divi((float) eps).reshape(E, (long) L * L);
    }

    /**
     * The rows of {@code allEdges} ([E, L*L], edge order) of pairwise type {@code t}, in the type's order
     * (the batch's {@link ExampleBatch#typeRows}: on CUDA nothing from the host).
     */
    INDArray ofType(INDArray allEdges, int t) {
        return edgesOfType.length == 1 ? allEdges : edgesOfType[t].from(allEdges);
    }

    /**
     * F(x, y): the potentials at the true labels, summed in double (Delta is 0 there); void variables
     * and edges touching them: no term. On CUDA a gather on the device; on the CPU backend, where
     * the arrays are host memory, read in place (ND4J's Gather took 0.2-0.7 s per call for the
     * demo's 160,000 + 316,800 entries, measured; the reads take milliseconds).
     */
    double score(INDArray thetaU, INDArray thetaP) {
        if (Device.cuda()) return picked(thetaU, truthU) + picked(thetaP, truthP);
        return pickedInPlace(thetaU, truthUHost) + pickedInPlace(thetaP, truthPHost);
    }

    /** F(x, y) with the regions' term: + sum_r theta_r(y_r) ({@code thetaR}: the flat region layout; null: no regions). */
    double score(INDArray thetaU, INDArray thetaP, INDArray thetaR) {
        return score(thetaU, thetaP) + (thetaR == null ? 0 : picked(thetaR, truthR));
    }

    /**
     * [R_t, C] region bias of region type {@code t} from the engine's region messages
     * [slots, L]: b_r(y_r) = sum_p lambda_{r->i_p}(y_{i_p}) / eps, y_r in the table's order (the
     * pairwise bias for two variables). On the host: a region's variables need not be adjacent.
     */
    INDArray regionBias(INDArray regionMessages, int t, double eps) {
        float[] m = EngineState.flat(regionMessages);
        int[] regions = graph.regionsByType()[t];
        int c = regions.length == 0 ? 1 : graph.regionEntries(regions[0]);
        float[] b = new float[regions.length * c];
        float inv = (float) (1 / eps);
        for (int k = 0; k < regions.length; k++) {
            int r = regions[k], size = graph.regionSize(r);
            for (int y = 0; y < c; y++) {
                double s = 0;
                for (int p = 0; p < size; p++) s += m[graph.regionSlot(r, p) * L + graph.regionLabel(r, p, y)];
                b[k * c + y] = (float) s * inv;
            }
        }
        return Nd4j.create(b, new long[] {regions.length, c}, 'c');
    }

    /** Training region potentials (the flat region layout): the simple form's regions touching a void variable zero (a copy), else the input. */
    INDArray maskRegions(INDArray thetaR) {
        return regionMask == null || thetaR == null ? thetaR : thetaR.mul(regionMask.castTo(thetaR.dataType()).reshape(thetaR.shape()));
    }

    /**
     * Region type {@code t}'s oracle problem: the row of every region whose variables are all labelled,
     * its true joint label, over the type's joint labels, with its row weight ({@link RowWeights}: the
     * mean of its variables' class weights times the example's); null when there is no such row or every one weighs 0.
     */
    BiasedLogisticProblem regionProblem(int t, INDArray features, INDArray bias) {
        int c = (int) bias.size(1);
        double[] w = regionWeights == null ? null : regionWeights[t];
        int[] rows = regionRows[t];
        if (rows.length == regionLabels[t].length) return VoidRows.weighted(new BiasedLogisticProblem(features, regionLabels[t], bias, c), w);
        if (rows.length == 0) return null;
        int[] y = new int[rows.length];
        double[] wr = w == null ? null : new double[rows.length];
        for (int k = 0; k < rows.length; k++) {
            y[k] = regionLabels[t][rows[k]];
            if (wr != null) wr[k] = w[rows[k]];
        }
        return VoidRows.weighted(new BiasedLogisticProblem(regionRowGather[t].from(features), y, regionRowGather[t].from(bias), c), wr);
    }

    private static double picked(INDArray theta, INDArray flatIndices) {
        if (flatIndices.length() == 0) return 0;
        INDArray flat = theta.reshape(theta.length());
        INDArray at = Nd4j.exec(new Gather(flat, flatIndices, 0))[0];
        return at.castTo(DataType.DOUBLE).sumNumber().doubleValue();
    }

    /** The sum of the entries at {@code flatIndices} (row-major) of a host array, in double, in index order. */
    private static double pickedInPlace(INDArray theta, long[] flatIndices) {
        if (flatIndices.length == 0) return 0;
        INDArray a = theta.dataType() == DataType.FLOAT && theta.ordering() == 'c' && !theta.isView() ? theta : theta.castTo(DataType.FLOAT).dup('c');
        java.nio.FloatBuffer values = a.data().asNioFloat();   // a view of the native buffer, no copy
        double sum = 0;
        for (long i : flatIndices) sum += values.get((int) i);
        return sum;
    }
}
