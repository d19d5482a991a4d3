package org.structlr.model;

import java.util.ArrayList;
import java.util.List;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.structlr.data.Example;
import org.structlr.graph.FactorGraph;
import org.structlr.graph.GridBatch;
import org.structlr.oracle.ImageRows;
import org.structlr.oracle.ImageScoreFunction;
import org.structlr.oracle.ScoreFunction;

/**
 * Many examples as one disjoint-union graph with their features stacked, so that one batched
 * engine and one call per factor type serve them all. Features are grouped by factor type once,
 * here, since every oracle fit and every potential update reads them per type.
 */
public final class ExampleBatch {
    private final List<Example> examples;
    private final FactorGraph graph;
    private final int numLabels;
    private final INDArray unaryFeatures;          // [V, Du]
    private final INDArray[] pairFeatures;         // per pairwise type: [E_t, Dp]
    private final int[][] edgesOfType;             // per type: edge indices in the union
    private final int[] labels;                    // [V] or null
    private final int[] typeOrderPosition;         // edge -> row in the type-ordered concatenation
    private final int[] varOffset;                 // per example, + total
    private final int[] edgeOffset;
    private final GridBatch layout;                // the images' grid layout, or null (fcn)

    public ExampleBatch(List<Example> examples, int numLabels, List<String> pairTypeNames) {
        if (examples.isEmpty()) throw new IllegalArgumentException("no examples");
        this.examples = List.copyOf(examples);
        this.numLabels = numLabels;
        List<FactorGraph> graphs = new ArrayList<>();
        List<INDArray> u = new ArrayList<>(), p = new ArrayList<>();
        varOffset = new int[examples.size() + 1];
        edgeOffset = new int[examples.size() + 1];
        boolean allLabelled = true;
        for (int k = 0; k < examples.size(); k++) {
            Example ex = examples.get(k);
            graphs.add(ex.graph(numLabels, pairTypeNames));
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
        pairFeatures = new INDArray[edgesOfType.length];
        for (int t = 0; t < edgesOfType.length; t++) {
            pairFeatures[t] = edgesOfType.length == 1 ? allPair
                    : (edgesOfType[t].length == 0 ? Nd4j.create(DataType.FLOAT, 0, allPair.size(1)) : Nd4j.pullRows(allPair, 1, edgesOfType[t]));
        }
        typeOrderPosition = new int[graph.numEdges()];
        int pos = 0;
        for (int[] ed : edgesOfType) for (int e : ed) typeOrderPosition[e] = pos++;
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
    private INDArray scoresOf(ScoreFunction f, INDArray rows, int type) {
        if (f instanceof ImageScoreFunction isf) {
            if (layout == null) {
                throw new IllegalArgumentException("a " + f.kind() + " function scores whole images: every example must be an image");
            }
            INDArray all = isf.imageScores(unaryFeatures, layout);
            return type < 0 || edgesOfType.length == 1 ? all : Nd4j.pullRows(all, 1, edgesOfType[type]);
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

    /** The fastest engine for this batch's graph. */
    public org.structlr.inference.MessagePassing newEngine(double eps) {
        int[] s = commonShape();
        return s == null ? org.structlr.inference.Engines.create(graph, eps, DataType.FLOAT)
                : org.structlr.inference.Engines.create(graph, s[0], s[1], eps, DataType.FLOAT);
    }
    public FactorGraph graph() { return graph; }
    public int numLabels() { return numLabels; }
    public INDArray unaryFeatures() { return unaryFeatures; }
    public INDArray pairFeatures(int type) { return pairFeatures[type]; }
    public int numPairTypes() { return pairFeatures.length; }
    public int[] edgesOfType(int type) { return edgesOfType[type].clone(); }
    public boolean hasLabels() { return labels != null; }
    public int[] labels() { return labels == null ? null : labels.clone(); }
    public int variableOffset(int example) { return varOffset[example]; }
    public int edgeOffset(int example) { return edgeOffset[example]; }

    /** The joint label y_i * L + y_j of every edge, from the true labels. */
    public int[] jointLabels() {
        int[] out = new int[graph.numEdges()];
        for (int e = 0; e < out.length; e++) out[e] = labels[graph.edgeFrom(e)] * numLabels + labels[graph.edgeTo(e)];
        return out;
    }

    /** The joint labels of the edges of one type, in the type's edge order. */
    public int[] pairLabels(int type) {
        int[] all = jointLabels(), ed = edgesOfType[type];
        int[] out = new int[ed.length];
        for (int k = 0; k < ed.length; k++) out[k] = all[ed[k]];
        return out;
    }

    /** [V, L] = eps * g_unary(features); zeros when the function is null (f = 0). */
    public INDArray unaryPotentials(ScoreFunction unary, double eps) {
        if (unary == null) return Nd4j.zeros(DataType.FLOAT, graph.numVariables(), numLabels);
        return scoresOf(unary, unaryFeatures, -1).castTo(DataType.FLOAT).muli(eps);
    }

    /** [E, L*L] = eps * g_t(features) for each edge's type t (null functions are 0). */
    public INDArray pairPotentials(List<ScoreFunction> pair, double eps) {
        int ll = numLabels * numLabels;
        if (pairFeatures.length == 1) {
            ScoreFunction f = pair.get(0);
            return f == null ? Nd4j.zeros(DataType.FLOAT, graph.numEdges(), ll) : scoresOf(f, pairFeatures[0], 0).castTo(DataType.FLOAT).muli(eps);
        }
        // Type-ordered rows back to edge order with one row gather (once per oracle step, not in message passing).
        INDArray[] parts = new INDArray[pairFeatures.length];
        for (int t = 0; t < pairFeatures.length; t++) {
            ScoreFunction f = pair.get(t);
            parts[t] = f == null || edgesOfType[t].length == 0 ? Nd4j.zeros(DataType.FLOAT, edgesOfType[t].length, ll)
                    : scoresOf(f, pairFeatures[t], t).castTo(DataType.FLOAT).muli(eps);
        }
        return Nd4j.pullRows(Nd4j.concat(0, parts), 1, typeOrderPosition);
    }

    /** [V, L] Hamming loss augmentation: 1 where y differs from the true label. */
    public INDArray hammingLoss() {
        INDArray d = Nd4j.ones(DataType.FLOAT, graph.numVariables(), numLabels);
        for (int v = 0; v < labels.length; v++) d.putScalar(v, labels[v], 0f);
        return d;
    }

    /** Fraction of variables whose decoded label differs from the truth. */
    public double error(int[] decoded) {
        int wrong = 0;
        for (int v = 0; v < labels.length; v++) if (decoded[v] != labels[v]) wrong++;
        return (double) wrong / labels.length;
    }
}
