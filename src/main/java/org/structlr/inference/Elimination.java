package org.structlr.inference;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.List;
import org.structlr.graph.FactorGraph;

/**
 * Exact MAP over a set of free variables, every other variable fixed at its label in {@code y}:
 * max-sum variable elimination (bucket elimination, Dechter 1999). Variables are eliminated in a
 * greedy min-fill order; eliminating v replaces the factors of its bucket by
 * <pre>
 *   m(x_N) = max over y_v of sum over f in bucket(v) of f(y_v, x_N)        (N: v's neighbours left)
 * </pre>
 * and the labels are read back in the reverse order, each the argmax of its bucket given the labels
 * already chosen. The cost is the size of the largest table m, which the induced width of the order
 * decides: a plan whose table would exceed a limit is refused before any table is built.
 *
 * <p>A free variable takes only the labels with a finite unary potential (evidence leaves one, and
 * the variable is then fixed). Used twice by {@link MapSearch}: on the whole model, where it proves
 * the MAP of a model of small treewidth (the diagnosis networks with their evidence), and on blocks
 * of a few hundred variables as a move of the local search that changes a whole block at once (what
 * single flips cannot do through the near-deterministic factors of noisy-OR networks).
 *
 * <p>Written by hand: no JVM library offers max-product elimination over these tables.
 */
public final class Elimination {
    private final LabelingEnergy energy;
    private final FactorGraph g;
    private final int L, V;
    private final FactorGraph.Incidence inc;

    private final Deadline deadline;

    public Elimination(LabelingEnergy energy) {
        this(energy, Deadline.NONE);
    }

    /** Plans and eliminations give up (a plan of null, a solve of NaN) once {@code deadline} passes. */
    public Elimination(LabelingEnergy energy, Deadline deadline) {
        this.deadline = deadline;
        this.energy = energy;
        this.g = energy.graph();
        this.L = g.maxLabels();
        this.V = g.numVariables();
        this.inc = energy.incidence();
    }

    /**
     * An elimination order of the free variables, their labels (domains, by variable), the block's
     * variables with one possible label (evidence: {@code pinned} as pairs variable, label), and the
     * entries of the order's largest table and of all its tables.
     */
    public record Plan(int[] order, boolean[] free, int[][] domains, int[] pinned, long largest, long total) {}

    /**
     * A min-fill order of the variables of {@code block} (labels with a finite unary potential only;
     * those left with one label are fixed), or null when a table would have more than
     * {@code maxEntries} entries or all tables together more than {@code 16 * maxEntries} (their argmax, two
     * bytes an entry, is kept until the labels are read back).
     */
    public Plan plan(int[] block, long maxEntries) {
        boolean[] free = new boolean[V];
        int[][] dom = new int[V][];
        int[] pinned = new int[2 * block.length];
        int np = 0;
        for (int v : block) {
            int[] d = new int[g.numLabels(v)];
            int n = 0;
            for (int l = 0; l < g.numLabels(v); l++) if (energy.unary(v, l) > Double.NEGATIVE_INFINITY) d[n++] = l;
            if (n > Short.MAX_VALUE) return null;   // argmax tables hold shorts
            if (n >= 2) {
                free[v] = true;
                dom[v] = Arrays.copyOf(d, n);
            } else if (n == 1) {
                pinned[np++] = v;
                pinned[np++] = d[0];
            }
        }
        int[] vars = java.util.stream.IntStream.of(block).filter(v -> free[v]).distinct().toArray();
        BitSet[] adj = new BitSet[V];
        for (int v : vars) adj[v] = new BitSet();
        for (int v : vars) {
            for (int k = inc.edgeOffsets()[v]; k < inc.edgeOffsets()[v + 1]; k++) {
                int e = inc.edge()[k];
                int u = inc.side()[k] == 0 ? g.edgeTo(e) : g.edgeFrom(e);
                if (free[u] && u != v) adj[v].set(u);
            }
            for (int k = inc.regionOffsets()[v]; k < inc.regionOffsets()[v + 1]; k++) {
                int r = inc.region()[k];
                for (int p = 0; p < g.regionSize(r); p++) {
                    int u = g.regionVariable(r, p);
                    if (free[u] && u != v) adj[v].set(u);
                }
            }
        }
        double logMax = Math.log(maxEntries) + 1e-9;
        int[] order = new int[vars.length];
        long largest = 1, total = 0;
        boolean[] gone = new boolean[V];
        int[] fill = new int[V];
        double[] lsz = new double[V];
        for (int v : vars) {
            fill[v] = fill(v, adj);
            lsz[v] = logSize(v, adj, dom);
        }
        // the variables left, least fill first, then the smallest table (a variable's keys change only while it is out of the set)
        java.util.TreeSet<Integer> left = new java.util.TreeSet<>((a, b) -> fill[a] != fill[b] ? Integer.compare(fill[a], fill[b])
                : lsz[a] != lsz[b] ? Double.compare(lsz[a], lsz[b]) : Integer.compare(a, b));
        for (int v : vars) left.add(v);
        for (int step = 0; step < vars.length; step++) {
            if (deadline.passed()) return null;
            int best = left.first();
            double bestLog = lsz[best];
            if (bestLog > logMax) {   // the least filling choice is too large: the smallest table, else give up
                for (int v : left) if (lsz[v] < bestLog) {
                    best = v;
                    bestLog = lsz[v];
                }
                if (bestLog > logMax) return null;
            }
            left.remove(best);
            long size = Math.round(Math.exp(bestLog));
            largest = Math.max(largest, size);
            total += size;
            if (total > 16 * maxEntries) return null;
            order[step] = best;
            gone[best] = true;
            BitSet nb = adj[best];
            BitSet touched = new BitSet();
            for (int a = nb.nextSetBit(0); a >= 0; a = nb.nextSetBit(a + 1)) {
                adj[a].or(nb);
                adj[a].clear(a);
                adj[a].clear(best);
                touched.set(a);
                touched.or(adj[a]);
            }
            for (int a = touched.nextSetBit(0); a >= 0; a = touched.nextSetBit(a + 1)) {
                if (gone[a]) continue;
                left.remove(a);
                fill[a] = fill(a, adj);
                lsz[a] = logSize(a, adj, dom);
                left.add(a);
            }
        }
        return new Plan(order, free, dom, Arrays.copyOf(pinned, np), largest, total);
    }

    /** Pairs of v's neighbours that are not neighbours yet. */
    private static int fill(int v, BitSet[] adj) {
        int[] nb = adj[v].stream().toArray();
        int c = 0;
        for (int i = 0; i < nb.length; i++) for (int j = i + 1; j < nb.length; j++) if (!adj[nb[i]].get(nb[j])) c++;
        return c;
    }

    /** log of the entries of the table v's elimination builds (v and its neighbours). */
    private static double logSize(int v, BitSet[] adj, int[][] dom) {
        double s = Math.log(dom[v].length);
        for (int a = adj[v].nextSetBit(0); a >= 0; a = adj[v].nextSetBit(a + 1)) s += Math.log(dom[a].length);
        return s;
    }

    /**
     * The exact MAP of the whole model, or null when it is beyond the limits or the deadline passes
     * first: elimination of every variable when its tables fit in {@code maxEntries}; otherwise
     * conditioning (Dechter's cutset conditioning): the variables of most neighbours are taken out one
     * by one until the elimination of the rest fits, and it runs once for every labelling of them,
     * as long as those labellings times the plan's entries stay within {@code maxWork}. Starts
     * from {@code y} (its labels decide nothing; evidence does).
     */
    public int[] exactMap(int[] y, long maxEntries, long maxWork, Deadline deadline) {
        int[][] nb = g.neighbours();
        int[] degree = new int[V];
        for (int v = 0; v < V; v++) degree[v] = (int) java.util.stream.IntStream.range(nb[0][v], nb[0][v + 1]).map(k -> nb[1][k]).distinct().count();
        boolean[] conditioned = new boolean[V];
        List<Integer> cond = new ArrayList<>();
        long runs = 1;
        while (true) {
            int[] rest = java.util.stream.IntStream.range(0, V).filter(v -> !conditioned[v]).toArray();
            Plan plan = plan(rest, maxEntries);
            if (plan != null) {
                if (runs * plan.total() > maxWork) return null;
                return conditionedRuns(plan, cond, y, deadline);
            }
            int pick = -1;
            for (int v = 0; v < V; v++) {
                if (conditioned[v] || labelsLeft(v) < 2) continue;
                if (pick < 0 || degree[v] > degree[pick]) pick = v;
            }
            if (pick < 0) return null;
            runs *= labelsLeft(pick);
            if (runs > maxWork / maxEntries) return null;
            conditioned[pick] = true;
            cond.add(pick);
        }
    }

    private int labelsLeft(int v) {
        int n = 0;
        for (int l = 0; l < g.numLabels(v); l++) if (energy.unary(v, l) > Double.NEGATIVE_INFINITY) n++;
        return n;
    }

    /** The plan run for every labelling of the conditioned variables (finite unary labels); the best result. */
    private int[] conditionedRuns(Plan plan, List<Integer> cond, int[] y, Deadline deadline) {
        int[][] labels = new int[cond.size()][];
        for (int c = 0; c < cond.size(); c++) {
            int v = cond.get(c);
            labels[c] = java.util.stream.IntStream.range(0, g.numLabels(v)).filter(l -> energy.unary(v, l) > Double.NEGATIVE_INFINITY).toArray();
        }
        int[] at = new int[cond.size()];
        int[] best = null;
        double bestE = Double.NEGATIVE_INFINITY;
        int bestBroken = Integer.MAX_VALUE;
        while (true) {
            if (deadline.passed()) return null;
            int[] z = y.clone();
            for (int c = 0; c < cond.size(); c++) z[cond.get(c)] = labels[c][at[c]];
            double e = solve(plan, z);
            if (Double.isNaN(e)) return null;   // the deadline passed
            int broken = energy.brokenCount(z);
            if (best == null || broken < bestBroken || (broken == bestBroken && e > bestE)) {
                best = z;
                bestE = e;
                bestBroken = broken;
            }
            int c = cond.size() - 1;
            while (c >= 0 && ++at[c] == labels[c].length) at[c--] = 0;
            if (c < 0) return best;
        }
    }

    /** A table over variables (row-major over their domain positions, the last variable fastest). */
    private record Table(int[] vars, int[] dims, double[] t) {
        int stride(int v) {
            int s = 1;
            for (int p = vars.length - 1; p >= 0; p--) {
                if (vars[p] == v) return s;
                s *= dims[p];
            }
            return 0;
        }
    }

    /**
     * Sets the variables of the plan to their best labels with every other variable as in {@code y}
     * (in place) and returns E(y): the MAP of the model when the plan covers every variable; NaN, and
     * y's free variables possibly unset, when the deadline passes first.
     */
    public double solve(Plan plan, int[] y) {
        boolean[] free = plan.free();
        int[][] dom = plan.domains();
        for (int k = 0; k < plan.pinned().length; k += 2) y[plan.pinned()[k]] = plan.pinned()[k + 1];
        int[] pos = new int[V];
        Arrays.fill(pos, -1);
        int[] order = plan.order();
        for (int k = 0; k < order.length; k++) pos[order[k]] = k;
        List<List<Table>> buckets = new ArrayList<>();
        for (int k = 0; k < order.length; k++) buckets.add(new ArrayList<>());
        boolean[] edgeDone = new boolean[g.numEdges()];
        boolean[] regionDone = new boolean[g.numRegions()];
        int[] scratch = y.clone();
        for (int v : order) {
            double[] u = new double[dom[v].length];
            for (int a = 0; a < u.length; a++) u[a] = energy.unary(v, dom[v][a]);
            put(buckets, pos, new Table(new int[] {v}, new int[] {u.length}, u));
            for (int k = inc.edgeOffsets()[v]; k < inc.edgeOffsets()[v + 1]; k++) {
                int e = inc.edge()[k];
                if (edgeDone[e]) continue;
                edgeDone[e] = true;
                int i = g.edgeFrom(e), j = g.edgeTo(e);
                if (free[i] && free[j]) {
                    double[] t = new double[dom[i].length * dom[j].length];
                    for (int a = 0; a < dom[i].length; a++) for (int b = 0; b < dom[j].length; b++) t[a * dom[j].length + b] = energy.pair(e, dom[i][a], dom[j][b]);
                    put(buckets, pos, new Table(new int[] {i, j}, new int[] {dom[i].length, dom[j].length}, t));
                } else {
                    double[] t = new double[dom[v].length];
                    for (int a = 0; a < t.length; a++) t[a] = i == v ? energy.pair(e, dom[v][a], y[j]) : energy.pair(e, y[i], dom[v][a]);
                    put(buckets, pos, new Table(new int[] {v}, new int[] {t.length}, t));
                }
            }
            for (int k = inc.regionOffsets()[v]; k < inc.regionOffsets()[v + 1]; k++) {
                int r = inc.region()[k];
                if (regionDone[r]) continue;
                regionDone[r] = true;
                int[] scope = g.regionScope(r);
                int[] vs = Arrays.stream(scope).filter(w -> free[w]).toArray();
                int[] dims = new int[vs.length];
                int n = 1;
                for (int p = 0; p < vs.length; p++) n *= dims[p] = dom[vs[p]].length;
                double[] t = new double[n];
                int[] at = new int[vs.length];
                for (int idx = 0; idx < n; idx++) {
                    for (int p = 0; p < vs.length; p++) scratch[vs[p]] = dom[vs[p]][at[p]];
                    t[idx] = energy.region(r, scratch);
                    for (int p = vs.length - 1; p >= 0 && ++at[p] == dims[p]; p--) at[p] = 0;
                }
                put(buckets, pos, new Table(vs, dims, t));
            }
        }
        // eliminate; a bucket's tables are dropped once used, only its argmax (one byte or short per entry) is kept
        int[][] argScope = new int[order.length][];
        int[][] argDims = new int[order.length][];
        short[][] arg = new short[order.length][];
        for (int k = 0; k < order.length; k++) {
            if (deadline.passed()) return Double.NaN;
            int v = order[k];
            List<Table> bucket = buckets.get(k);
            buckets.set(k, null);
            BitSet scope = new BitSet();
            for (Table f : bucket) for (int w : f.vars()) if (w != v) scope.set(w);
            int[] vs = scope.stream().toArray();
            int[] dims = new int[vs.length];
            int n = 1;
            for (int p = 0; p < vs.length; p++) n *= dims[p] = dom[vs[p]].length;
            int nf = bucket.size(), dv = dom[v].length;
            int[][] strides = new int[nf][vs.length];
            int[] sv = new int[nf];
            double[][] tables = new double[nf][];
            for (int f = 0; f < nf; f++) {
                sv[f] = bucket.get(f).stride(v);
                tables[f] = bucket.get(f).t();
                for (int p = 0; p < vs.length; p++) strides[f][p] = bucket.get(f).stride(vs[p]);
            }
            double[] m = new double[n];
            short[] am = new short[n];
            int[] at = new int[vs.length], idx = new int[nf];
            for (int c = 0; c < n; c++) {
                double best = Double.NEGATIVE_INFINITY;
                int bestA = 0;
                for (int a = 0; a < dv; a++) {
                    double s = 0;
                    for (int f = 0; f < nf; f++) s += tables[f][idx[f] + a * sv[f]];
                    if (s > best) {
                        best = s;
                        bestA = a;
                    }
                }
                m[c] = best;
                am[c] = (short) bestA;
                for (int p = vs.length - 1; p >= 0; p--) {   // odometer: the last variable fastest
                    for (int f = 0; f < nf; f++) idx[f] += strides[f][p];
                    if (++at[p] < dims[p]) break;
                    for (int f = 0; f < nf; f++) idx[f] -= strides[f][p] * dims[p];
                    at[p] = 0;
                }
            }
            argScope[k] = vs;
            argDims[k] = dims;
            arg[k] = am;
            if (vs.length > 0) put(buckets, pos, new Table(vs, dims, m));
        }
        // read the labels back, last eliminated first: each the argmax at its later neighbours' labels
        int[] chosen = new int[V];
        for (int k = order.length - 1; k >= 0; k--) {
            int i = 0;
            for (int p = 0; p < argScope[k].length; p++) i = i * argDims[k][p] + chosen[argScope[k][p]];
            chosen[order[k]] = arg[k][i];
        }
        for (int v : order) y[v] = dom[v][chosen[v]];
        return energy.energy(y);
    }

    /** A table goes to the bucket of its variable eliminated first. */
    private static void put(List<List<Table>> buckets, int[] pos, Table t) {
        int first = Integer.MAX_VALUE;
        for (int v : t.vars()) first = Math.min(first, pos[v]);
        buckets.get(first).add(t);
    }
}
