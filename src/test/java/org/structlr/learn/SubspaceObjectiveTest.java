package org.structlr.learn;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;
import org.junit.jupiter.api.Test;
import org.nd4j.linalg.factory.Nd4j;
import org.structlr.graph.FactorGraph;
import org.structlr.graph.Grids;
import org.structlr.inference.loop.LoopMessagePassing;
import org.structlr.inference.MessagePassing;

/** R on a subspace, computed without an engine, against the engine's own R and finite differences. */
class SubspaceObjectiveTest {
    static final double EPS = 0.1;
    static final int L = 3;
    final FactorGraph g = Grids.grid(3, 4, L, false);
    final int V = g.numVariables(), E = g.numEdges();
    final Random rnd = new Random(7);
    final int[] labels = new int[V], joint = new int[E];
    final float[] tu = gauss(V * L, 1), tp = gauss(E * L * L, 1), msg = gauss(E * 2 * L, 0.5);
    final SubspaceObjective.Direction[] dirs = {
            new SubspaceObjective.Direction(gauss(V * L, 0.3), null, gauss(E * 2 * L, 0.2)),
            new SubspaceObjective.Direction(null, gauss(E * L * L, 0.3), null),
            new SubspaceObjective.Direction(null, null, gauss(E * 2 * L, 0.2))};

    SubspaceObjectiveTest() {
        for (int v = 0; v < V; v++) labels[v] = rnd.nextInt(L);
        for (int e = 0; e < E; e++) joint[e] = labels[g.edgeFrom(e)] * L + labels[g.edgeTo(e)];
        tu[5] = Float.NEGATIVE_INFINITY; // a hard constraint (never the true label)
        if (labels[5 / L] == 5 % L) labels[5 / L] = (5 % L + 1) % L;
        for (int e = 0; e < E; e++) {
            joint[e] = labels[g.edgeFrom(e)] * L + labels[g.edgeTo(e)];
            // as an engine holds them: messages into the impossible label are minus infinity
            if (g.edgeFrom(e) == 5 / L) msg[e * 2 * L + 5 % L] = Float.NEGATIVE_INFINITY;
            if (g.edgeTo(e) == 5 / L) msg[e * 2 * L + L + 5 % L] = Float.NEGATIVE_INFINITY;
        }
    }

    float[] gauss(int n, double sd) {
        float[] a = new float[n];
        for (int i = 0; i < n; i++) a[i] = (float) (sd * rnd.nextGaussian());
        return a;
    }

    SubspaceObjective objective() {
        return new SubspaceObjective(g, L, EPS, labels, joint, tu, tp, msg, dirs);
    }

    /** R = A - F as an engine computes it at x1 + sum_k b_k d_k. */
    double engineR(double[] b) {
        float[] u = tu.clone(), p = tp.clone(), m = msg.clone();
        for (int k = 0; k < dirs.length; k++) {
            add(u, dirs[k].dU(), b[k]);
            add(p, dirs[k].dP(), b[k]);
            add(m, dirs[k].dm(), b[k]);
        }
        try (MessagePassing mp = new LoopMessagePassing(g, EPS)) {
            mp.setPotentials(Nd4j.create(u, new long[] {V, L}, 'c'), Nd4j.create(p, new long[] {E, (long) L * L}, 'c'));
            mp.setMessages(Nd4j.create(m, new long[] {E, 2, L}, 'c'));
            double f = 0;
            for (int v = 0; v < V; v++) f += u[v * L + labels[v]];
            for (int e = 0; e < E; e++) f += p[e * L * L + joint[e]];
            return mp.dual() - f;
        }
    }

    static void add(float[] a, float[] d, double b) {
        if (d == null) return;
        for (int i = 0; i < a.length; i++) a[i] = a[i] == Float.NEGATIVE_INFINITY ? a[i] : (float) (a[i] + b * d[i]);
    }

    @Test
    void valueIsTheEnginesObjectiveAlongTheSubspace() {
        SubspaceObjective s = objective();
        for (double[] b : new double[][] {{0, 0, 0}, {0.5, -1, 2}, {3, 2, -0.5}}) {
            double want = engineR(b);
            assertEquals(want, s.at(b).value(), 1e-4 * Math.abs(want), "R at " + java.util.Arrays.toString(b));
        }
    }

    @Test
    void gradientAndHessianMatchFiniteDifferences() {
        SubspaceObjective s = objective();
        double[] b = {0.3, -0.7, 1.1};
        SubspaceObjective.Eval at = s.at(b);
        double h = 1e-4;
        for (int k = 0; k < 3; k++) {
            double[] p = b.clone(), q = b.clone();
            p[k] += h;
            q[k] -= h;
            SubspaceObjective.Eval ep = s.at(p), eq = s.at(q);
            assertEquals((ep.value() - eq.value()) / (2 * h), at.gradient()[k], 1e-5 * (1 + Math.abs(at.gradient()[k])), "gradient " + k);
            for (int l = 0; l < 3; l++) {
                double fd = (ep.gradient()[l] - eq.gradient()[l]) / (2 * h);
                assertEquals(fd, at.hessian()[k][l], 1e-4 * (1 + Math.abs(fd)), "Hessian " + k + "," + l);
            }
        }
    }

    /** Newton ends at the subspace's minimum: lower than every point of a grid around it, and the gradient vanishes. */
    @Test
    void minimiseFindsTheMinimum() {
        SubspaceObjective s = objective();
        SubspaceObjective.Minimum min = s.minimise(30, 1e-9);
        assertTrue(min.value() < min.valueAtZero(), "no decrease");
        for (double g : s.at(min.b()).gradient()) assertEquals(0, g, 1e-4, "gradient at the minimum");
        for (int k = 0; k < 3; k++) {
            for (double d : new double[] {-0.1, 0.1}) {
                double[] b = min.b().clone();
                b[k] += d;
                assertTrue(s.at(b).value() >= min.value(), "lower point at " + java.util.Arrays.toString(b));
            }
        }
    }
}
