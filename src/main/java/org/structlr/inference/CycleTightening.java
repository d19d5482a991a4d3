package org.structlr.inference;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.structlr.graph.FactorGraph;

/**
 * Tightens the relaxation with cycles, after Sontag et al. (2008, "Tightening LP relaxations for MAP
 * using message passing"): a frustrated cycle becomes one region holding the potentials of its edges,
 * so its edges must agree on one joint labelling of the cycle.
 *
 * <p>How, with the messages of a run: the potentials are first reparametrised by the messages
 * (theta'_a = theta_a + lambda_{a->i} + lambda_{a->j}, theta'_r = theta_r + sum lambda_{r->j},
 * theta'_i = theta_i - sum of its incoming messages), which changes no labelling's energy and makes
 * the dual at zero messages equal to the current one. A cycle c of edges then lowers the max-dual
 * {@link DualBound} by exactly
 * <pre>
 *   d(c) = sum_{a in c} max theta'_a  -  max_{y_c} sum_{a in c} theta'_a(y_a)  >= 0
 * </pre>
 * when its edges are replaced by the region c (Sontag et al.'s criterion); the smoothed dual does
 * not rise either. Triangles and 4-cycles of the edges are scored (4-cycles while their tables are
 * small), and the edge-disjoint ones of largest d(c) > 0 are taken, greedily.
 */
public final class CycleTightening {
    private static final double NEG_INF = Double.NEGATIVE_INFINITY;
    /** Scoring work (label combinations summed over candidate cycles) spent per round at most. */
    static final long WORK = 100_000_000L;

    private CycleTightening() {}

    /** The tightened model: its graph, reparametrised potentials, their energy (the same as before for every labelling), and how many cycles became regions. */
    public record Tightened(FactorGraph graph, INDArray unary, INDArray pairwise, INDArray regions, LabelingEnergy energy, int added) {}

    /** A cycle: its variables in order and the edges between consecutive ones (the last closes it). */
    private record Cycle(int[] vars, int[] edges, double gain) {}

    /**
     * Tightens {@code held} (the potentials the engine {@code mp} runs on) with its messages; null
     * when no cycle lowers the bound.
     */
    public static Tightened tighten(LabelingEnergy held, MessagePassing mp) {
        FactorGraph g = held.graph();
        int L = g.maxLabels(), E = g.numEdges();
        double[] lam = E == 0 ? new double[0] : mp.messages().castTo(DataType.DOUBLE).dup('c').data().asDouble();
        double[] lamR = g.numRegionSlots() == 0 ? new double[0] : mp.regionMessages().castTo(DataType.DOUBLE).dup('c').data().asDouble();
        // reparametrise
        double[] u = held.unaryCopy(), p = held.pairwiseCopy(), r = held.regionCopy();
        for (int e = 0; e < E; e++) {
            int i = g.edgeFrom(e), j = g.edgeTo(e);
            for (int a = 0; a < g.numLabels(i); a++) {
                double la = lam[(e * 2) * L + a];
                for (int b = 0; b < g.numLabels(j); b++) {
                    int k = (e * L + a) * L + b;
                    p[k] = sum(sum(p[k], la), lam[(e * 2 + 1) * L + b]);
                }
                u[i * L + a] = minus(u[i * L + a], la);
            }
            for (int b = 0; b < g.numLabels(j); b++) u[j * L + b] = minus(u[j * L + b], lam[(e * 2 + 1) * L + b]);
        }
        if (g.hasRegions()) {
            RegionScores rs = new RegionScores(g);
            double[] z = new double[rs.maxEntries()];
            for (int q = 0; q < g.numRegions(); q++) {
                rs.scores(q, -1, r, lamR, z);
                System.arraycopy(z, 0, r, g.regionTableOffset(q), g.regionEntries(q));
                for (int k = 0; k < g.regionSize(q); k++) {
                    int v = g.regionVariable(q, k), slot = g.regionSlot(q, k);
                    for (int y = 0; y < g.numLabels(v); y++) u[v * L + y] = minus(u[v * L + y], lamR[slot * L + y]);
                }
            }
        }
        List<Cycle> chosen = choose(g, p);
        if (chosen.isEmpty()) return null;
        // the new graph: unused edges in their order, old regions, then one region per cycle
        boolean[] used = new boolean[E];
        for (Cycle c : chosen) for (int e : c.edges()) used[e] = true;
        int keep = 0;
        for (int e = 0; e < E; e++) if (!used[e]) keep++;
        int[] from = new int[keep], to = new int[keep];
        double[] p2 = new double[keep * L * L];
        for (int e = 0, k = 0; e < E; e++) {
            if (used[e]) continue;
            from[k] = g.edgeFrom(e);
            to[k] = g.edgeTo(e);
            System.arraycopy(p, e * L * L, p2, k * L * L, L * L);
            k++;
        }
        int R = g.numRegions();
        int[][] scopes = new int[R + chosen.size()][];
        for (int q = 0; q < R; q++) scopes[q] = g.regionScope(q);
        for (int c = 0; c < chosen.size(); c++) {
            int[] s = chosen.get(c).vars().clone();
            Arrays.sort(s);
            scopes[R + c] = s;
        }
        FactorGraph t = FactorGraph.builder(g.numLabels()).edges(from, to, null).regions(scopes, null).build();
        double[] r2 = new double[t.totalRegionEntries()];
        System.arraycopy(r, 0, r2, 0, r.length);
        int[] y = new int[g.numVariables()];
        for (int c = 0; c < chosen.size(); c++) {
            int q = R + c;
            Cycle cy = chosen.get(c);
            int offq = t.regionTableOffset(q);
            for (int x = 0; x < t.regionEntries(q); x++) {
                for (int k = 0; k < t.regionSize(q); k++) y[t.regionVariable(q, k)] = t.regionLabel(q, k, x);
                double s = 0;
                for (int e : cy.edges()) s = sum(s, p[(e * L + y[g.edgeFrom(e)]) * L + y[g.edgeTo(e)]]);
                r2[offq + x] = s;
            }
        }
        LabelingEnergy te = new LabelingEnergy(t, u, p2, r2);
        return new Tightened(t, Nd4j.create(u, new long[] {t.numVariables(), L}, DataType.DOUBLE),
                keep == 0 ? Nd4j.create(DataType.DOUBLE, 0, (long) L * L) : Nd4j.create(p2, new long[] {keep, (long) L * L}, DataType.DOUBLE),
                r2.length == 0 ? Nd4j.create(DataType.DOUBLE, 0) : Nd4j.create(r2, new long[] {r2.length}, DataType.DOUBLE),
                te, chosen.size());
    }

    /** Frustrated triangles and 4-cycles of the edges, greedily edge-disjoint by decreasing d(c). */
    private static List<Cycle> choose(FactorGraph g, double[] p) {
        int V = g.numVariables(), E = g.numEdges(), L = g.maxLabels();
        Map<Long, Integer> edgeOf = new HashMap<>();
        List<List<Integer>> adj = new ArrayList<>();
        for (int v = 0; v < V; v++) adj.add(new ArrayList<>());
        for (int e = 0; e < E; e++) {
            int a = g.edgeFrom(e), b = g.edgeTo(e);
            edgeOf.put(key(a, b, V), e);
            adj.get(a).add(b);
            adj.get(b).add(a);
        }
        for (List<Integer> l : adj) l.sort(null);
        double[] edgeMax = new double[E];
        for (int e = 0; e < E; e++) {
            double m = NEG_INF;
            for (int a = 0; a < g.numLabels(g.edgeFrom(e)); a++) {
                for (int b = 0; b < g.numLabels(g.edgeTo(e)); b++) m = Math.max(m, p[(e * L + a) * L + b]);
            }
            edgeMax[e] = m;
        }
        List<Cycle> found = new ArrayList<>();
        long work = 0;
        long l3 = (long) L * L * L;
        // triangles a < b < c
        for (int a = 0; a < V && work < WORK; a++) {
            for (int b : adj.get(a)) {
                if (b <= a) continue;
                for (int c : adj.get(b)) {
                    if (c <= b || !edgeOf.containsKey(key(a, c, V))) continue;
                    int[] vars = {a, b, c};
                    int[] edges = {edgeOf.get(key(a, b, V)), edgeOf.get(key(b, c, V)), edgeOf.get(key(c, a, V))};
                    add(found, g, p, edgeMax, vars, edges);
                    work += l3;
                }
            }
        }
        // 4-cycles a-b-c-d with a the smallest and b < d, while their scoring stays affordable
        for (int a = 0; a < V && work < WORK; a++) {
            List<Integer> na = adj.get(a);
            for (int x = 0; x < na.size(); x++) {
                int b = na.get(x);
                if (b <= a) continue;
                for (int z = x + 1; z < na.size(); z++) {
                    int d = na.get(z);
                    if (d <= a) continue;
                    for (int c : adj.get(b)) {
                        if (c <= a || c == d || !edgeOf.containsKey(key(c, d, V))) continue;
                        int[] vars = {a, b, c, d};
                        int[] edges = {edgeOf.get(key(a, b, V)), edgeOf.get(key(b, c, V)), edgeOf.get(key(c, d, V)), edgeOf.get(key(d, a, V))};
                        add(found, g, p, edgeMax, vars, edges);
                        work += l3;
                    }
                }
            }
        }
        found.sort((x, y) -> Double.compare(y.gain(), x.gain()));
        boolean[] used = new boolean[E];
        Set<List<Integer>> sets = new HashSet<>();
        List<Cycle> chosen = new ArrayList<>();
        for (Cycle c : found) {
            boolean free = true;
            for (int e : c.edges()) free &= !used[e];
            if (!free) continue;
            List<Integer> set = new ArrayList<>();
            for (int v : c.vars()) set.add(v);
            set.sort(null);
            if (!sets.add(set)) continue;
            for (int e : c.edges()) used[e] = true;
            chosen.add(c);
        }
        return chosen;
    }

    /** Adds the cycle when d(c) is clearly positive. */
    private static void add(List<Cycle> found, FactorGraph g, double[] p, double[] edgeMax, int[] vars, int[] edges) {
        double sumMax = 0;
        for (int e : edges) sumMax = sum(sumMax, edgeMax[e]);
        if (sumMax == NEG_INF) return;
        double joint = cycleMax(g, p, vars, edges);
        double gain = sumMax - joint;
        if (gain > 1e-9 * Math.max(1, Math.abs(sumMax))) found.add(new Cycle(vars, edges, gain));
    }

    /**
     * max over the cycle's labellings of the sum of its edges' potentials: fixing the first variable,
     * a max-product pass around the cycle (L^3 work, not L^k).
     */
    private static double cycleMax(FactorGraph g, double[] p, int[] vars, int[] edges) {
        int k = vars.length;
        double best = NEG_INF;
        for (int y0 = 0; y0 < g.numLabels(vars[0]); y0++) {
            // m[y] = best sum of the edges so far with the current variable at y
            double[] m = new double[g.numLabels(vars[1])];
            for (int y = 0; y < m.length; y++) m[y] = pot(g, p, edges[0], vars[0], y0, vars[1], y);
            for (int s = 1; s < k - 1; s++) {
                double[] n = new double[g.numLabels(vars[s + 1])];
                Arrays.fill(n, NEG_INF);
                for (int a = 0; a < m.length; a++) {
                    if (m[a] == NEG_INF) continue;
                    for (int b = 0; b < n.length; b++) n[b] = Math.max(n[b], sum(m[a], pot(g, p, edges[s], vars[s], a, vars[s + 1], b)));
                }
                m = n;
            }
            for (int a = 0; a < m.length; a++) best = Math.max(best, sum(m[a], pot(g, p, edges[k - 1], vars[k - 1], a, vars[0], y0)));
        }
        return best;
    }

    /** theta'_e with variable va at label a and vb at label b, whichever end each is. */
    private static double pot(FactorGraph g, double[] p, int e, int va, int a, int vb, int b) {
        int L = g.maxLabels();
        return g.edgeFrom(e) == va ? p[(e * L + a) * L + b] : p[(e * L + b) * L + a];
    }

    private static long key(int a, int b, int V) {
        return (long) Math.min(a, b) * V + Math.max(a, b);
    }

    private static double sum(double a, double b) {
        return a == NEG_INF || b == NEG_INF ? NEG_INF : a + b;
    }

    private static double minus(double x, double m) {
        return x == NEG_INF || m == NEG_INF ? NEG_INF : x - m;
    }
}
