package org.structlr.learn;

import org.structlr.model.Potentials;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.structlr.data.Dataset;
import org.structlr.data.DenoisingGenerator;
import org.structlr.graph.FactorGraph;
import org.structlr.inference.MessagePassing;
import org.structlr.model.ExampleBatch;
import org.structlr.oracle.BiasedLogisticProblem;
import org.structlr.oracle.linear.ConstantScore;
import org.structlr.oracle.linear.LinearOracle;
import org.structlr.oracle.ScoreFunction;

/**
 * The paper's reduction (docs/design.md §1), checked directly: with the messages lambda fixed, the learning
 * objective R(f) = sum_k [ -F(x^k, y^k) + A(lambda^k, theta^k_f) ] of two functions f1, f2 of one
 * factor type differs by exactly eps times the difference of their biased logistic losses,
 * <pre>
 *   R(f1) - R(f2) = eps * ( loss_b(g1) - loss_b(g2) ),   g = f / eps,
 *   unary bias     b_i(y)      = ( Delta_i(y) - sum_{a contains i} lambda_{a->i}(y) ) / eps
 *   pairwise bias  b_a(yi, yj) = ( lambda_{a->i}(yi) + lambda_{a->j}(yj) ) / eps,
 * </pre>
 * with R computed here from its definition in double precision (smoothed dual by log-sum-exp over
 * every region) at messages taken from a real engine, and the bias built as {@link AlternatingLearner}
 * builds it.
 */
class ReductionTest {
    static final double EPS = 0.1;
    static ExampleBatch train;
    static double[][][] messages;   // [E][2][L], double
    static int L;

    @BeforeAll
    static void messagesFromAnEngine() {
        Dataset d = new DenoisingGenerator().generate(2, 1, 6, 7, 3);
        train = new ExampleBatch(d.train(), d.numLabels(), Training.pairTypeNames(d.numPairTypes()));
        L = train.numLabels();
        // Some potentials (a constant unary function, zero pairwise), a few sweeps: nonzero, unconverged messages.
        ScoreFunction u = new ConstantScore(new double[] {0.7, -0.4});
        List<ScoreFunction> pair = new ArrayList<>();
        for (int t = 0; t < train.numPairTypes(); t++) pair.add(new ConstantScore(new double[] {1.5, -0.5, -0.2, 0.9}));
        try (MessagePassing mp = train.newEngine(EPS)) {
            mp.setPotentials(Potentials.unary(train, u, EPS).addi(Potentials.hammingLoss(train)), Potentials.pairwise(train, pair, EPS));
            mp.iterate(3);
            INDArray m = mp.messages().castTo(DataType.DOUBLE);
            int E = train.graph().numEdges();
            messages = new double[E][2][L];
            for (int e = 0; e < E; e++) for (int s = 0; s < 2; s++) for (int y = 0; y < L; y++) messages[e][s][y] = m.getDouble(e, s, y);
            // the engine's own dual agrees with the formula below (float engine: float tolerance)
            double[][] tu = theta(u, train.unaryFeatures(), true);
            double[][][] tp = new double[train.numPairTypes()][][];
            for (int t = 0; t < tp.length; t++) tp[t] = theta(pair.get(t), train.pairFeatures(t), false);
            double ours = dual(tu, pairTheta(tp));
            assertEquals(mp.dual(), ours, 1e-5 * Math.max(1, Math.abs(ours)), "dual at the engine's messages");
        }
        double largest = 0;
        for (double[][] e : messages) for (double[] s : e) for (double v : s) largest = Math.max(largest, Math.abs(v));
        assertTrue(largest > 0.01, "messages must be nonzero for the test to mean anything: " + largest);
    }

    /** eps * g(features) in double, [rows][classes]; unary rows get Delta added when {@code augment}. */
    static double[][] theta(ScoreFunction f, INDArray features, boolean augment) {
        INDArray s = f.scores(features.castTo(DataType.DOUBLE)).castTo(DataType.DOUBLE);
        int n = (int) s.size(0), c = (int) s.size(1);
        int[] y = train.labels();
        double[][] out = new double[n][c];
        for (int i = 0; i < n; i++) {
            for (int k = 0; k < c; k++) out[i][k] = EPS * s.getDouble(i, k) + (augment && k != y[i] ? 1.0 : 0.0);
        }
        return out;
    }

    /** Per-type rows [type][row of that type][L*L] back into edge order [E][L*L]. */
    static double[][] pairTheta(double[][][] byType) {
        double[][] out = new double[train.graph().numEdges()][];
        for (int t = 0; t < byType.length; t++) {
            int[] edges = train.edgesOfType(t);
            for (int r = 0; r < edges.length; r++) out[edges[r]] = byType[t][r];
        }
        return out;
    }

    static double lse(double[] z) {
        double max = Double.NEGATIVE_INFINITY;
        for (double v : z) max = Math.max(max, v);
        double s = 0;
        for (double v : z) s += Math.exp(v - max);
        return max + Math.log(s);
    }

    /** A(lambda, theta) of docs/design.md §1 in double. */
    static double dual(double[][] thetaU, double[][] thetaP) {
        FactorGraph g = train.graph();
        double a = 0;
        double[][] in = new double[g.numVariables()][L];
        for (int e = 0; e < g.numEdges(); e++) {
            int i = g.edgeFrom(e), j = g.edgeTo(e);
            double[] z = new double[L * L];
            for (int yi = 0; yi < L; yi++) {
                for (int yj = 0; yj < L; yj++) z[yi * L + yj] = (thetaP[e][yi * L + yj] + messages[e][0][yi] + messages[e][1][yj]) / EPS;
            }
            a += EPS * lse(z);
            for (int y = 0; y < L; y++) {
                in[i][y] += messages[e][0][y];
                in[j][y] += messages[e][1][y];
            }
        }
        for (int v = 0; v < g.numVariables(); v++) {
            double[] z = new double[L];
            for (int y = 0; y < L; y++) z[y] = (thetaU[v][y] - in[v][y]) / EPS;
            a += EPS * lse(z);
        }
        return a;
    }

    /** R = A(lambda, theta) - F(x, y) (Delta is 0 at the truth), in double. */
    static double objective(double[][] thetaU, double[][] thetaP) {
        int[] y = train.labels();
        int[] joint = train.jointLabels();
        double f = 0;
        for (int v = 0; v < thetaU.length; v++) f += thetaU[v][y[v]];
        for (int e = 0; e < thetaP.length; e++) f += thetaP[e][joint[e]];
        return dual(thetaU, thetaP) - f;
    }

    static final List<ScoreFunction> PAIR = List.of(new ConstantScore(new double[] {0.3, -0.1, 0.2, 0.4}),
            new ConstantScore(new double[] {-0.6, 0.2, 0.5, 0.1}));

    static double[][] pairTheta(List<ScoreFunction> pair) {
        double[][][] tp = new double[train.numPairTypes()][][];
        for (int t = 0; t < tp.length; t++) tp[t] = theta(pair.get(t), train.pairFeatures(t), false);
        return pairTheta(tp);
    }

    @Test
    void unaryObjectiveDifferenceIsEpsTimesLossDifference() {
        // the unary bias as AlternatingLearner builds it: (Delta - incoming message sums) / eps, in double
        int V = train.graph().numVariables();
        double[] bias = new double[V * L];
        INDArray delta = Potentials.hammingLoss(train).castTo(DataType.DOUBLE);
        for (int v = 0; v < V; v++) for (int y = 0; y < L; y++) bias[v * L + y] = delta.getDouble(v, y);
        for (int e = 0; e < train.graph().numEdges(); e++) {
            for (int y = 0; y < L; y++) {
                bias[train.graph().edgeFrom(e) * L + y] -= messages[e][0][y];
                bias[train.graph().edgeTo(e) * L + y] -= messages[e][1][y];
            }
        }
        for (int k = 0; k < bias.length; k++) bias[k] /= EPS;
        BiasedLogisticProblem p = new BiasedLogisticProblem(train.unaryFeatures().castTo(DataType.DOUBLE), train.labels(),
                Nd4j.create(bias, new long[] {V, L}, DataType.DOUBLE), L);
        ScoreFunction f1 = new ConstantScore(new double[] {0.9, -1.3});
        ScoreFunction f2 = new LinearOracle().fit(p, null);   // the oracle's optimum: a different, feature-dependent function
        double[][] tp = pairTheta(PAIR);
        double dR = objective(theta(f1, train.unaryFeatures(), true), tp) - objective(theta(f2, train.unaryFeatures(), true), tp);
        double dLoss = EPS * (p.loss(f1) - p.loss(f2));
        assertTrue(Math.abs(dR) > 0.1, "the two functions must differ in objective: " + dR);
        assertEquals(dLoss, dR, 1e-9 * Math.max(1, Math.abs(dR)));
        // the oracle's function is the better one, in both views
        assertTrue(dR > 0, "R(const) - R(fitted) = " + dR);
    }

    @Test
    void pairwiseObjectiveDifferenceIsEpsTimesLossDifference() {
        ScoreFunction unary = new ConstantScore(new double[] {0.2, -0.3});
        double[][] tu = theta(unary, train.unaryFeatures(), true);
        // bias lambda_{a->i}(yi) + lambda_{a->j}(yj), over L*L joint labels yi*L + yj, divided by eps
        int E = train.graph().numEdges();
        double[] all = new double[E * L * L];
        for (int e = 0; e < E; e++) {
            for (int yi = 0; yi < L; yi++) for (int yj = 0; yj < L; yj++) all[(e * L + yi) * L + yj] = (messages[e][0][yi] + messages[e][1][yj]) / EPS;
        }
        INDArray allBias = Nd4j.create(all, new long[] {E, L * L}, DataType.DOUBLE);

        for (int t = 0; t < train.numPairTypes(); t++) {
            int[] rows = train.edgesOfType(t);
            BiasedLogisticProblem p = new BiasedLogisticProblem(train.pairFeatures(t).castTo(DataType.DOUBLE), train.pairLabels(t),
                    Nd4j.pullRows(allBias, 1, rows), L * L);
            ScoreFunction f1 = new ConstantScore(new double[] {1.1, -0.7, 0.0, 0.6});
            ScoreFunction f2 = new LinearOracle().fit(p, null);
            List<ScoreFunction> with1 = new ArrayList<>(PAIR), with2 = new ArrayList<>(PAIR);
            with1.set(t, f1);
            with2.set(t, f2);
            double dR = objective(tu, pairTheta(with1)) - objective(tu, pairTheta(with2));
            double dLoss = EPS * (p.loss(f1) - p.loss(f2));
            assertTrue(Math.abs(dR) > 0.1, "type " + t + ": the two functions must differ in objective: " + dR);
            assertEquals(dLoss, dR, 1e-9 * Math.max(1, Math.abs(dR)), "type " + t);
        }
    }

    @Test
    void aWrongBiasBreaksTheIdentity() {
        // self-check: with the messages' sign flipped in the bias the identity must fail
        int V = train.graph().numVariables();
        double[] bias = new double[V * L];
        for (int e = 0; e < train.graph().numEdges(); e++) {
            for (int y = 0; y < L; y++) {
                bias[train.graph().edgeFrom(e) * L + y] += messages[e][0][y] / EPS;
                bias[train.graph().edgeTo(e) * L + y] += messages[e][1][y] / EPS;
            }
        }
        BiasedLogisticProblem p = new BiasedLogisticProblem(train.unaryFeatures().castTo(DataType.DOUBLE), train.labels(),
                Nd4j.create(bias, new long[] {V, L}, DataType.DOUBLE), L);
        ScoreFunction f1 = new ConstantScore(new double[] {0.9, -1.3}), f2 = new ConstantScore(new double[] {-0.5, 0.8});
        double[][] tp = pairTheta(PAIR);
        double dR = objective(theta(f1, train.unaryFeatures(), true), tp) - objective(theta(f2, train.unaryFeatures(), true), tp);
        assertTrue(Math.abs(EPS * (p.loss(f1) - p.loss(f2)) - dR) > 1e-3, "a wrong bias must not satisfy the identity");
    }
}
