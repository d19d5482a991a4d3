package org.structlr.inference;

import java.util.Arrays;
import java.util.Random;
import org.structlr.graph.FactorGraph;

/**
 * Local search that never lowers the energy {@link LabelingEnergy#energy} of a labelling:
 * <ul>
 *   <li>{@link #forestMoves}: block coordinate ascent on induced forests. A random order grows a set S
 *       of variables whose factors among themselves form a forest (an edge, or a region with exactly
 *       two variables in S, joins two; no region may hold three of S); with every other variable
 *       fixed, the best labelling of S is found exactly by max-sum dynamic programming on the forest
 *       and taken. ICM is the special case of one variable; on a grid a forest covers about two
 *       thirds of the variables, so chains of flips that ICM cannot make one at a time are found.</li>
 *   <li>{@link #regionMoves}: ICM over the variables of a whole region: each region's variables take
 *       the entry of its table that is best for every factor they touch, the rest fixed (what forest
 *       moves cannot do inside a factor over three or more variables).</li>
 *   <li>{@link #eliminationMoves}: a connected block of up to a few hundred variables takes its exact
 *       best labels given the rest, by variable elimination ({@link Elimination}) when the block's
 *       induced width allows it.</li>
 *   <li>{@link #fuse}: a fusion move restricted to components. Where two labellings differ, the
 *       variables fall into connected components of the factor graph; no factor touches two of them,
 *       so each component can take either labelling independently, and each takes the better one.</li>
 * </ul>
 * Energies compare lexicographically as in {@link LabelingEnergy#icm}: fewer broken hard constraints
 * first, then the finite sum, so both moves also repair infeasible labellings.
 */
public final class LocalSearch {
    private static final double NEG_INF = Double.NEGATIVE_INFINITY;

    private final LabelingEnergy energy;
    private final FactorGraph g;
    private final int L, V;
    private final FactorGraph.Incidence inc;
    private final int[][] neighbours;

    public LocalSearch(LabelingEnergy energy) {
        this.energy = energy;
        this.g = energy.graph();
        this.L = g.maxLabels();
        this.V = g.numVariables();
        this.inc = energy.incidence();
        this.neighbours = g.neighbours();
    }

    // ------------------------------------------------------------------ forest moves

    /**
     * Forest moves from {@code y} (changed in place) until {@code patience} rounds in a row improve
     * nothing, {@code maxRounds} rounds, or the deadline; returns E(y).
     */
    public double forestMoves(int[] y, int maxRounds, int patience, Random rnd, Deadline deadline) {
        double e = energy.energy(y);
        int broken = energy.brokenCount(y);
        int idle = 0;
        for (int round = 0; round < maxRounds && idle < patience && !deadline.passed(); round++) {
            int[] z = y.clone();
            forestMove(z, rnd);
            double ez = energy.energy(z);
            int bz = energy.brokenCount(z);
            if (improves(bz, ez, broken, e)) {
                System.arraycopy(z, 0, y, 0, V);
                e = ez;
                broken = bz;
                idle = 0;
            } else {
                idle++;
            }
        }
        return e;
    }

    /**
     * Whether a labelling with {@code broken} hard constraints broken and energy {@code energy} beats
     * the incumbent's: fewer broken first, then an energy higher by more than a relative 1e-12 (so
     * that rounding alone never counts as progress and the searches' idle counters can end them).
     */
    static boolean improves(int broken, double energy, int incumbentBroken, double incumbentEnergy) {
        return broken < incumbentBroken
                || (broken == incumbentBroken && energy > incumbentEnergy + 1e-12 * Math.max(1, Math.abs(incumbentEnergy)));
    }

    /** One move: a random induced forest, solved exactly with the rest fixed. */
    void forestMove(int[] y, Random rnd) {
        int[] order = new int[V];
        for (int v = 0; v < V; v++) order[v] = v;
        for (int k = V - 1; k > 0; k--) {
            int j = rnd.nextInt(k + 1);
            int t = order[k];
            order[k] = order[j];
            order[j] = t;
        }
        boolean[] in = new boolean[V];
        int[] uf = new int[V];
        for (int v = 0; v < V; v++) uf[v] = v;
        int[] regionFree = new int[g.numRegions()];
        int[] nb = new int[16];
        for (int v : order) {
            boolean ok = true;
            int n = 0;
            for (int k = inc.regionOffsets()[v]; k < inc.regionOffsets()[v + 1] && ok; k++) {
                int r = inc.region()[k];
                if (regionFree[r] >= 2) ok = false;
                else if (regionFree[r] == 1) {
                    if (n == nb.length) nb = Arrays.copyOf(nb, 2 * n);
                    nb[n++] = freeMember(r, in, v);
                }
            }
            if (!ok) continue;
            for (int k = inc.edgeOffsets()[v]; k < inc.edgeOffsets()[v + 1]; k++) {
                int e = inc.edge()[k];
                int u = inc.side()[k] == 0 ? g.edgeTo(e) : g.edgeFrom(e);
                if (!in[u]) continue;
                if (n == nb.length) nb = Arrays.copyOf(nb, 2 * n);
                nb[n++] = u;
            }
            // joining two neighbours of one tree (or one neighbour twice) would close a cycle
            for (int a = 0; a < n && ok; a++) {
                int ra = find(uf, nb[a]);
                for (int b = 0; b < a && ok; b++) ok = ra != find(uf, nb[b]);
            }
            if (!ok) continue;
            in[v] = true;
            for (int a = 0; a < n; a++) uf[find(uf, nb[a])] = find(uf, v);
            for (int k = inc.regionOffsets()[v]; k < inc.regionOffsets()[v + 1]; k++) regionFree[inc.region()[k]]++;
        }
        solveForest(y, in, regionFree);
    }

    private int freeMember(int r, boolean[] in, int except) {
        for (int p = 0; p < g.regionSize(r); p++) {
            int u = g.regionVariable(r, p);
            if (u != except && in[u]) return u;
        }
        throw new IllegalStateException("region " + r + " has no free member");
    }

    private static int find(int[] uf, int v) {
        while (uf[v] != v) {
            uf[v] = uf[uf[v]];
            v = uf[v];
        }
        return v;
    }

    /**
     * Max-sum on the forest S: unary terms are every factor with exactly one variable in S (the rest
     * fixed at y), pair terms every edge or region with exactly two. Ties keep the current label.
     */
    private void solveForest(int[] y, boolean[] in, int[] regionFree) {
        // local unary terms
        double[][] local = new double[V][];
        for (int v = 0; v < V; v++) {
            if (!in[v]) continue;
            double[] t = new double[g.numLabels(v)];
            int old = y[v];
            for (int l = 0; l < t.length; l++) {
                y[v] = l;
                double s = energy.unary(v, l);
                for (int k = inc.edgeOffsets()[v]; k < inc.edgeOffsets()[v + 1]; k++) {
                    int e = inc.edge()[k];
                    int u = inc.side()[k] == 0 ? g.edgeTo(e) : g.edgeFrom(e);
                    if (!in[u]) s = add(s, energy.pair(e, y[g.edgeFrom(e)], y[g.edgeTo(e)]));
                }
                for (int k = inc.regionOffsets()[v]; k < inc.regionOffsets()[v + 1]; k++) {
                    if (regionFree[inc.region()[k]] == 1) s = add(s, energy.region(inc.region()[k], y));
                }
                t[l] = s;
            }
            y[v] = old;
            local[v] = t;
        }
        // forest adjacency: for each variable of S, its (neighbour, factor) pairs; factor >= 0 an edge, < 0 a region -1-r
        int[] deg = new int[V];
        for (int e = 0; e < g.numEdges(); e++) if (in[g.edgeFrom(e)] && in[g.edgeTo(e)]) { deg[g.edgeFrom(e)]++; deg[g.edgeTo(e)]++; }
        int[][] pairOfRegion = new int[g.numRegions()][];
        for (int r = 0; r < g.numRegions(); r++) {
            if (regionFree[r] != 2) continue;
            int a = -1, b = -1;
            for (int p = 0; p < g.regionSize(r); p++) {
                int u = g.regionVariable(r, p);
                if (!in[u]) continue;
                if (a < 0) a = u; else b = u;
            }
            pairOfRegion[r] = new int[] {a, b};
            deg[a]++;
            deg[b]++;
        }
        int[][] adjV = new int[V][], adjF = new int[V][];
        int[] fill = new int[V];
        for (int v = 0; v < V; v++) if (in[v]) { adjV[v] = new int[deg[v]]; adjF[v] = new int[deg[v]]; }
        for (int e = 0; e < g.numEdges(); e++) {
            int a = g.edgeFrom(e), b = g.edgeTo(e);
            if (!(in[a] && in[b])) continue;
            adjV[a][fill[a]] = b; adjF[a][fill[a]++] = e;
            adjV[b][fill[b]] = a; adjF[b][fill[b]++] = e;
        }
        for (int r = 0; r < g.numRegions(); r++) {
            if (pairOfRegion[r] == null) continue;
            int a = pairOfRegion[r][0], b = pairOfRegion[r][1];
            adjV[a][fill[a]] = b; adjF[a][fill[a]++] = -1 - r;
            adjV[b][fill[b]] = a; adjF[b][fill[b]++] = -1 - r;
        }
        // each tree: BFS order from a root, then leaves to root (messages), then root to leaves (labels)
        boolean[] seen = new boolean[V];
        int[] parent = new int[V], parentFactor = new int[V], bfs = new int[V];
        double[][] msgToParent = new double[V][];
        int[][] argToParent = new int[V][];
        for (int root = 0; root < V; root++) {
            if (!in[root] || seen[root]) continue;
            int head = 0, tail = 0;
            bfs[tail++] = root;
            seen[root] = true;
            parent[root] = -1;
            while (head < tail) {
                int v = bfs[head++];
                for (int k = 0; k < adjV[v].length; k++) {
                    int u = adjV[v][k];
                    if (seen[u]) continue;
                    seen[u] = true;
                    parent[u] = v;
                    parentFactor[u] = adjF[v][k];
                    bfs[tail++] = u;
                }
            }
            double[][] belief = new double[tail][];
            for (int q = tail - 1; q >= 0; q--) {
                int v = bfs[q];
                double[] b = local[v].clone();
                for (int k = 0; k < adjV[v].length; k++) {
                    int u = adjV[v][k];
                    if (u == parent[v]) continue;
                    double[] m = msgToParent[u];
                    for (int l = 0; l < b.length; l++) b[l] = add(b[l], m[l]);
                }
                belief[q] = b;
                if (parent[v] < 0) continue;
                int p = parent[v];
                double[] m = new double[g.numLabels(p)];
                int[] arg = new int[m.length];
                int oldV = y[v], oldP = y[p];
                for (int lp = 0; lp < m.length; lp++) {
                    y[p] = lp;
                    double best = NEG_INF;
                    int bestL = oldV;
                    // the current label first, so that it wins ties
                    for (int c = -1; c < b.length; c++) {
                        int lv = c < 0 ? oldV : c;
                        if (c == oldV) continue;
                        y[v] = lv;
                        double s = add(b[lv], pairTerm(parentFactor[v], y));
                        if (s > best) { best = s; bestL = lv; }
                    }
                    m[lp] = best;
                    arg[lp] = bestL;
                }
                y[v] = oldV;
                y[p] = oldP;
                msgToParent[v] = m;
                argToParent[v] = arg;
            }
            // root label, then down the tree
            double[] br = belief[0];
            int best = y[root];
            for (int l = 0; l < br.length; l++) if (br[l] > br[best]) best = l;
            y[root] = best;
            for (int q = 1; q < tail; q++) {
                int v = bfs[q];
                y[v] = argToParent[v][y[parent[v]]];
            }
        }
    }

    /** The potential of an edge (f >= 0) or of region -1-f at labels y. */
    private double pairTerm(int f, int[] y) {
        return f >= 0 ? energy.pair(f, y[g.edgeFrom(f)], y[g.edgeTo(f)]) : energy.region(-1 - f, y);
    }

    private static double add(double a, double b) {
        return a == NEG_INF || b == NEG_INF ? NEG_INF : a + b;
    }

    // ------------------------------------------------------------------ region moves

    /** Regions with more entries than this are left to the other moves (each try costs a table pass). */
    static final int REGION_MOVE_ENTRIES = 4096;

    /**
     * Region moves from {@code y} (in place), regions in random order, until a pass over all of them
     * changes nothing, {@code maxPasses}, or the deadline; returns E(y).
     */
    public double regionMoves(int[] y, int maxPasses, Random rnd, Deadline deadline) {
        int R = g.numRegions();
        if (R == 0) return energy.energy(y);
        int[] order = new int[R];
        for (int r = 0; r < R; r++) order[r] = r;
        int[] mark = new int[Math.max(g.numEdges(), 1)], rmark = new int[R];
        Arrays.fill(mark, -1);
        Arrays.fill(rmark, -1);
        int stamp = 0;
        for (int pass = 0; pass < maxPasses && !deadline.passed(); pass++) {
            for (int k = R - 1; k > 0; k--) {
                int j = rnd.nextInt(k + 1);
                int t = order[k];
                order[k] = order[j];
                order[j] = t;
            }
            boolean changed = false;
            for (int r : order) {
                int n = g.regionSize(r);
                if (g.regionEntries(r) > REGION_MOVE_ENTRIES) continue;
                int[] members = g.regionScope(r), saved = new int[n];
                for (int q = 0; q < n; q++) saved[q] = y[members[q]];
                double[] best = componentTerms(y, members, n, stamp++, mark, rmark);
                int bestT = -1;
                for (int t = 0; t < g.regionEntries(r); t++) {
                    for (int q = 0; q < n; q++) y[members[q]] = g.regionLabel(r, q, t);
                    double[] here = componentTerms(y, members, n, stamp++, mark, rmark);
                    if (improves((int) here[0], here[1], (int) best[0], best[1])) {
                        best = here;
                        bestT = t;
                    }
                }
                if (bestT < 0) {
                    for (int q = 0; q < n; q++) y[members[q]] = saved[q];
                } else {
                    for (int q = 0; q < n; q++) y[members[q]] = g.regionLabel(r, q, bestT);
                    changed = true;
                }
                if (stamp > Integer.MAX_VALUE - 2 * REGION_MOVE_ENTRIES - 4) {
                    Arrays.fill(mark, -1);
                    Arrays.fill(rmark, -1);
                    stamp = 0;
                }
            }
            if (!changed) break;
        }
        return energy.energy(y);
    }

    // ------------------------------------------------------------------ elimination moves

    /** The first block size of {@link #eliminationMoves} (it adapts: larger after a block that fit, smaller after one that did not). */
    static final int FIRST_ELIMINATION_BLOCK = 32;

    /**
     * Elimination moves from {@code y} (in place): a connected block grown breadth-first from a random
     * variable takes its exact best labels given the rest ({@link Elimination}), when its elimination
     * needs no table above {@code maxEntries}; the block size grows by a quarter after a block that
     * fit and shrinks by a quarter after one that did not. Until {@code patience} blocks in a row
     * improve nothing, {@code maxRounds}, or the deadline; returns E(y). Never lowers E(y) (fewer
     * broken constraints first, as everywhere here).
     */
    public double eliminationMoves(int[] y, int maxRounds, int patience, long maxEntries, Random rnd, Deadline deadline) {
        if (elimination == null) elimination = new Elimination(energy);
        int[] nOff = neighbours[0], nAdj = neighbours[1];
        int[] queue = new int[V];
        boolean[] in = new boolean[V];
        double e = energy.energy(y);
        int broken = energy.brokenCount(y);
        int idle = 0;
        for (int round = 0; round < maxRounds && idle < patience && !deadline.passed(); round++) {
            int head = 0, tail = 0;
            queue[tail++] = rnd.nextInt(V);
            in[queue[0]] = true;
            while (head < tail && tail < eliminationBlock) {
                int v = queue[head++];
                for (int k = nOff[v]; k < nOff[v + 1] && tail < eliminationBlock; k++) {
                    int u = nAdj[k];
                    if (!in[u]) {
                        in[u] = true;
                        queue[tail++] = u;
                    }
                }
            }
            for (int k = 0; k < tail; k++) in[queue[k]] = false;
            Elimination.Plan plan = elimination.plan(Arrays.copyOf(queue, tail), maxEntries);
            if (plan == null) {
                eliminationBlock = Math.max(2, eliminationBlock * 3 / 4);
                idle++;
                continue;
            }
            if (tail == eliminationBlock) eliminationBlock = Math.min(V, eliminationBlock + eliminationBlock / 4 + 1);
            int[] z = y.clone();
            double ez = elimination.solve(plan, z);
            int bz = energy.brokenCount(z);
            if (improves(bz, ez, broken, e)) {
                System.arraycopy(z, 0, y, 0, V);
                e = ez;
                broken = bz;
                idle = 0;
            } else {
                idle++;
            }
        }
        return e;
    }

    private Elimination elimination;
    private int eliminationBlock = FIRST_ELIMINATION_BLOCK;

    // ------------------------------------------------------------------ fusion

    /**
     * Fuses {@code b} into {@code a} (in place): each connected component of the variables where they
     * differ takes b's labels when that raises the energy of the factors it touches (fewer broken
     * hard constraints first). Returns E(a).
     */
    public double fuse(int[] a, int[] b) {
        boolean[] done = new boolean[V];
        int[] nOff = neighbours[0], nAdj = neighbours[1];
        int[] members = new int[V], saved = new int[V];
        int[] mark = new int[Math.max(g.numEdges(), 1)], rmark = new int[Math.max(g.numRegions(), 1)];
        Arrays.fill(mark, -1);
        Arrays.fill(rmark, -1);
        int stamp = 0;
        for (int s = 0; s < V; s++) {
            if (a[s] == b[s] || done[s]) continue;
            int n = 0, head = 0;
            done[s] = true;
            members[n++] = s;
            while (head < n) {
                int v = members[head++];
                for (int k = nOff[v]; k < nOff[v + 1]; k++) {
                    int u = nAdj[k];
                    if (a[u] != b[u] && !done[u]) {
                        done[u] = true;
                        members[n++] = u;
                    }
                }
            }
            // the factors touching the component, each once, before and after the switch
            double[] before = componentTerms(a, members, n, stamp++, mark, rmark);
            for (int k = 0; k < n; k++) {
                saved[k] = a[members[k]];
                a[members[k]] = b[members[k]];
            }
            double[] after = componentTerms(a, members, n, stamp++, mark, rmark);
            boolean better = after[0] < before[0] || (after[0] == before[0] && after[1] > before[1]);
            if (!better) for (int k = 0; k < n; k++) a[members[k]] = saved[k];
        }
        return energy.energy(a);
    }

    /** {broken count, finite sum} of the unary, edge and region terms touching {@code members}; {@code stamp} marks factors seen. */
    private double[] componentTerms(int[] y, int[] members, int n, int stamp, int[] mark, int[] rmark) {
        int broken = 0;
        double sum = 0;
        for (int k = 0; k < n; k++) {
            int v = members[k];
            double t = energy.unary(v, y[v]);
            if (t == NEG_INF) broken++; else sum += t;
            for (int q = inc.edgeOffsets()[v]; q < inc.edgeOffsets()[v + 1]; q++) {
                int e = inc.edge()[q];
                if (mark[e] == stamp) continue;
                mark[e] = stamp;
                t = energy.pair(e, y[g.edgeFrom(e)], y[g.edgeTo(e)]);
                if (t == NEG_INF) broken++; else sum += t;
            }
            for (int q = inc.regionOffsets()[v]; q < inc.regionOffsets()[v + 1]; q++) {
                int r = inc.region()[q];
                if (rmark[r] == stamp) continue;
                rmark[r] = stamp;
                t = energy.region(r, y);
                if (t == NEG_INF) broken++; else sum += t;
            }
        }
        return new double[] {broken, sum};
    }
}
