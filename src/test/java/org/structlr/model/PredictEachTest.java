package org.structlr.model;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.structlr.data.DenoisingGenerator;
import org.structlr.data.Example;
import org.structlr.inference.engines.Engines;
import org.structlr.oracle.ScoreFunction;

/**
 * {@link Predictor#predictEach}: an example's answer is the same bits whatever batch it rides in
 * (what serve's micro-batching promises), on the engines that batch (fused grids of any sizes, two
 * and three labels; the loop engine on general graphs), and each example stops by its own gap.
 */
class PredictEachTest {

    /** g(phi)_c = sum_d phi_d w[d][c] in double, row by row: exact whatever the batch. */
    record RowLinear(double[][] w) implements ScoreFunction {
        @Override public INDArray scores(INDArray x) {
            double[][] rows = x.castTo(DataType.DOUBLE).toDoubleMatrix();
            double[][] out = new double[rows.length][w[0].length];
            for (int i = 0; i < rows.length; i++) for (int c = 0; c < w[0].length; c++) for (int d = 0; d < w.length; d++) out[i][c] += rows[i][d] * w[d][c];
            return Nd4j.create(out).castTo(x.dataType());
        }
        @Override public int numClasses() { return w[0].length; }
        @Override public int numFeatures() { return w.length; }
        @Override public String kind() { return "test-row-linear"; }
        @Override public String describe() { return kind(); }
        @Override public void save(Path dir) { throw new UnsupportedOperationException(); }
    }

    static double[][] random(int d, int c, long seed, double scale) {
        Random r = new Random(seed);
        double[][] w = new double[d][c];
        for (double[] row : w) for (int k = 0; k < c; k++) row[k] = scale * (r.nextDouble() * 2 - 1);
        return w;
    }

    /** Weak unary and strong pairwise scores, so that message passing takes tens to hundreds of sweeps. */
    static CrfModel model(int labels, int du, int dp, long seed) {
        return new CrfModel(labels, 0.1, du, dp, List.of("pairwise"), new RowLinear(random(du, labels, seed, 0.3)),
                List.of(new RowLinear(random(dp, labels * labels, seed + 1, 3))), Map.of(), Map.of());
    }

    /** An image-shaped example of random features (grid edges, so the fused engine takes it). */
    static Example grid(int h, int w, int du, int dp, long seed) {
        Random r = new Random(seed);
        List<Integer> edges = new ArrayList<>();
        for (int i = 0; i < h; i++) for (int j = 0; j + 1 < w; j++) { edges.add(i * w + j); edges.add(i * w + j + 1); }
        for (int i = 0; i + 1 < h; i++) for (int j = 0; j < w; j++) { edges.add(i * w + j); edges.add((i + 1) * w + j); }
        return general(h * w, edges, du, dp, r).shape(h, w).build();
    }

    static Example.Builder general(int v, List<Integer> edges, int du, int dp, Random r) {
        float[] u = new float[v * du], p = new float[edges.size() / 2 * dp];
        for (int k = 0; k < u.length; k++) u[k] = (float) r.nextGaussian();
        for (int k = 0; k < p.length; k++) p[k] = (float) r.nextGaussian();
        return Example.builder(u, du, edges.stream().mapToInt(Integer::intValue).toArray(), p, dp);
    }

    static void assertSame(Predictor.Prediction alone, Predictor.Prediction batched, String what) {
        assertArrayEquals(alone.labels(), batched.labels(), what + ": labels");
        float[] a = alone.marginals().castTo(DataType.FLOAT).dup('c').data().asFloat(), b = batched.marginals().castTo(DataType.FLOAT).dup('c').data().asFloat();
        assertEquals(a.length, b.length, what + ": marginals");
        for (int k = 0; k < a.length; k++) assertEquals(Float.floatToIntBits(a[k]), Float.floatToIntBits(b[k]), what + ": marginal " + k);
        assertEquals(alone.inference().iterations(), batched.inference().iterations(), what + ": sweeps");
        assertEquals(Double.doubleToLongBits(alone.inference().gap()), Double.doubleToLongBits(batched.inference().gap()), what + ": gap");
    }

    void check(CrfModel m, List<Example> xs, int iterations, double tol) {
        List<Predictor.Prediction> batched = Predictor.predictEach(m, xs, iterations, tol);
        List<Predictor.Prediction> reversed = Predictor.predictEach(m, reversed(xs), iterations, tol);
        for (int k = 0; k < xs.size(); k++) {
            Predictor.Prediction alone = Predictor.predictEach(m, List.of(xs.get(k)), iterations, tol).get(0);
            assertSame(alone, batched.get(k), "example " + k + " of " + xs.size());
            assertSame(alone, reversed.get(xs.size() - 1 - k), "example " + k + " reversed");
        }
    }

    static <T> List<T> reversed(List<T> xs) {
        List<T> r = new ArrayList<>(xs);
        Collections.reverse(r);
        return r;
    }

    @Test
    void raggedGridsTwoLabelsOnTheFusedEngine() {
        CrfModel m = model(2, 3, 2, 1);
        List<Example> xs = List.of(grid(9, 13, 3, 2, 10), grid(16, 16, 3, 2, 11), grid(5, 4, 3, 2, 12), grid(16, 16, 3, 2, 13));
        List<Predictor.Prediction> p = Predictor.predictEach(m, xs, 500, 1e-5);
        // they stop at different sweeps: each by its own gap, not the batch's
        assertTrue(p.stream().mapToInt(x -> x.inference().iterations()).distinct().count() > 1,
                "sweeps " + p.stream().map(x -> x.inference().iterations()).toList());
        check(m, xs, 500, 1e-5);
        check(m, xs, 37, 1e-5);      // some stop at the limit, not converged
        check(m, xs, 30, 0);         // no gap checks
    }

    @Test
    void threeLabelsOnTheFusedEngine() {
        CrfModel m = model(3, 3, 2, 2);
        check(m, List.of(grid(7, 11, 3, 2, 20), grid(12, 6, 3, 2, 21), grid(3, 3, 3, 2, 22)), 300, 1e-5);
    }

    @Test
    void generalGraphsOnTheLoopEngine() {
        CrfModel m = model(3, 2, 2, 3);
        Random r = new Random(4);
        List<Example> xs = new ArrayList<>();
        for (int k = 0; k < 4; k++) {
            int v = 6 + 3 * k;
            List<Integer> edges = new ArrayList<>();
            for (int i = 0; i < v; i++) for (int j = i + 1; j < v; j++) if (r.nextDouble() < 0.4) { edges.add(i); edges.add(j); }
            xs.add(general(v, edges, 2, 2, r).build());
        }
        check(m, xs, 400, 1e-6);
    }

    @Test
    void aBatchTooLargeForTheLoopEngineFallsBackToOneEngineEach() {
        // each chain alone is small enough for the loop engine; the four together would get the
        // ND4J graph engine, which is not separable: each is then run on an engine of its own
        CrfModel m = model(3, 2, 2, 5);
        Random r = new Random(6);
        List<Example> xs = new ArrayList<>();
        for (int k = 0; k < 4; k++) {
            int v = 3000 + k;
            List<Integer> edges = new ArrayList<>();
            for (int i = 0; i + 1 < v; i++) { edges.add(i); edges.add(i + 1); }
            xs.add(general(v, edges, 2, 2, r).build());
        }
        List<org.structlr.graph.FactorGraph> gs = xs.stream().map(x -> x.graph(3, List.of("pairwise"))).toList();
        try (var union = Engines.forBatch(org.structlr.graph.FactorGraph.disjointUnion(gs), Collections.nCopies(4, null), 0.1);
             var alone = Engines.forBatch(gs.get(0), Collections.nCopies(1, null), 0.1)) {
            assertTrue(!Engines.separable(union) && Engines.separable(alone), union.getClass() + " / " + alone.getClass());
        }
        check(m, xs, 60, 1e-6);
    }

    @Test
    void denoisingModelOnItsOwnExamples() {
        CrfModel m = CrfModel.load(Path.of("models/denoise-boost"));
        List<Example> xs = new ArrayList<>(new DenoisingGenerator().generate(1, 3, 20, 24, 5).test());
        check(m, xs, 500, 1e-5);
    }

    @Test
    void separableEngines() {
        Example g = grid(4, 5, 3, 2, 1);
        var graph = g.graph(2, List.of("pairwise"));
        try (var fused = Engines.forBatch(graph, List.of(new int[] {4, 5}), 0.1);
             var loop = Engines.create(graph, 0.1, DataType.FLOAT);
             var nd4j = new org.structlr.inference.nd4j.GraphMessagePassing(graph, org.structlr.graph.Coloring.of(graph), 0.1, DataType.FLOAT)) {
            assertTrue(Engines.separable(fused), fused.getClass().getSimpleName());
            assertTrue(Engines.separable(loop), loop.getClass().getSimpleName());
            assertTrue(!Engines.separable(nd4j));
        }
    }
}
