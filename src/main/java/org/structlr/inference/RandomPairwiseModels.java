package org.structlr.inference;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.structlr.graph.FactorGraph;
import org.structlr.graph.Grids;

/**
 * Seeded random pairwise models for measuring MAP decoding and engine speed (the decoder tests and
 * {@code org.structlr.cli.InferBench}): potentials in the flat engine layout of {@link MessagePassing}.
 */
public final class RandomPairwiseModels {
    private RandomPairwiseModels() {}

    /** A graph and its log-potentials, flat {@code [V*L]} and {@code [E*L*L]}. */
    public record Model(FactorGraph graph, double[] unary, double[] pairwise) {
        public LabelingEnergy energy() {
            return new LabelingEnergy(graph, unary, pairwise);
        }

        public double[][] unaryRows() {
            return rows(unary, graph.numVariables(), graph.maxLabels());
        }

        public double[][] pairwiseRows() {
            int L = graph.maxLabels();
            return rows(pairwise, graph.numEdges(), L * L);
        }

        private static double[][] rows(double[] flat, int n, int w) {
            double[][] r = new double[n][w];
            for (int i = 0; i < n; i++) System.arraycopy(flat, i * w, r[i], 0, w);
            return r;
        }
    }

    /**
     * {@code n} variables of {@code labels} labels, each pair joined with probability {@code edgeProb}
     * (plus a chain so the graph is connected), Gaussian potentials (unary sd 0.5, pairwise sd 1),
     * and a fraction {@code zeroFrac} of unary and pairwise entries set to minus infinity (hard
     * constraints), never on a hidden planted labelling, so some labelling is always feasible.
     */
    public static Model hardConstrained(long seed, int n, int labels, double edgeProb, double zeroFrac) {
        Random rnd = new Random(seed);
        int[] planted = new int[n];
        for (int i = 0; i < n; i++) planted[i] = rnd.nextInt(labels);
        List<int[]> edges = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            for (int j = i + 1; j < n; j++) {
                if (j == i + 1 || rnd.nextDouble() < edgeProb) edges.add(new int[] {i, j});
            }
        }
        FactorGraph g = FactorGraph.of(n, labels, edges.toArray(new int[0][]));
        int L = labels;
        double[] u = new double[n * L];
        for (int i = 0; i < n; i++) {
            for (int y = 0; y < L; y++) {
                u[i * L + y] = y != planted[i] && rnd.nextDouble() < zeroFrac ? Double.NEGATIVE_INFINITY : 0.5 * rnd.nextGaussian();
            }
        }
        double[] p = new double[g.numEdges() * L * L];
        for (int e = 0; e < g.numEdges(); e++) {
            int a = g.edgeFrom(e), b = g.edgeTo(e);
            for (int ya = 0; ya < L; ya++) {
                for (int yb = 0; yb < L; yb++) {
                    boolean onPlanted = ya == planted[a] && yb == planted[b];
                    p[(e * L + ya) * L + yb] = !onPlanted && rnd.nextDouble() < zeroFrac ? Double.NEGATIVE_INFINITY : rnd.nextGaussian();
                }
            }
        }
        return new Model(g, u, p);
    }

    /**
     * A frustrated Ising grid (spin glass): spins s = 2y - 1, theta_a(y_i, y_j) = J_ij s_i s_j with
     * J ~ N(0, 1) of mixed sign, theta_i(y) = h_i s_i with h ~ N(0, field^2).
     */
    public static Model ising(long seed, int height, int width, double field) {
        Random rnd = new Random(seed);
        FactorGraph g = Grids.grid(height, width, 2, false);
        int n = g.numVariables();
        double[] u = new double[n * 2];
        for (int i = 0; i < n; i++) {
            double h = field * rnd.nextGaussian();
            u[i * 2] = -h;
            u[i * 2 + 1] = h;
        }
        double[] p = new double[g.numEdges() * 4];
        for (int e = 0; e < g.numEdges(); e++) {
            double j = rnd.nextGaussian();
            p[e * 4] = j;       // (-1)(-1)
            p[e * 4 + 1] = -j;  // (-1)(+1)
            p[e * 4 + 2] = -j;
            p[e * 4 + 3] = j;
        }
        return new Model(g, u, p);
    }

    /** The complete graph on {@code n} variables of {@code labels} labels, Gaussian potentials (dense UAI models). */
    public static Model complete(long seed, int n, int labels) {
        return hardConstrained(seed, n, labels, 1.0, 0.0);
    }
}
