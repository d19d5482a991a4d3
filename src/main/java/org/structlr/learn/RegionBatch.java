package org.structlr.learn;

import java.util.ArrayList;
import java.util.List;

import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.structlr.graph.FactorGraph;

/**
 * Examples whose factors are unary factors and regions (factors over 2 or more variables, each
 * with a type whose function scores the product of its variables' labels), joined into one graph:
 * what {@link RegionLearner} learns from. Every variable has the same {@code L} labels, so a
 * region type over k variables has an output space of L^k joint labels, numbered as the region's
 * table (row-major over its scope, the last variable fastest; {@link FactorGraph#regionEntry}).
 *
 * <p>Rows: {@code unaryFeatures [V, Du]} in variable order; {@code regionFeatures.get(t) [R_t, D_t]}
 * for the regions of type t in increasing region index ({@link FactorGraph#regionsByType()}).
 * {@code labels} may be null (unlabelled examples: prediction only).
 */
public record RegionBatch(FactorGraph graph, int numLabels, INDArray unaryFeatures, List<INDArray> regionFeatures, int[] labels) {

    public RegionBatch {
        if (graph.numEdges() != 0) throw new IllegalArgumentException("a region batch holds its pairs as regions of 2 variables, not as edges");
        for (int v = 0; v < graph.numVariables(); v++) {
            if (graph.numLabels(v) != numLabels) throw new IllegalArgumentException("variable " + v + " has " + graph.numLabels(v) + " labels, the batch " + numLabels);
        }
        if (unaryFeatures.rank() != 2 || unaryFeatures.size(0) != graph.numVariables()) {
            throw new IllegalArgumentException("unary features must have one row per variable (" + graph.numVariables() + ")");
        }
        int[][] byType = graph.regionsByType();
        if (regionFeatures.size() != graph.regionTypeNames().size()) {
            throw new IllegalArgumentException(regionFeatures.size() + " region feature arrays for " + graph.regionTypeNames().size() + " region types");
        }
        for (int t = 0; t < byType.length; t++) {
            if (regionFeatures.get(t).rank() != 2 || regionFeatures.get(t).size(0) != byType[t].length) {
                throw new IllegalArgumentException("region type " + t + ": " + byType[t].length + " regions but features of shape "
                        + java.util.Arrays.toString(regionFeatures.get(t).shape()));
            }
            for (int r : byType[t]) {
                if (graph.regionSize(r) != graph.regionSize(byType[t][0])) {
                    throw new IllegalArgumentException("region type " + t + " mixes regions of " + graph.regionSize(byType[t][0]) + " and " + graph.regionSize(r) + " variables");
                }
            }
        }
        if (labels != null) {
            if (labels.length != graph.numVariables()) throw new IllegalArgumentException(labels.length + " labels for " + graph.numVariables() + " variables");
            for (int v = 0; v < labels.length; v++) {
                if (labels[v] < 0 || labels[v] >= numLabels) throw new IllegalArgumentException("label " + labels[v] + " of variable " + v + " is outside 0.." + (numLabels - 1));
            }
        }
    }

    public int numRegionTypes() {
        return regionFeatures.size();
    }

    /** L^k, the joint labels of a region of type t. */
    public int regionClasses(int type) {
        int[] regions = graph.regionsByType()[type];
        return regions.length == 0 ? 1 : graph.regionEntries(regions[0]);
    }

    /** The true joint label of every region of type t (its entry in the region's table). */
    public int[] regionLabels(int type) {
        int[] regions = graph.regionsByType()[type];
        int[] out = new int[regions.length];
        for (int k = 0; k < regions.length; k++) {
            out[k] = graph.regionEntry(regions[k], labels);
        }
        return out;
    }

    /** Joins batches of the same factor types into one (variables, regions and rows part after part). */
    public static RegionBatch join(List<RegionBatch> parts) {
        List<FactorGraph> graphs = new ArrayList<>();
        List<INDArray> unary = new ArrayList<>();
        int types = parts.get(0).numRegionTypes();
        List<List<INDArray>> region = new ArrayList<>();
        for (int t = 0; t < types; t++) region.add(new ArrayList<>());
        boolean labelled = true;
        int n = 0;
        for (RegionBatch b : parts) {
            if (b.numLabels != parts.get(0).numLabels || b.numRegionTypes() != types) throw new IllegalArgumentException("batches with different labels or region types cannot be joined");
            graphs.add(b.graph);
            unary.add(b.unaryFeatures);
            for (int t = 0; t < types; t++) region.get(t).add(b.regionFeatures.get(t));
            labelled &= b.labels != null;
            n += b.graph.numVariables();
        }
        int[] labels = labelled ? new int[n] : null;
        if (labelled) {
            int o = 0;
            for (RegionBatch b : parts) {
                System.arraycopy(b.labels, 0, labels, o, b.labels.length);
                o += b.labels.length;
            }
        }
        List<INDArray> rf = new ArrayList<>();
        for (int t = 0; t < types; t++) rf.add(Nd4j.concat(0, region.get(t).toArray(new INDArray[0])).castTo(DataType.FLOAT));
        return new RegionBatch(FactorGraph.disjointUnion(graphs), parts.get(0).numLabels,
                Nd4j.concat(0, unary.toArray(new INDArray[0])).castTo(DataType.FLOAT), rf, labels);
    }
}
