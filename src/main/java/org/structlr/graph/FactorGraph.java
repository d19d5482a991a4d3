package org.structlr.graph;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * A pairwise factor graph: variables with their label counts, and edges (i, j), each edge once.
 * Every variable belongs to a unary factor type and every edge to a pairwise factor type; all
 * factors of one type share one potential function (they are "tied"). Immutable.
 *
 * <p>Pairwise potentials of edge (i, j) are flattened as {@code y_i * L_j + y_j} (docs/design.md §1); the
 * inference engine pads every variable to {@link #maxLabels()} labels with impossible labels.
 */
public final class FactorGraph {
    private final int[] numLabels;
    private final int[] edgeFrom;
    private final int[] edgeTo;
    private final int[] unaryType;
    private final int[] edgeType;
    private final List<String> unaryTypeNames;
    private final List<String> pairTypeNames;

    private FactorGraph(int[] numLabels, int[] edgeFrom, int[] edgeTo, int[] unaryType, int[] edgeType,
                        List<String> unaryTypeNames, List<String> pairTypeNames) {
        this.numLabels = numLabels;
        this.edgeFrom = edgeFrom;
        this.edgeTo = edgeTo;
        this.unaryType = unaryType;
        this.edgeType = edgeType;
        this.unaryTypeNames = List.copyOf(unaryTypeNames);
        this.pairTypeNames = List.copyOf(pairTypeNames);
    }

    /** A graph whose variables all have {@code labels} labels, one unary and one pairwise type. */
    public static FactorGraph of(int numVars, int labels, int[][] edges) {
        int[] l = new int[numVars];
        Arrays.fill(l, labels);
        int[] from = new int[edges.length];
        int[] to = new int[edges.length];
        for (int e = 0; e < edges.length; e++) {
            from[e] = edges[e][0];
            to[e] = edges[e][1];
        }
        return builder(l).edges(from, to, null).build();
    }

    public static Builder builder(int[] numLabels) {
        return new Builder(numLabels);
    }

    /** Builds and validates a graph; every check names the offending variable or edge. */
    public static final class Builder {
        private final int[] numLabels;
        private int[] from = new int[0];
        private int[] to = new int[0];
        private int[] unaryType;
        private int[] edgeType;
        private List<String> unaryNames = List.of("unary");
        private List<String> pairNames = List.of("pairwise");

        private Builder(int[] numLabels) {
            this.numLabels = numLabels.clone();
        }

        public Builder edges(int[] from, int[] to, int[] edgeType) {
            this.from = from.clone();
            this.to = to.clone();
            this.edgeType = edgeType == null ? null : edgeType.clone();
            return this;
        }

        public Builder unaryTypes(int[] unaryType, List<String> names) {
            this.unaryType = unaryType == null ? null : unaryType.clone();
            this.unaryNames = names;
            return this;
        }

        public Builder pairTypeNames(List<String> names) {
            this.pairNames = names;
            return this;
        }

        public FactorGraph build() {
            int n = numLabels.length;
            for (int i = 0; i < n; i++) {
                if (numLabels[i] < 2) {
                    throw new IllegalArgumentException("variable " + i + " has " + numLabels[i] + " labels; at least 2 are needed");
                }
            }
            if (from.length != to.length) {
                throw new IllegalArgumentException("edge endpoint arrays differ in length: " + from.length + " vs " + to.length);
            }
            int[] ut = unaryType == null ? new int[n] : unaryType;
            int[] et = edgeType == null ? new int[from.length] : edgeType;
            if (ut.length != n) throw new IllegalArgumentException("unary types: " + ut.length + " entries for " + n + " variables");
            if (et.length != from.length) throw new IllegalArgumentException("edge types: " + et.length + " entries for " + from.length + " edges");
            Set<Long> seen = new HashSet<>();
            for (int e = 0; e < from.length; e++) {
                int i = from[e], j = to[e];
                if (i < 0 || i >= n || j < 0 || j >= n) {
                    throw new IllegalArgumentException("edge " + e + " (" + i + ", " + j + ") names a variable outside 0.." + (n - 1));
                }
                if (i == j) throw new IllegalArgumentException("edge " + e + " joins variable " + i + " to itself");
                long key = (long) Math.min(i, j) * n + Math.max(i, j);
                if (!seen.add(key)) throw new IllegalArgumentException("edge " + e + " (" + i + ", " + j + ") is repeated");
                if (et[e] < 0 || et[e] >= pairNames.size()) throw new IllegalArgumentException("edge " + e + " has type " + et[e] + " but only " + pairNames.size() + " pairwise types exist");
            }
            for (int i = 0; i < n; i++) {
                if (ut[i] < 0 || ut[i] >= unaryNames.size()) throw new IllegalArgumentException("variable " + i + " has unary type " + ut[i] + " but only " + unaryNames.size() + " unary types exist");
            }
            return new FactorGraph(numLabels.clone(), from.clone(), to.clone(), ut.clone(), et.clone(), unaryNames, pairNames);
        }
    }

    /**
     * Many examples as one graph (the disjoint union), so that one batched engine runs them all.
     * Factor types are matched by position; variable {@code v} of part {@code p} becomes
     * {@code offsets[p] + v} and edges keep their order, part after part.
     */
    public static FactorGraph disjointUnion(List<FactorGraph> parts) {
        if (parts.isEmpty()) throw new IllegalArgumentException("no graphs to join");
        int nv = 0, ne = 0;
        for (FactorGraph g : parts) {
            nv += g.numVariables();
            ne += g.numEdges();
        }
        int[] labels = new int[nv], ut = new int[nv], from = new int[ne], to = new int[ne], et = new int[ne];
        int vo = 0, eo = 0;
        FactorGraph first = parts.get(0);
        for (FactorGraph g : parts) {
            if (!g.unaryTypeNames.equals(first.unaryTypeNames) || !g.pairTypeNames.equals(first.pairTypeNames)) {
                throw new IllegalArgumentException("graphs with different factor types cannot be joined: "
                        + g.unaryTypeNames + "/" + g.pairTypeNames + " vs " + first.unaryTypeNames + "/" + first.pairTypeNames);
            }
            System.arraycopy(g.numLabels, 0, labels, vo, g.numVariables());
            System.arraycopy(g.unaryType, 0, ut, vo, g.numVariables());
            for (int e = 0; e < g.numEdges(); e++) {
                from[eo + e] = g.edgeFrom[e] + vo;
                to[eo + e] = g.edgeTo[e] + vo;
                et[eo + e] = g.edgeType[e];
            }
            vo += g.numVariables();
            eo += g.numEdges();
        }
        return new FactorGraph(labels, from, to, ut, et, first.unaryTypeNames, first.pairTypeNames);
    }

    public int numVariables() { return numLabels.length; }
    public int numEdges() { return edgeFrom.length; }
    public int numLabels(int v) { return numLabels[v]; }
    public int[] numLabels() { return numLabels.clone(); }
    public int edgeFrom(int e) { return edgeFrom[e]; }
    public int edgeTo(int e) { return edgeTo[e]; }
    public int unaryType(int v) { return unaryType[v]; }
    public int edgeType(int e) { return edgeType[e]; }
    public List<String> unaryTypeNames() { return unaryTypeNames; }
    public List<String> pairTypeNames() { return pairTypeNames; }

    public int maxLabels() {
        int m = 0;
        for (int l : numLabels) m = Math.max(m, l);
        return m;
    }

    public int[] degrees() {
        int[] d = new int[numVariables()];
        for (int e = 0; e < numEdges(); e++) {
            d[edgeFrom[e]]++;
            d[edgeTo[e]]++;
        }
        return d;
    }

    /** Indices of the edges of each pairwise type, in edge order. */
    public int[][] edgesByType() {
        return groupBy(edgeType, pairTypeNames.size());
    }

    /** Indices of the variables of each unary type, in variable order. */
    public int[][] variablesByType() {
        return groupBy(unaryType, unaryTypeNames.size());
    }

    private static int[][] groupBy(int[] type, int numTypes) {
        List<List<Integer>> lists = new ArrayList<>();
        for (int t = 0; t < numTypes; t++) lists.add(new ArrayList<>());
        for (int k = 0; k < type.length; k++) lists.get(type[k]).add(k);
        int[][] out = new int[numTypes][];
        for (int t = 0; t < numTypes; t++) out[t] = lists.get(t).stream().mapToInt(Integer::intValue).toArray();
        return out;
    }

    /** Adjacency in compressed rows: {@code [offsets(V+1), neighbourEdge, side]} with side 0 when the variable is the edge's first end. */
    public int[][] incidence() {
        int n = numVariables();
        int[] deg = degrees();
        int[] off = new int[n + 1];
        for (int v = 0; v < n; v++) off[v + 1] = off[v] + deg[v];
        int[] edge = new int[off[n]], side = new int[off[n]], fill = new int[n];
        for (int e = 0; e < numEdges(); e++) {
            int i = edgeFrom[e], j = edgeTo[e];
            edge[off[i] + fill[i]] = e;
            side[off[i] + fill[i]++] = 0;
            edge[off[j] + fill[j]] = e;
            side[off[j] + fill[j]++] = 1;
        }
        return new int[][] {off, edge, side};
    }
}
