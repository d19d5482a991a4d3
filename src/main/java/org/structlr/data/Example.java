package org.structlr.data;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.structlr.graph.FactorGraph;

/**
 * One training or test example (docs/design.md §4): V variables with unary features {@code [V, Du]}, E
 * edges {@code [E, 2]} with pairwise features {@code [E, Dp]}, optionally the true labels
 * {@code [V]}, the label count, the image shape {@code [H, W]} (variables are then the row-major
 * pixels) and a pairwise factor type per edge. Immutable and validated on construction: every
 * problem is a {@link BadInputException} naming the source file (or {@code <example>} for data made
 * in memory) and the problem.
 */
public final class Example {
    /**
     * The label of a variable that has none ("void": Pascal VOC's object boundaries, pixels no
     * annotator labelled). Training adds no term for it and errors and metrics skip it.
     */
    public static final int VOID = -1;

    private final Path source;
    private final int numVariables;
    private final int unaryDim;
    private final int numEdges;
    private final int pairDim;
    private final float[] unary;
    private final int[] edges;
    private final float[] pairwise;
    private final int[] labels;
    private final int numLabels; // 0 when absent
    private final int[] shape;
    private final int[] edgeType;

    private Example(Builder b) {
        this.source = b.source;
        this.unaryDim = b.unaryDim;
        this.pairDim = b.pairDim;
        this.unary = b.unary.clone();
        this.edges = b.edges.clone();
        this.pairwise = b.pairwise.clone();
        this.labels = b.labels == null ? null : b.labels.clone();
        if (b.numLabels != null && b.numLabels < 2) {
            throw bad("num_labels = " + b.numLabels + "; at least 2 labels are needed (num_labels < 2)");
        }
        if (b.numLabels != null && b.numLabels > InputLimits.LABELS.value()) throw limit(InputLimits.LABELS, "num_labels", b.numLabels);
        this.numLabels = b.numLabels == null ? 0 : b.numLabels;
        this.shape = b.shape == null ? null : b.shape.clone();
        this.edgeType = b.edgeType == null ? null : b.edgeType.clone();
        this.numVariables = validateFeatureBlock("unary", unary, unaryDim);
        this.numEdges = validateFeatureBlock("pairwise", pairwise, pairDim);
        validate();
    }

    /**
     * Starts an example from its required parts: unary features (row-major {@code [V, unaryDim]}),
     * edges as {@code [i0, j0, i1, j1, ...]} and pairwise features (row-major {@code [E, pairDim]}).
     */
    public static Builder builder(float[] unary, int unaryDim, int[] edges, float[] pairwise, int pairDim) {
        return new Builder(unary, unaryDim, edges, pairwise, pairDim);
    }

    /** Collects the parts of an example; {@link #build()} validates them. */
    public static final class Builder {
        private final float[] unary;
        private final int unaryDim;
        private final int[] edges;
        private final float[] pairwise;
        private final int pairDim;
        private Path source;
        private int[] labels;
        private Integer numLabels;
        private int[] shape;
        private int[] edgeType;

        private Builder(float[] unary, int unaryDim, int[] edges, float[] pairwise, int pairDim) {
            this.unary = unary;
            this.unaryDim = unaryDim;
            this.edges = edges;
            this.pairwise = pairwise;
            this.pairDim = pairDim;
        }

        /** The file the example came from; named in every error message. */
        public Builder source(Path file) { this.source = file; return this; }
        public Builder labels(int[] labels) { this.labels = labels; return this; }
        /** The label count L (at least 2); labels must lie in 0..L-1. */
        public Builder numLabels(int numLabels) { this.numLabels = numLabels; return this; }
        public Builder shape(int height, int width) { this.shape = new int[] {height, width}; return this; }
        public Builder edgeType(int[] edgeType) { this.edgeType = edgeType; return this; }

        public Example build() {
            return new Example(this);
        }
    }

    private BadInputException bad(String problem) {
        return source == null ? new BadInputException("<example>: " + problem) : new BadInputException(source, problem);
    }

    private int validateFeatureBlock(String name, float[] values, int dim) {
        if (dim < 1) throw bad("array '" + name + "' has " + dim + " feature columns; at least 1 is needed");
        if (values.length % dim != 0) {
            throw bad("array '" + name + "' has " + values.length + " values, not a multiple of its width " + dim + " (shape mismatch)");
        }
        for (int k = 0; k < values.length; k++) {
            if (!Float.isFinite(values[k])) {
                throw bad("array '" + name + "' holds " + values[k] + " at row " + k / dim + ", column " + k % dim
                        + " (non-finite: NaN or infinite features are not allowed)");
            }
        }
        return values.length / dim;
    }

    private void validate() {
        int v = numVariables;
        if (v < 1) throw bad("array 'unary' has no rows: an example needs at least one variable");
        if (edges.length % 2 != 0) throw bad("array 'edges' must have shape [E, 2] (shape mismatch)");
        if (edges.length / 2 != numEdges) {
            throw bad("array 'pairwise' has " + numEdges + " rows but 'edges' has " + edges.length / 2 + " rows (shape mismatch)");
        }
        long[] keys = new long[numEdges]; // unordered pair (min, max) as one number
        for (int e = 0; e < numEdges; e++) {
            int i = edges[2 * e], j = edges[2 * e + 1];
            if (i < 0 || i >= v || j < 0 || j >= v) {
                throw bad("edge " + e + " (" + i + ", " + j + ") is out of range: variables are 0.." + (v - 1));
            }
            if (i == j) throw bad("edge " + e + " (" + i + ", " + j + ") is a self-loop");
            keys[e] = (long) Math.min(i, j) * v + Math.max(i, j);
        }
        long[] sorted = keys.clone();
        Arrays.sort(sorted);
        for (int k = 1; k < sorted.length; k++) {
            if (sorted[k] == sorted[k - 1]) reportRepeatedEdge(keys);
        }
        if (labels != null) {
            if (labels.length != v) {
                throw bad("array 'labels' has length " + labels.length + " but 'unary' has " + v + " rows (shape mismatch)");
            }
            for (int i = 0; i < v; i++) {
                if (numLabels == 0 && labels[i] >= InputLimits.LABELS.value()) {
                    throw limit(InputLimits.LABELS, "label " + labels[i] + " of variable " + i + " asks for a label count", labels[i] + 1L);
                }
                if (labels[i] < VOID || (numLabels > 0 && labels[i] >= numLabels)) {
                    throw bad("label " + labels[i] + " of variable " + i + " is out of range 0.."
                            + (numLabels > 0 ? String.valueOf(numLabels - 1) : "") + (numLabels > 0 ? " (num_labels = " + numLabels + ")" : "")
                            + ", or " + VOID + " for no label (void)");
                }
            }
        }
        if (shape != null) {
            if (shape[0] < 1 || shape[1] < 1 || (long) shape[0] * shape[1] != v) {
                throw bad("shape [" + shape[0] + ", " + shape[1] + "] gives H*W = " + (long) shape[0] * shape[1]
                        + " but there are " + v + " variables (shape mismatch)");
            }
        }
        if (edgeType != null) {
            if (edgeType.length != numEdges) {
                throw bad("array 'edge_type' has length " + edgeType.length + " but there are " + numEdges + " edges (shape mismatch)");
            }
            for (int e = 0; e < numEdges; e++) {
                if (edgeType[e] < 0) throw bad("edge_type " + edgeType[e] + " of edge " + e + " is out of range: types are 0 or more");
                if (edgeType[e] >= InputLimits.EDGE_TYPES.value()) {
                    throw limit(InputLimits.EDGE_TYPES, "edge_type " + edgeType[e] + " of edge " + e + " asks for a type count", edgeType[e] + 1L);
                }
            }
        }
    }

    /** A limit of {@link InputLimits} hit by this example's file (L and the edge types size every oracle and table: L*L must not overflow). */
    private BadInputException limit(InputLimits.Limit l, String what, long asked) {
        return l.exceeded(source == null ? "<example>" : source, what, asked);
    }

    /** Throws for the first edge that repeats an earlier one (there is one). */
    private void reportRepeatedEdge(long[] keys) {
        Map<Long, Integer> seen = new HashMap<>();
        for (int e = 0; e < keys.length; e++) {
            Integer first = seen.putIfAbsent(keys[e], e);
            if (first != null) {
                throw bad("edge " + e + " (" + edges[2 * e] + ", " + edges[2 * e + 1] + ") is repeated: edge " + first + " ("
                        + edges[2 * first] + ", " + edges[2 * first + 1] + ") joins the same variables");
            }
        }
        throw new AssertionError("no repeated edge");
    }

    /** The file this example was read from, if any. */
    public Optional<Path> source() { return Optional.ofNullable(source); }

    /** The source file name for messages, or {@code <example>}. */
    public String name() { return source == null ? "<example>" : source.toString(); }

    public int numVariables() { return numVariables; }
    public int numEdges() { return numEdges; }
    /** Du: unary features per variable. */
    public int unaryDim() { return unaryDim; }
    /** Dp: pairwise features per edge. */
    public int pairDim() { return pairDim; }

    /** Unary features, row-major {@code [V, Du]} (a copy). */
    public float[] unary() { return unary.clone(); }
    public float unary(int variable, int feature) { return unary[variable * unaryDim + feature]; }
    /** Pairwise features, row-major {@code [E, Dp]} (a copy). */
    public float[] pairwise() { return pairwise.clone(); }
    public float pairwise(int edge, int feature) { return pairwise[edge * pairDim + feature]; }
    /** Edges as {@code [i0, j0, i1, j1, ...]} (a copy). */
    public int[] edges() { return edges.clone(); }
    public int edgeFrom(int e) { return edges[2 * e]; }
    public int edgeTo(int e) { return edges[2 * e + 1]; }

    public boolean hasLabels() { return labels != null; }
    /** The true labels (a copy); throws when this example is unlabelled. */
    public int[] labels() {
        if (labels == null) throw new IllegalStateException(name() + " has no labels");
        return labels.clone();
    }
    public int label(int variable) {
        if (labels == null) throw new IllegalStateException(name() + " has no labels");
        return labels[variable];
    }
    /** The number of variables with a label (not {@link #VOID}); 0 when unlabelled. */
    public int numLabelled() {
        int n = 0;
        if (labels != null) for (int y : labels) if (y != VOID) n++;
        return n;
    }

    /** Whether some variable is {@link #VOID} (has a labels array in which a variable has no label). */
    public boolean hasVoid() {
        return labels != null && numLabelled() < labels.length;
    }

    /** The largest label, or -1 when unlabelled or every variable is void. */
    public int maxLabel() {
        int m = -1;
        if (labels != null) for (int y : labels) m = Math.max(m, y);
        return m;
    }

    /** L when the file gave {@code num_labels}. */
    public OptionalInt numLabels() { return numLabels > 0 ? OptionalInt.of(numLabels) : OptionalInt.empty(); }

    public boolean hasShape() { return shape != null; }
    /** {@code [H, W]} when the variables are image pixels (a copy). */
    public Optional<int[]> shape() { return shape == null ? Optional.empty() : Optional.of(shape.clone()); }

    public boolean hasEdgeTypes() { return edgeType != null; }
    /** The pairwise factor type of each edge (a copy), when given. */
    public Optional<int[]> edgeTypes() { return edgeType == null ? Optional.empty() : Optional.of(edgeType.clone()); }
    /** The largest edge type, or 0 without edge types. */
    public int maxEdgeType() {
        int m = 0;
        if (edgeType != null) for (int t : edgeType) m = Math.max(m, t);
        return m;
    }

    /** Unary features as an ND4J float matrix {@code [V, Du]}. */
    public INDArray unaryMatrix() { return NpyArray.ofFloats(unary, numVariables, unaryDim).toINDArray(); }
    /** Pairwise features as an ND4J float matrix {@code [E, Dp]}. */
    public INDArray pairwiseMatrix() { return NpyArray.ofFloats(pairwise, numEdges, pairDim).toINDArray(); }

    /**
     * The factor graph of this example: {@code numLabels} labels per variable, one unary type, and
     * the pairwise types {@code pairTypeNames}, each edge typed by {@code edge_type} when the file
     * has it (else type 0).
     *
     * @throws BadInputException when a label or an edge type does not fit the given counts
     */
    public FactorGraph graph(int numLabels, List<String> pairTypeNames) {
        if (numLabels < 2) throw bad("num_labels = " + numLabels + "; at least 2 labels are needed (num_labels < 2)");
        if (labels != null) {
            for (int i = 0; i < labels.length; i++) {
                if (labels[i] >= numLabels) {
                    throw bad("label " + labels[i] + " of variable " + i + " is out of range 0.." + (numLabels - 1));
                }
            }
        }
        if (edgeType != null) {
            for (int e = 0; e < numEdges; e++) {
                if (edgeType[e] >= pairTypeNames.size()) {
                    throw bad("edge_type " + edgeType[e] + " of edge " + e + " is out of range: only "
                            + pairTypeNames.size() + " pairwise types " + pairTypeNames + " exist");
                }
            }
        }
        int[] l = new int[numVariables];
        Arrays.fill(l, numLabels);
        int[] from = new int[numEdges], to = new int[numEdges];
        for (int e = 0; e < numEdges; e++) {
            from[e] = edges[2 * e];
            to[e] = edges[2 * e + 1];
        }
        try {
            return FactorGraph.builder(l).edges(from, to, edgeType).pairTypeNames(pairTypeNames).build();
        } catch (IllegalArgumentException ex) {
            throw bad(ex.getMessage());
        }
    }

    /** Equal when all arrays are equal; the source file is not compared. */
    @Override
    public boolean equals(Object o) {
        if (!(o instanceof Example)) return false;
        Example x = (Example) o;
        return unaryDim == x.unaryDim && pairDim == x.pairDim && numLabels == x.numLabels
                && Arrays.equals(unary, x.unary) && Arrays.equals(edges, x.edges) && Arrays.equals(pairwise, x.pairwise)
                && Arrays.equals(labels, x.labels) && Arrays.equals(shape, x.shape) && Arrays.equals(edgeType, x.edgeType);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(unary) * 31 + Arrays.hashCode(edges);
    }

    @Override
    public String toString() {
        return "Example[" + name() + ": V=" + numVariables + " Du=" + unaryDim + " E=" + numEdges + " Dp=" + pairDim
                + (labels != null ? " labelled" : "") + (shape != null ? " " + shape[0] + "x" + shape[1] : "") + "]";
    }
}
