package org.structlr.learn;

import org.structlr.model.Potentials;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.structlr.data.Dataset;
import org.structlr.data.DenoisingGenerator;
import org.structlr.inference.MessagePassing;
import org.structlr.model.ExampleBatch;
import org.structlr.oracle.BiasedLogisticProblem;
import org.structlr.oracle.FunctionClass;
import org.structlr.oracle.FunctionClasses;
import org.structlr.oracle.Oracle;
import org.structlr.oracle.ScoreFunction;
import org.structlr.schedule.Schedules;

/** Every schedule minimises the same objective; the paper schedule is exactly the paper's Alg. 1. */
class ScheduleLearnerTest {
    static Dataset data;

    @BeforeAll
    static void setUp() {
        data = new DenoisingGenerator().generate(3, 2, 20, 20, 11);
    }

    /**
     * With exact oracles every fit and every sweep is a block-coordinate step on R: R never rises
     * (to 1e-5 relative: the engines' float rounding), under every schedule. The one test of this
     * property (the paper schedule's rows are its first two).
     */
    @ParameterizedTest
    @CsvSource({"paper, const", "paper, linear", "adaptive, const", "adaptive, linear", "adaptive, zero",
            "extrapolate, const", "extrapolate, linear", "extrapolate, zero", "adaptive-extrapolate, linear"})
    void objectiveNeverRisesWithExactOracles(String schedule, String kind) {
        LearnSettings s = new LearnSettings(8, 0.1, 5, 0, 1, 3, schedule);
        String unary = kind.equals("zero") ? "linear" : kind;
        List<IterationRecord> c = Training.train(data, unary, kind, s, 1, LearnListener.NONE).curve();
        for (int k = 1; k < c.size(); k++) {
            double prev = c.get(k - 1).objective(), cur = c.get(k).objective();
            assertTrue(cur <= prev + 1e-5 * Math.abs(prev), schedule + ": objective rose at iteration " + c.get(k).iteration() + ": " + prev + " -> " + cur);
        }
        assertTrue(c.get(c.size() - 1).objective() < c.get(0).objective() - 1e-3, schedule + ": objective did not go down");
    }

    /** The adaptive schedule ends lower than the paper schedule with its minimum sweeps: it passes more where it pays. */
    @Test
    void adaptivePassesMoreThanItsMinimumWhereItPays() {
        LearnSettings paper = new LearnSettings(6, 0.1, 5, 0, 1, 3, Schedules.PAPER);
        double rPaper = last(Training.train(data, "linear", "linear", paper, 1, LearnListener.NONE).curve());
        double rAdaptive = last(Training.train(data, "linear", "linear", paper.withSchedule(Schedules.ADAPTIVE), 1,
                LearnListener.NONE).curve());
        assertTrue(rAdaptive < rPaper, "adaptive R " + rAdaptive + " not below paper R " + rPaper + " after the same fits");
    }

    /** Extrapolation with the same sweeps and fits ends lower than without (it is kept only where R falls). */
    @Test
    void extrapolationEndsLowerThanThePaperSchedule() {
        LearnSettings paper = new LearnSettings(6, 0.1, 5, 0, 1, 3, Schedules.PAPER);
        double rPaper = last(Training.train(data, "linear", "linear", paper, 1, LearnListener.NONE).curve());
        double rExtra = last(Training.train(data, "linear", "linear", paper.withSchedule(Schedules.EXTRAPOLATE), 1,
                LearnListener.NONE).curve());
        assertTrue(rExtra < rPaper, "extrapolate R " + rExtra + " not below paper R " + rPaper);
    }

    /**
     * The paper schedule, bit for bit, is Alg. 1 written out here: fit the unary function to the
     * bias (Delta - incoming messages) / eps, sweeps, fit the pairwise function to the bias
     * (lambda_i + lambda_j) / eps, sweeps; R = A - F.
     */
    @Test
    void paperScheduleIsAlgorithmOne() {
        int iterations = 3, sweeps = 4;
        double eps = 0.1;
        LearnSettings s = new LearnSettings(iterations, eps, sweeps, 0, 1, 5, Schedules.PAPER);
        List<IterationRecord> curve = Training.train(data, "linear", "linear", s, 1, LearnListener.NONE).curve();

        int L = data.numLabels();
        ExampleBatch train = new ExampleBatch(data.train(), L, Training.pairTypeNames(data.numPairTypes()));
        int T = train.numPairTypes();
        FunctionClass linear = FunctionClasses.get("linear");
        Oracle uo = linear.create(new FunctionClass.Context(true, data.unaryDim(), Oracles.seed(s.seed(), Functions.UNARY), 1));
        List<Oracle> po = new java.util.ArrayList<>();
        for (int t = 0; t < T; t++) po.add(linear.create(new FunctionClass.Context(false, data.pairDim(), Oracles.seed(s.seed(), t), 1)));
        INDArray delta = Potentials.hammingLoss(train);
        int[] y = train.labels(), yy = train.jointLabels();
        ScoreFunction u = null;
        List<ScoreFunction> p = new java.util.ArrayList<>(java.util.Collections.nCopies(T, (ScoreFunction) null));
        try (MessagePassing mp = train.newEngine(eps)) {
            INDArray thetaU = Potentials.unary(train, null, eps).addi(delta), thetaP = Potentials.pairwise(train, p, eps);
            mp.setPotentials(thetaU, thetaP);
            for (int it = 1; it <= iterations; it++) {
                INDArray bu = delta.sub(mp.incomingMessageSums().castTo(DataType.FLOAT)).divi(eps);
                u = uo.fit(new BiasedLogisticProblem(train.unaryFeatures(), y, bu, L), u);
                thetaU = Potentials.unary(train, u, eps).addi(delta);
                mp.setPotentials(thetaU, thetaP);
                mp.iterate(sweeps);
                float[] m = mp.messages().castTo(DataType.FLOAT).dup('c').data().asFloat(); // [E, 2, L]
                for (int t = 0; t < T; t++) {
                    int[] edges = train.edgesOfType(t);
                    float[] b = new float[edges.length * L * L];
                    for (int k = 0; k < edges.length; k++) {
                        for (int yi = 0; yi < L; yi++) {
                            for (int yj = 0; yj < L; yj++) b[k * L * L + yi * L + yj] = (m[edges[k] * 2 * L + yi] + m[edges[k] * 2 * L + L + yj]) / (float) eps;
                        }
                    }
                    INDArray bp = org.nd4j.linalg.factory.Nd4j.create(b, new long[] {edges.length, (long) L * L}, 'c');
                    p.set(t, po.get(t).fit(new BiasedLogisticProblem(train.pairFeatures(t), train.pairLabels(t), bp, L * L), p.get(t)));
                }
                thetaP = Potentials.pairwise(train, p, eps);
                mp.setPotentials(thetaU, thetaP);
                mp.iterate(sweeps);
                // R = A - F, F = the potentials at the true labels (Delta is 0 there)
                float[] tu = thetaU.castTo(DataType.FLOAT).dup('c').data().asFloat(), tp = thetaP.castTo(DataType.FLOAT).dup('c').data().asFloat();
                double f = 0;
                for (int v = 0; v < y.length; v++) f += tu[v * L + y[v]];
                for (int e = 0; e < yy.length; e++) f += tp[e * L * L + yy[e]];
                double r = (mp.dual() - f) / train.graph().numVariables();
                assertEquals(r, curve.get(it - 1).objective(), 0.0, "iteration " + it);
                if (!mp.exactState()) mp.setMessages(mp.messages()); // as the learner re-seats such engines
            }
        }
    }

    static double last(List<IterationRecord> c) {
        return c.get(c.size() - 1).objective();
    }
}
