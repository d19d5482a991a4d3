package org.structlr.model;

import java.util.ArrayList;
import java.util.List;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.structlr.data.Example;
import org.structlr.graph.FactorGraph;
import org.structlr.graph.GridBatch;
import org.structlr.memory.RowGather;
import org.structlr.oracle.ImageRows;
import org.structlr.oracle.ImageScoreFunction;
import org.structlr.oracle.ScoreFunction;

/**
 * Many examples as one disjoint-union graph with their features stacked, so that one batched
 * engine and one call per factor type serve them all. Features are grouped by factor type once,
 * here, since every oracle fit and every potential update reads them per type. The potentials and
 * the loss computed from them are {@link Potentials}'; the engine is chosen by
 * {@link org.structlr.inference.engines.Engines#forBatch}.
 */
public final class ExampleBatch {
    private final List<Example> examples;
    private final FactorGraph graph;
    private final int numLabels;
    private final INDArray unaryFeatures;          // [V, Du]
    private final INDArray[] pairFeatures;         // per pairwise type: [E_t, Dp]
    private final int[][] edgesOfType;             // per type: edge indices in the union
    private final RowGather[] typeRows;            // per type: its edges' rows of an edge-order array (indices kept on the device)
    private final int[] labels;                    // [V] or null
    private final RowGather edgeOrder;             // edge -> its row in the type-ordered concatenation (Potentials.pairwise)
    private final int[] varOffset;                 // per example, + total
    private final int[] edgeOffset;
    private final GridBatch layout;                // the images' grid layout, or null (fcn)
    private final RegionLayout regionLayout;
    private final INDArray[] regionFeatures;       // per region type: [R_t, featureWidth], in region order

    /** Examples with unary factors and pairs only ({@link RegionLayout#NONE}). */
    public ExampleBatch(List<Example> examples, int numLabels, List<String> pairTypeNames) {
        this(examples, numLabels, pairTypeNames, RegionLayout.NONE);
    }

    /**
     * Examples with unary factors, pairs and the regions of {@code regions} on each image (its
     * types the graph's region types; a BadInputException names an example that is no image).
     */
    public ExampleBatch(List<Example> examples, int numLabels, List<String> pairTypeNames, RegionLayout regions) {
        if (examples.isEmpty()) throw new IllegalArgumentException("no examples");
        regions.checkLabels(numLabels);
        this.regionLayout = regions;
        List<List<INDArray>> regionRows = new ArrayList<>();
        for (int t = 0; t < regions.numTypes(); t++) regionRows.add(new ArrayList<>());
        this.examples = List.copyOf(examples);
        this.numLabels = numLabels;
        List<FactorGraph> graphs = new ArrayList<>();
        List<INDArray> u = new ArrayList<>(), p = new ArrayList<>();
        varOffset = new int[examples.size() + 1];
        edgeOffset = new int[examples.size() + 1];
        boolean allLabelled = true;
        for (int k = 0; k < examples.size(); k++) {
            Example ex = examples.get(k);
            FactorGraph g = ex.graph(numLabels, pairTypeNames);
            if (regions != RegionLayout.NONE) {
                RegionLayout.Regions r = regions.of(ex, g);
                g = r.graph();
                int width = regions.featureWidth(ex.pairDim());
                for (int t = 0; t < regions.numTypes(); t++) {
                    if (r.counts()[t] > 0) regionRows.get(t).add(Nd4j.create(r.features()[t], new long[] {r.counts()[t], width}, 'c'));
                }
            }
            graphs.add(g);
            u.add(ex.unaryMatrix().castTo(DataType.FLOAT));
            p.add(ex.pairwiseMatrix().castTo(DataType.FLOAT));
            varOffset[k + 1] = varOffset[k] + ex.numVariables();
            edgeOffset[k + 1] = edgeOffset[k] + ex.numEdges();
            allLabelled &= ex.hasLabels();
        }
        graph = FactorGraph.disjointUnion(graphs);
        unaryFeatures = u.size() == 1 ? u.get(0) : Nd4j.concat(0, u.toArray(new INDArray[0]));
        INDArray allPair = p.size() == 1 ? p.get(0) : Nd4j.concat(0, p.toArray(new INDArray[0]));
        edgesOfType = graph.edgesByType();
        typeRows = new RowGather[edgesOfType.length];
        pairFeatures = new INDArray[edgesOfType.length];
        for (int t = 0; t < edgesOfType.length; t++) {
            typeRows[t] = RowGather.of(edgesOfType[t]);
            pairFeatures[t] = edgesOfType.length == 1 ? allPair : typeRows[t].from(allPair);
        }
        regionFeatures = new INDArray[regions.numTypes()];
        for (int t = 0; t < regionFeatures.length; t++) {
            List<INDArray> rows = regionRows.get(t);
            regionFeatures[t] = rows.isEmpty() ? Nd4j.create(DataType.FLOAT, 0, regions.featureWidth(examples.get(0).pairDim()))
                    : rows.size() == 1 ? rows.get(0) : Nd4j.concat(0, rows.toArray(new INDArray[0]));
        }
        int[] typeOrderPosition = new int[graph.numEdges()];
        int pos = 0;
        for (int[] ed : edgesOfType) for (int e : ed) typeOrderPosition[e] = pos++;
        edgeOrder = RowGather.of(typeOrderPosition);
        layout = gridLayout(this.examples, graph);
        if (allLabelled) {
            labels = new int[graph.numVariables()];
            for (int k = 0; k < examples.size(); k++) System.arraycopy(examples.get(k).labels(), 0, labels, varOffset[k], examples.get(k).numVariables());
        } else {
            labels = null;
        }
    }

    public List<Example> examples() { return examples; }

    // --- fcn: the grid layout that image-aware functions (ImageScoreFunction) need -------------------

    /** The layout when every example is an image whose graph is its 4-connected grid, else null. */
    private static GridBatch gridLayout(List<Example> examples, FactorGraph graph) {
        List<int[]> shapes = new ArrayList<>();
        for (Example e : examples) {
            int[] s = e.shape().orElse(null);
            if (s == null) return null;
            shapes.add(s);
        }
        return GridBatch.detect(graph, shapes);
    }

    /** The images' grid layout (variables and edges in Grids.grid order), or null when this is not a grid batch. */
    public GridBatch layout() { return layout; }

    /**
     * Where the rows of the unary problem ({@code type < 0}) or of pairwise type {@code type} sit in
     * the images, for image-aware oracles; null when this is not a grid batch.
     */
    public ImageRows imageRows(int type) {
        if (layout == null) return null;
        return type < 0 ? ImageRows.pixels(unaryFeatures, layout) : ImageRows.edges(unaryFeatures, layout, edgesOfType[type]);
    }

    /** g of one factor type: whole-image scores for an image function on a grid batch, else row scores. */
    /**
     * g on rows of one factor type ({@code type} < 0: the unary rows): {@code f.scores(rows)}, or for a
     * whole-image function its scores of the batch's images, cut to that type's rows.
     */
    INDArray scoresOf(ScoreFunction f, INDArray rows, int type) {
        if (f instanceof ImageScoreFunction isf) {
            if (layout == null) {
                throw new IllegalArgumentException("a " + f.kind() + " function scores whole images: every example must be an image");
            }
            INDArray all = isf.imageScores(unaryFeatures, layout);
            return type < 0 || edgesOfType.length == 1 ? all : typeRows[type].from(all);
        }
        return f.scores(rows);
    }

    /** [H, W] when every example is an image of that one size, else null (the grid fast path needs it). */
    public int[] commonShape() {
        int[] first = examples.get(0).shape().orElse(null);
        if (first == null) return null;
        for (Example e : examples) {
            int[] s = e.shape().orElse(null);
            if (s == null || s[0] != first[0] || s[1] != first[1]) return null;
        }
        return first;
    }

    /** Each example's image shape [H, W], or null for an example that is no image. */
    public List<int[]> shapes() {
        List<int[]> out = new ArrayList<>();
        for (Example e : examples) out.add(e.shape().orElse(null));
        return out;
    }

    /** The fastest engine for this batch's graph: {@link org.structlr.inference.engines.Engines}' choice. */
    public org.structlr.inference.MessagePassing newEngine(double eps) {
        return newEngine(eps, org.structlr.inference.engines.EngineChoice.AUTO);
    }

    /** The engine {@code choice} names (or picks) for this batch's graph, in float ({@link org.structlr.inference.engines.Engines#forBatch}). */
    public org.structlr.inference.MessagePassing newEngine(double eps, org.structlr.inference.engines.EngineChoice choice) {
        return org.structlr.inference.engines.Engines.forBatch(choice, graph, shapes(), eps);
    }
    public FactorGraph graph() { return graph; }
    public int numLabels() { return numLabels; }
    public INDArray unaryFeatures() { return unaryFeatures; }
    public INDArray pairFeatures(int type) { return pairFeatures[type]; }
    public int numPairTypes() { return pairFeatures.length; }
    public int[] edgesOfType(int type) { return edgesOfType[type].clone(); }

    /**
     * The rows of an edge-order array ({@code [E, k]}) of the edges of pairwise type {@code type}, in
     * the type's order: {@link #edgesOfType} as a gather made once per batch (on CUDA its index array
     * stays on the device).
     */
    public RowGather typeRows(int type) { return typeRows[type]; }
    public boolean hasLabels() { return labels != null; }
    public int[] labels() { return labels == null ? null : labels.clone(); }
    public int variableOffset(int example) { return varOffset[example]; }
    public int edgeOffset(int example) { return edgeOffset[example]; }

    /** The joint label y_i * L + y_j of every edge, from the true labels; {@link Example#VOID} when an end is void. */
    public int[] jointLabels() {
        int[] out = new int[graph.numEdges()];
        for (int e = 0; e < out.length; e++) {
            int yi = labels[graph.edgeFrom(e)], yj = labels[graph.edgeTo(e)];
            out[e] = yi == Example.VOID || yj == Example.VOID ? Example.VOID : yi * numLabels + yj;
        }
        return out;
    }

    /** Whether some variable's true label is {@link Example#VOID}. */
    public boolean hasVoid() {
        if (labels == null) return false;
        for (int y : labels) if (y == Example.VOID) return true;
        return false;
    }

    /** The joint labels of the edges of one type, in the type's edge order. */
    public int[] pairLabels(int type) {
        int[] all = jointLabels(), ed = edgesOfType[type];
        int[] out = new int[ed.length];
        for (int k = 0; k < ed.length; k++) out[k] = all[ed[k]];
        return out;
    }

    // --- regions (RegionLayout) ---------------------------------------------------------------------

    /** Which regions each example has. */
    public RegionLayout regionLayout() { return regionLayout; }

    public int numRegionTypes() { return regionFeatures.length; }

    /** [R_t, D_t] the features of the regions of type {@code type}, in region order ({@link FactorGraph#regionsByType}). */
    public INDArray regionFeatures(int type) { return regionFeatures[type]; }

    /** The true joint label of every region of type {@code type} (its table entry, {@link FactorGraph#regionEntry}), in region order. */
    public int[] regionLabels(int type) {
        int[] regions = graph.regionsByType()[type];
        int[] out = new int[regions.length];
        for (int k = 0; k < regions.length; k++) out[k] = graph.regionEntry(regions[k], labels);
        return out;
    }

    /**
     * The type-ordered concatenation of the pairwise blocks back in edge order (for {@link Potentials}):
     * row e of the result is the concatenation's row of edge e; made once per batch.
     */
    RowGather edgeOrder() { return edgeOrder; }
}
