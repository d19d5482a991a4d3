package org.structlr.inference;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.structlr.graph.Coloring;
import org.structlr.graph.FactorGraph;
import org.structlr.graph.Grids;
import org.structlr.inference.TestEngines.Problem;

/** Seeded random graphs and potentials for the engine tests. */
final class TestProblems {
    private TestProblems() {}

    /** Entries of labels a variable does not have: engines must ignore them. */
    static final double PADDING_GARBAGE = 5.0;

    static FactorGraph chain(int n, int[] labels) {
        int[] from = new int[n - 1], to = new int[n - 1];
        for (int k = 0; k + 1 < n; k++) {
            from[k] = k;
            to[k] = k + 1;
        }
        return FactorGraph.builder(labels).edges(from, to, null).build();
    }

    /** A random tree: variable v > 0 hangs from a random earlier one, edges in random orientation. */
    static FactorGraph randomTree(int n, int[] labels, Random rnd) {
        int[] from = new int[n - 1], to = new int[n - 1];
        for (int v = 1; v < n; v++) {
            int p = rnd.nextInt(v);
            boolean flip = rnd.nextBoolean();
            from[v - 1] = flip ? v : p;
            to[v - 1] = flip ? p : v;
        }
        return FactorGraph.builder(labels).edges(from, to, null).build();
    }

    /** A random loopy graph on the first n-1 variables (a cycle plus chords); the last variable has no edges. */
    static FactorGraph randomGeneral(int n, int[] labels, Random rnd) {
        List<int[]> edges = new ArrayList<>();
        int m = n - 1;
        for (int v = 0; v < m; v++) edges.add(new int[] {v, (v + 1) % m});
        for (int i = 0; i < m; i++) {
            for (int j = i + 2; j < m; j++) {
                if (!(i == 0 && j == m - 1) && rnd.nextDouble() < 0.3) edges.add(rnd.nextBoolean() ? new int[] {i, j} : new int[] {j, i});
            }
        }
        int[] from = edges.stream().mapToInt(e -> e[0]).toArray(), to = edges.stream().mapToInt(e -> e[1]).toArray();
        return FactorGraph.builder(labels).edges(from, to, null).build();
    }

    static int[] randomLabels(int n, int lo, int hi, Random rnd) {
        int[] l = new int[n];
        for (int i = 0; i < n; i++) l[i] = lo + rnd.nextInt(hi - lo + 1);
        return l;
    }

    static int[] constant(int n, int l) {
        int[] a = new int[n];
        Arrays.fill(a, l);
        return a;
    }

    /** Gaussian potentials of standard deviation {@code scale}; padding entries hold {@link #PADDING_GARBAGE}. */
    static Problem random(String name, FactorGraph g, Coloring c, int[] gridShape, double scale, Random rnd) {
        int L = g.maxLabels();
        double[][] u = new double[g.numVariables()][L];
        for (int i = 0; i < u.length; i++) {
            for (int y = 0; y < L; y++) u[i][y] = y < g.numLabels(i) ? scale * rnd.nextGaussian() : PADDING_GARBAGE;
        }
        double[][] p = new double[g.numEdges()][L * L];
        for (int a = 0; a < p.length; a++) {
            for (int yi = 0; yi < L; yi++) {
                for (int yj = 0; yj < L; yj++) {
                    boolean real = yi < g.numLabels(g.edgeFrom(a)) && yj < g.numLabels(g.edgeTo(a));
                    p[a][yi * L + yj] = real ? scale * rnd.nextGaussian() : PADDING_GARBAGE;
                }
            }
        }
        return new Problem(name, g, c, u, p, gridShape);
    }

    static Problem grid(int h, int w, int labels, double scale, long seed) {
        FactorGraph g = Grids.grid(h, w, labels, false);
        return random("grid " + h + "x" + w + " L=" + labels, g, Grids.checkerboard(h, w), new int[] {1, h, w}, scale, new Random(seed));
    }

    static Problem chainProblem(int n, int labels, double scale, long seed) {
        FactorGraph g = chain(n, constant(n, labels));
        return random("chain n=" + n + " L=" + labels, g, Coloring.greedy(g), null, scale, new Random(seed));
    }

    static Problem treeProblem(int n, int[] labels, double scale, long seed) {
        Random rnd = new Random(seed);
        FactorGraph g = randomTree(n, labels, rnd);
        return random("tree n=" + n + " L=" + Arrays.toString(labels), g, Coloring.greedy(g), null, scale, rnd);
    }

    /** Loopy graph with 3 or 4 labels per variable and one variable with no edges. */
    static Problem generalProblem(int n, double scale, long seed) {
        Random rnd = new Random(seed);
        int[] labels = randomLabels(n, 3, 4, rnd);
        FactorGraph g = randomGeneral(n, labels, rnd);
        return random("general n=" + n + " L=3..4 + isolated", g, Coloring.greedy(g), null, scale, rnd);
    }

    /** Graph with 2, 3 and 5 labels mixed (a cycle with a tail). */
    static Problem mixedLabels(double scale, long seed) {
        int[] labels = {2, 5, 3, 2, 4, 3};
        FactorGraph g = FactorGraph.builder(labels).edges(new int[] {0, 1, 2, 3, 1, 5}, new int[] {1, 2, 3, 0, 4, 4}, null).build();
        return random("mixed labels 2..5", g, Coloring.greedy(g), null, scale, new Random(seed));
    }

    /** Adds {@code bonus} to the unary potential of a random labelling, so that the MAP has a clear margin. */
    static Problem planted(Problem p, double bonus, long seed) {
        Random rnd = new Random(seed);
        double[][] u = new double[p.unary().length][];
        for (int i = 0; i < u.length; i++) {
            u[i] = p.unary()[i].clone();
            u[i][rnd.nextInt(p.graph().numLabels(i))] += bonus;
        }
        return new Problem(p.name() + " planted", p.graph(), p.coloring(), u, p.pairwise(), p.gridShape());
    }

    /** The problems most tests run on. */
    static List<Problem> standard() {
        return List.of(
                chainProblem(7, 3, 1.0, 11),
                treeProblem(9, randomLabels(9, 2, 4, new Random(12)), 1.0, 12),
                grid(3, 4, 3, 1.0, 13),
                generalProblem(9, 1.0, 14),
                mixedLabels(1.0, 15));
    }
}
