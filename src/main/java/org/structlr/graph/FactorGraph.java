package org.structlr.graph;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * A factor graph: variables with their label counts, edges (i, j), each pair once, and regions:
 * factors over any number of variables (the paper's general regions alpha, F(x, y) = sum_alpha
 * f_alpha(x, y_alpha)). Every variable belongs to a unary factor type, every edge to a pairwise type
 * and every region to a region type; all factors of one type share one potential function (they are
 * "tied"). Immutable.
 *
 * <p>Pairwise potentials of edge (i, j) are flattened as {@code y_i * L + y_j} with L =
 * {@link #maxLabels()} (docs/design.md §1): the engines pad every variable to L labels with impossible
 * labels. A region's table is not padded: region r over (v_1 .. v_k) has {@code L_{v_1} * .. *
 * L_{v_k}} entries, row-major with the last variable fastest (the UAI order), entry index
 * {@code sum_p y_{v_p} * stride_p} ({@link #regionEntry}); the tables of all regions lie one after
 * another, region r's from {@link #regionTableOffset}. Edges are the fast path for pairs; a region
 * may also have two variables (a pair whose table should not be padded, or a second factor over an
 * edge's pair).
 */
public final class FactorGraph {
    private final int[] numLabels;
    private final int[] edgeFrom;
    private final int[] edgeTo;
    private final int[] unaryType;
    private final int[] edgeType;
    private final List<String> unaryTypeNames;
    private final List<String> pairTypeNames;
    /** Region r's variables are {@code regionVars[regionStart[r] .. regionStart[r+1])}; index k there is region slot k. */
    private final int[] regionStart;
    private final int[] regionVars;
    /** The stride of each region slot's variable in its region's table (last variable: 1). */
    private final int[] regionStride;
    private final int[] regionType;
    /** Region r's table is entries {@code [regionTable[r], regionTable[r+1])} of the flat region layout. */
    private final int[] regionTable;
    private final List<String> regionTypeNames;

    /**
     * The largest table a region may have: 2^24 = 16,777,216 entries (128 MB of doubles; a star
     * update at one of its variables reads every entry).
     */
    public static final int MAX_REGION_ENTRIES = 1 << 24;
    /** The largest total of all regions' tables: int-indexed flat arrays. */
    public static final int MAX_TOTAL_REGION_ENTRIES = Integer.MAX_VALUE - 8;

    private FactorGraph(int[] numLabels, int[] edgeFrom, int[] edgeTo, int[] unaryType, int[] edgeType,
                        List<String> unaryTypeNames, List<String> pairTypeNames,
                        int[] regionStart, int[] regionVars, int[] regionType, List<String> regionTypeNames) {
        this.numLabels = numLabels;
        this.edgeFrom = edgeFrom;
        this.edgeTo = edgeTo;
        this.unaryType = unaryType;
        this.edgeType = edgeType;
        this.unaryTypeNames = List.copyOf(unaryTypeNames);
        this.pairTypeNames = List.copyOf(pairTypeNames);
        this.regionStart = regionStart;
        this.regionVars = regionVars;
        this.regionType = regionType;
        this.regionTypeNames = List.copyOf(regionTypeNames);
        int R = regionType.length;
        this.regionStride = new int[regionVars.length];
        this.regionTable = new int[R + 1];
        for (int r = 0; r < R; r++) {
            long entries = 1;
            for (int k = regionStart[r + 1] - 1; k >= regionStart[r]; k--) {
                regionStride[k] = (int) entries;
                entries *= numLabels[regionVars[k]];
            }
            regionTable[r + 1] = (int) (regionTable[r] + entries); // sizes checked by the builder
        }
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
        private int[][] scopes = new int[0][];
        private int[] regionType;
        private List<String> regionNames = List.of("region");

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

        /**
         * Regions: {@code scopes[r]} lists region r's variables (at least 2, all different; the
         * order fixes its table layout), {@code regionType[r]} its type (null: all type 0).
         */
        public Builder regions(int[][] scopes, int[] regionType) {
            this.scopes = new int[scopes.length][];
            for (int r = 0; r < scopes.length; r++) this.scopes[r] = scopes[r].clone();
            this.regionType = regionType == null ? null : regionType.clone();
            return this;
        }

        public Builder regionTypeNames(List<String> names) {
            this.regionNames = names;
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
            int R = scopes.length;
            int[] rt = regionType == null ? new int[R] : regionType;
            if (rt.length != R) throw new IllegalArgumentException("region types: " + rt.length + " entries for " + R + " regions");
            int[] start = new int[R + 1];
            long total = 0;
            Set<List<Integer>> seenScopes = new HashSet<>();
            for (int r = 0; r < R; r++) {
                int[] sc = scopes[r];
                if (sc.length < 2) throw new IllegalArgumentException("region " + r + " has " + sc.length + " variables; a region needs at least 2 (a single variable is its unary factor)");
                long entries = 1;
                for (int k = 0; k < sc.length; k++) {
                    int v = sc[k];
                    if (v < 0 || v >= n) throw new IllegalArgumentException("region " + r + " names variable " + v + ", outside 0.." + (n - 1));
                    for (int q = 0; q < k; q++) if (sc[q] == v) throw new IllegalArgumentException("region " + r + " names variable " + v + " twice");
                    entries *= numLabels[v];
                    if (entries > MAX_REGION_ENTRIES) {
                        throw new IllegalArgumentException("region " + r + " over " + sc.length + " variables has a table of more than "
                                + MAX_REGION_ENTRIES + " entries, the limit (FactorGraph.MAX_REGION_ENTRIES)");
                    }
                }
                total += entries;
                if (total > MAX_TOTAL_REGION_ENTRIES) throw new IllegalArgumentException("the regions' tables have more than " + MAX_TOTAL_REGION_ENTRIES + " entries in all");
                List<Integer> key = new ArrayList<>();
                for (int v : sc) key.add(v);
                key.sort(null);
                if (!seenScopes.add(key)) throw new IllegalArgumentException("region " + r + " repeats the variables " + key + " of an earlier region");
                if (rt[r] < 0 || rt[r] >= regionNames.size()) throw new IllegalArgumentException("region " + r + " has type " + rt[r] + " but only " + regionNames.size() + " region types exist");
                start[r + 1] = start[r] + sc.length;
            }
            int[] vars = new int[start[R]];
            for (int r = 0; r < R; r++) System.arraycopy(scopes[r], 0, vars, start[r], scopes[r].length);
            return new FactorGraph(numLabels.clone(), from.clone(), to.clone(), ut.clone(), et.clone(), unaryNames, pairNames,
                    start, vars, rt.clone(), regionNames);
        }
    }

    /**
     * Many examples as one graph (the disjoint union), so that one batched engine runs them all.
     * Factor types are matched by position; variable {@code v} of part {@code p} becomes
     * {@code offsets[p] + v} and edges keep their order, part after part.
     */
    public static FactorGraph disjointUnion(List<FactorGraph> parts) {
        if (parts.isEmpty()) throw new IllegalArgumentException("no graphs to join");
        int nv = 0, ne = 0, nr = 0, ns = 0;
        for (FactorGraph g : parts) {
            nv += g.numVariables();
            ne += g.numEdges();
            nr += g.numRegions();
            ns += g.regionVars.length;
        }
        int[] labels = new int[nv], ut = new int[nv], from = new int[ne], to = new int[ne], et = new int[ne];
        int[] rStart = new int[nr + 1], rVars = new int[ns], rt = new int[nr];
        int vo = 0, eo = 0, ro = 0;
        long entries = 0;
        FactorGraph first = parts.get(0);
        for (FactorGraph g : parts) {
            if (!g.unaryTypeNames.equals(first.unaryTypeNames) || !g.pairTypeNames.equals(first.pairTypeNames)
                    || !g.regionTypeNames.equals(first.regionTypeNames)) {
                throw new IllegalArgumentException("graphs with different factor types cannot be joined: "
                        + g.unaryTypeNames + "/" + g.pairTypeNames + "/" + g.regionTypeNames
                        + " vs " + first.unaryTypeNames + "/" + first.pairTypeNames + "/" + first.regionTypeNames);
            }
            entries += g.totalRegionEntries();
            if (entries > MAX_TOTAL_REGION_ENTRIES) throw new IllegalArgumentException("the joined regions' tables have more than " + MAX_TOTAL_REGION_ENTRIES + " entries in all");
            for (int r = 0; r < g.numRegions(); r++) {
                rt[ro + r] = g.regionType[r];
                rStart[ro + r + 1] = rStart[ro + r] + g.regionSize(r);
                for (int k = g.regionStart[r]; k < g.regionStart[r + 1]; k++) rVars[rStart[ro + r] + k - g.regionStart[r]] = g.regionVars[k] + vo;
            }
            ro += g.numRegions();
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
        return new FactorGraph(labels, from, to, ut, et, first.unaryTypeNames, first.pairTypeNames, rStart, rVars, rt, first.regionTypeNames);
    }

    /**
     * This graph with {@code scopes} as its regions (replacing any it has), of types
     * {@code regionType} named {@code names}; variables, edges and their types stay. The builder's
     * checks apply (so a scope that repeats a variable or outgrows the table limit is refused).
     */
    public FactorGraph withRegions(int[][] scopes, int[] regionType, List<String> names) {
        return builder(numLabels).edges(edgeFrom, edgeTo, edgeType).unaryTypes(unaryType, unaryTypeNames).pairTypeNames(pairTypeNames)
                .regions(scopes, regionType).regionTypeNames(names).build();
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

    public List<String> regionTypeNames() { return regionTypeNames; }

    // ------------------------------------------------------------------ regions

    public int numRegions() { return regionType.length; }
    public boolean hasRegions() { return regionType.length > 0; }
    /** The number of variables of region r. */
    public int regionSize(int r) { return regionStart[r + 1] - regionStart[r]; }
    /** The p-th variable of region r. */
    public int regionVariable(int r, int p) { return regionVars[regionStart[r] + p]; }
    /** Region r's variables in table order (a copy). */
    public int[] regionScope(int r) { return Arrays.copyOfRange(regionVars, regionStart[r], regionStart[r + 1]); }
    public int regionType(int r) { return regionType[r]; }
    /** The number of entries of region r's table: the product of its variables' label counts. */
    public int regionEntries(int r) { return regionTable[r + 1] - regionTable[r]; }
    /** Where region r's table starts in the flat layout of all region tables. */
    public int regionTableOffset(int r) { return regionTable[r]; }
    /** The entries of all regions' tables together: the length of the flat region layout. */
    public int totalRegionEntries() { return regionTable[regionType.length]; }
    /**
     * Region slots: one per (region, variable of it), numbered region after region, so region r's
     * p-th variable is slot {@code regionSlot(r, p)}; the engines keep one message per slot.
     */
    public int numRegionSlots() { return regionVars.length; }
    public int regionSlot(int r, int p) { return regionStart[r] + p; }
    /** The stride of region r's p-th variable in its table. */
    public int regionStride(int r, int p) { return regionStride[regionStart[r] + p]; }

    /** The index in region r's table (from 0) of the labels {@code y} (indexed by variable) give its variables. */
    public int regionEntry(int r, int[] y) {
        int t = 0;
        for (int k = regionStart[r]; k < regionStart[r + 1]; k++) t += y[regionVars[k]] * regionStride[k];
        return t;
    }

    /** The label of region r's p-th variable in entry t of its table. */
    public int regionLabel(int r, int p, int t) {
        int k = regionStart[r] + p;
        return (t / regionStride[k]) % numLabels[regionVars[k]];
    }

    /**
     * Sum over regions of (variables x table entries): the table entries one sweep of star updates
     * reads (each region's table once per variable of it), the regions' share of a sweep's cost.
     */
    public long regionSweepEntries() {
        long s = 0;
        for (int r = 0; r < numRegions(); r++) s += (long) regionSize(r) * regionEntries(r);
        return s;
    }

    /** Indices of the regions of each region type, in region order. */
    public int[][] regionsByType() {
        return groupBy(regionType, regionTypeNames.size());
    }

    /** How many regions contain each variable. */
    public int[] regionDegrees() {
        int[] d = new int[numVariables()];
        for (int v : regionVars) d[v]++;
        return d;
    }

    /**
     * The regions of each variable in compressed rows: {@code [offsets(V+1), region, position]}, the
     * variable being the region's {@code position}-th; regions in region order.
     */
    public int[][] regionIncidence() {
        int n = numVariables();
        int[] deg = regionDegrees();
        int[] off = new int[n + 1];
        for (int v = 0; v < n; v++) off[v + 1] = off[v] + deg[v];
        int[] region = new int[off[n]], pos = new int[off[n]], fill = new int[n];
        for (int r = 0; r < numRegions(); r++) {
            for (int k = regionStart[r]; k < regionStart[r + 1]; k++) {
                int v = regionVars[k];
                region[off[v] + fill[v]] = r;
                pos[off[v] + fill[v]++] = k - regionStart[r];
            }
        }
        return new int[][] {off, region, pos};
    }

    /**
     * The variables each variable shares a factor with, in compressed rows {@code [offsets(V+1),
     * neighbour]}: first the other ends of its edges in {@link #incidence} order, then the other
     * variables of its regions (a neighbour may repeat). Two variables that are neighbours must not be
     * star-updated at once (they must differ in colour).
     */
    public int[][] neighbours() {
        int n = numVariables();
        int[][] inc = incidence(), rinc = regionIncidence();
        int[] off = new int[n + 1];
        for (int v = 0; v < n; v++) {
            int c = inc[0][v + 1] - inc[0][v];
            for (int k = rinc[0][v]; k < rinc[0][v + 1]; k++) c += regionSize(rinc[1][k]) - 1;
            off[v + 1] = off[v] + c;
        }
        int[] nb = new int[off[n]];
        for (int v = 0; v < n; v++) {
            int w = off[v];
            for (int k = inc[0][v]; k < inc[0][v + 1]; k++) {
                int e = inc[1][k];
                nb[w++] = edgeFrom[e] == v ? edgeTo[e] : edgeFrom[e];
            }
            for (int k = rinc[0][v]; k < rinc[0][v + 1]; k++) {
                int r = rinc[1][k];
                for (int q = regionStart[r]; q < regionStart[r + 1]; q++) if (regionVars[q] != v) nb[w++] = regionVars[q];
            }
        }
        return new int[][] {off, nb};
    }

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

    /**
     * Every variable's factors in compressed rows, named: for variable v, its edges
     * {@code edge[k]} for k in {@code edgeOffsets[v] .. edgeOffsets[v+1]} with {@code side[k]} 0 when v
     * is the edge's first end ({@link #incidence}), and its regions {@code region[k]} for k in
     * {@code regionOffsets[v] .. regionOffsets[v+1]}, v being the region's {@code position[k]}-th
     * variable ({@link #regionIncidence}). What the energy and the searches over labellings walk.
     */
    public record Incidence(int[] edgeOffsets, int[] edge, int[] side, int[] regionOffsets, int[] region, int[] position) {}

    /** {@link #incidence} and {@link #regionIncidence} together, by name. */
    public Incidence variableIncidence() {
        int[][] inc = incidence(), rinc = regionIncidence();
        return new Incidence(inc[0], inc[1], inc[2], rinc[0], rinc[1], rinc[2]);
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
