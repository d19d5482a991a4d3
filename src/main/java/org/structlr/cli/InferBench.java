package org.structlr.cli;

import java.util.Locale;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.structlr.graph.Coloring;
import org.structlr.graph.FactorGraph;
import org.structlr.inference.ExactInference;
import org.structlr.inference.nd4j.GraphMessagePassing;
import org.structlr.inference.loop.LoopMessagePassing;
import org.structlr.inference.MapDecoder;
import org.structlr.inference.MessagePassing;
import org.structlr.inference.RandomPairwiseModels;
import org.structlr.inference.StopRule;

/**
 * The measurements behind the {@code infer} tables of docs/results.md (docs/wave2/uai.md): MAP quality
 * of each decoder against the exact MAP by enumeration on small random models with hard
 * constraints, the decoders on frustrated Ising grids, and time per sweep of the loop and ND4J
 * engines against graph size. Markdown on standard output. Run alone (timings):
 * <pre>
 * OMP_NUM_THREADS=1 java --add-modules jdk.incubator.vector -cp target/structlr.jar org.structlr.cli.InferBench [quality|ising|speed|all]
 * </pre>
 * Not a subcommand on purpose: {@code structlr bench} belongs to the engine benchmarks.
 */
public final class InferBench {
    private InferBench() {}

    public static void main(String[] args) {
        String what = args.length > 0 ? args[0] : "all";
        if (what.equals("quality") || what.equals("all")) quality();
        if (what.equals("ising") || what.equals("all")) ising();
        if (what.equals("speed") || what.equals("all")) speed();
    }

    static INDArray[] potentials(RandomPairwiseModels.Model m) {
        FactorGraph g = m.graph();
        int L = g.maxLabels();
        return new INDArray[] {Nd4j.create(m.unary(), new long[] {g.numVariables(), L}, DataType.DOUBLE),
                Nd4j.create(m.pairwise(), new long[] {g.numEdges(), (long) L * L}, DataType.DOUBLE)};
    }

    static MapDecoder.Result decode(RandomPairwiseModels.Model m, MapDecoder.Kind kind, double eps, int sweeps) {
        try (MessagePassing mp = new LoopMessagePassing(m.graph(), eps)) {
            INDArray[] p = potentials(m);
            mp.setPotentials(p[0], p[1]);
            return new MapDecoder(kind, m.energy()).run(mp, new StopRule(sweeps, 0, 10));
        }
    }

    /** Decoded energy against the exact MAP on 100 random models (12 variables, 3 labels, hard zeros). */
    static void quality() {
        int models = 100, n = 12, labels = 3, sweeps = 300;
        double edgeProb = 0.3, zeros = 0.15;
        System.out.printf(Locale.ROOT, "%n### MAP quality on %d random models (%d variables, %d labels, %.0f%% of pairs joined plus a chain, "
                + "%.0f%% of entries hard zeros), %d sweeps%n%n", models, n, labels, 100 * edgeProb, 100 * zeros, sweeps);
        System.out.println("| eps | decoder | exact MAP found | infeasible | mean gap to MAP (E_map - E) | worst gap | ms per model |");
        System.out.println("|---|---|---|---|---|---|---|");
        for (double eps : new double[] {0.1, 0.01}) {
            for (MapDecoder.Kind k : MapDecoder.Kind.values()) {
                int exact = 0, infeasible = 0;
                double gapSum = 0, worst = 0;
                long t0 = System.nanoTime();
                for (int s = 0; s < models; s++) {
                    RandomPairwiseModels.Model m = RandomPairwiseModels.hardConstrained(1000 + s, n, labels, edgeProb, zeros);
                    double map = ExactInference.solve(m.graph(), m.unaryRows(), m.pairwiseRows(), 1.0).mapScore();
                    double e = decode(m, k, eps, sweeps).energy();
                    if (e == map) exact++;
                    if (e == Double.NEGATIVE_INFINITY) infeasible++;
                    else {
                        gapSum += map - e;
                        worst = Math.max(worst, map - e);
                    }
                }
                double ms = (System.nanoTime() - t0) / 1e6 / models;
                System.out.printf(Locale.ROOT, "| %s | %s | %d / %d | %d | %.4f | %.3f | %.1f (incl. enumeration) |%n",
                        eps, k, exact, models, infeasible, gapSum / Math.max(1, models - infeasible), worst, ms);
            }
        }
    }

    /** Decoders on frustrated Ising grids (mixed-sign couplings), relative to the best energy any decoder found. */
    static void ising() {
        double eps = 0.01;
        int sweeps = 1000;
        System.out.printf(Locale.ROOT, "%n### Frustrated Ising grids (J ~ N(0,1), h ~ N(0, 0.1^2)), eps %s, %d sweeps: energy and %% below "
                + "the reference (best of 4 simulated-annealing runs of 20,000 sweeps, then ICM)%n%n", eps, sweeps);
        System.out.println("| grid | argmax | best | icm | round | seconds (round) | annealing reference |");
        System.out.println("|---|---|---|---|---|---|---|");
        for (int side : new int[] {20, 40, 80}) {
            RandomPairwiseModels.Model m = RandomPairwiseModels.ising(side, side, side, 0.1);
            double[] e = new double[MapDecoder.Kind.values().length];
            double secs = 0;
            for (MapDecoder.Kind k : MapDecoder.Kind.values()) {
                long t0 = System.nanoTime();
                e[k.ordinal()] = decode(m, k, eps, sweeps).energy();
                secs = (System.nanoTime() - t0) / 1e9;
            }
            double best = anneal(m, 4, 20000);
            StringBuilder row = new StringBuilder("| " + side + "x" + side + " |");
            for (double v : e) row.append(String.format(Locale.ROOT, " %.2f (%.1f%%) |", v, 100 * (best - v) / Math.abs(best)));
            row.append(String.format(Locale.ROOT, " %.1f | %.2f |", secs, best));
            System.out.println(row);
        }
    }

    /**
     * A reference MAP energy for binary models too large to enumerate: Metropolis simulated
     * annealing (temperature 3 down to 0.01 geometrically over the sweeps, random start), then
     * ICM; the best of {@code runs} seeds.
     */
    static double anneal(RandomPairwiseModels.Model m, int runs, int sweeps) {
        org.structlr.inference.LabelingEnergy en = m.energy();
        int n = m.graph().numVariables();
        double best = Double.NEGATIVE_INFINITY;
        for (int run = 0; run < runs; run++) {
            java.util.Random r = new java.util.Random(run);
            int[] y = new int[n];
            for (int i = 0; i < n; i++) y[i] = r.nextInt(2);
            for (int t = 0; t < sweeps; t++) {
                double temp = 3.0 * Math.pow(0.01 / 3.0, t / (double) (sweeps - 1));
                for (int i = 0; i < n; i++) {
                    double d = en.local(i, 1 - y[i], y) - en.local(i, y[i], y);
                    if (d >= 0 || r.nextDouble() < Math.exp(d / temp)) y[i] = 1 - y[i];
                }
            }
            best = Math.max(best, en.icm(y, 100));
        }
        return best;
    }

    /** Milliseconds per sweep of the loop and ND4J engines, after warm-up. */
    static void speed() {
        System.out.printf(Locale.ROOT, "%n### CPU time per sweep (ms, this thread), eps 0.1, OMP_NUM_THREADS=1%n%n");
        System.out.println("| model | variables | edges | labels | loop | graph (ND4J) | 2,000 sweeps, loop (s) |");
        System.out.println("|---|---|---|---|---|---|---|");
        Object[][] cases = {
                {"grid 2x2", RandomPairwiseModels.ising(1, 2, 2, 0.1)},
                {"grid 10x10", RandomPairwiseModels.ising(1, 10, 10, 0.1)},
                {"grid 32x32", RandomPairwiseModels.ising(1, 32, 32, 0.1)},
                {"grid 100x100", RandomPairwiseModels.ising(1, 100, 100, 0.1)},
                {"grid 316x316", RandomPairwiseModels.ising(1, 316, 316, 0.1)},
                {"complete, 11 labels", RandomPairwiseModels.complete(1, 60, 11)},
                {"12x19 grid, 21 labels", gridLabels(12, 19, 21)},
                {"random, 228 vars, 21 labels", RandomPairwiseModels.hardConstrained(1, 228, 21, 0.02, 0.0)},
        };
        for (Object[] c : cases) {
            RandomPairwiseModels.Model m = (RandomPairwiseModels.Model) c[1];
            FactorGraph g = m.graph();
            double loop = msPerSweep(new LoopMessagePassing(g, Coloring.greedy(g), 0.1), m);
            double graph = msPerSweep(new GraphMessagePassing(g, Coloring.greedy(g), 0.1, DataType.DOUBLE), m);
            System.out.printf(Locale.ROOT, "| %s | %d | %d | %d | %.4f | %.3f | %.1f |%n", c[0], g.numVariables(), g.numEdges(),
                    g.maxLabels(), loop, graph, loop * 2000 / 1000);
        }
    }

    static RandomPairwiseModels.Model gridLabels(int h, int w, int labels) {
        FactorGraph g = org.structlr.graph.Grids.grid(h, w, labels, false);
        java.util.Random r = new java.util.Random(7);
        double[] u = new double[g.numVariables() * labels], p = new double[g.numEdges() * labels * labels];
        for (int k = 0; k < u.length; k++) u[k] = r.nextGaussian();
        for (int k = 0; k < p.length; k++) p[k] = r.nextGaussian();
        return new RandomPairwiseModels.Model(g, u, p);
    }

    /**
     * CPU time of this thread per sweep (so that other processes on a shared machine do not count;
     * the engines run single-threaded with OMP_NUM_THREADS=1): warm up, then enough sweeps for
     * about half a second of CPU.
     */
    static double msPerSweep(MessagePassing mp, RandomPairwiseModels.Model m) {
        java.lang.management.ThreadMXBean cpu = java.lang.management.ManagementFactory.getThreadMXBean();
        try (mp) {
            INDArray[] p = potentials(m);
            mp.setPotentials(p[0], p[1]);
            mp.iterate(3);
            int n = 1;
            long t;
            while (true) {
                long t0 = cpu.getCurrentThreadCpuTime();
                mp.iterate(n);
                t = cpu.getCurrentThreadCpuTime() - t0;
                if (t > 500_000_000L || n >= 1 << 20) break;
                n *= t < 50_000_000L ? 8 : 2;
            }
            return t / 1e6 / n;
        }
    }
}
