package org.structlr.learn;

import org.structlr.model.Potentials;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.structlr.inference.MessagePassing;
import org.structlr.memory.NativeMemory;
import org.structlr.model.ExampleBatch;
import org.structlr.oracle.BiasedLogisticProblem;
import org.structlr.oracle.Oracle;
import org.structlr.oracle.ScoreFunction;
import org.structlr.schedule.Schedule;

/**
 * Learning by alternating oracle fits with warm-started message passing (the paper's Alg. 1):
 * each iteration fits every unary type, passes messages on every training example, fits every
 * pairwise type, and passes messages again; how many sweeps follow each fit, whether fits are
 * bounded and whether the iteration ends with an extrapolation step is the {@link Schedule}'s choice
 * (the paper's: {@code sweepsPerFit} sweeps, exact fits, no extrapolation). Messages persist across iterations,
 * so learning and inference are optimised jointly; nothing is run to convergence inside. Every
 * {@link LearnSettings#evalEvery}-th iteration (and the first and last) is then evaluated: the
 * objective and, with warm-started prediction engines, the train and test errors (one curve row).
 * Evaluation reads the learner's state but never changes it, so the functions learned do not
 * depend on how often it runs.
 *
 * <p>The oracle step (docs/design.md §1): with the messages fixed, minimising the objective over one type's
 * function is a logistic regression whose rows carry the bias b = c / eps, with
 * c_i(y) = Delta_i(y) - sum_a lambda_{a->i}(y) for unary rows and
 * c_a(y_i, y_j) = lambda_{a->i}(y_i) + lambda_{a->j}(y_j) for pairwise rows.
 */
public final class AlternatingLearner {
    private final LearnSettings settings;
    private final Oracle unaryOracle;
    private final List<Oracle> pairOracles;

    /** One oracle per pairwise type (in the batch's type order). */
    public AlternatingLearner(LearnSettings settings, Oracle unaryOracle, List<Oracle> pairOracles) {
        this.settings = settings;
        this.unaryOracle = unaryOracle;
        this.pairOracles = List.copyOf(pairOracles);
    }

    /**
     * The functions learned, the curve of the run (evaluated iterations only), and where the time
     * went: oracle fits (including the potentials they produce), training message passing, and the
     * evaluation (objective, and prediction sweeps on train and test).
     */
    public record Result(ScoreFunction unary, List<ScoreFunction> pair, List<IterationRecord> curve,
                         double fitSeconds, double passingSeconds, double evalSeconds) {}

    public Result train(ExampleBatch train, ExampleBatch test, LearnListener listener) {
        return train(train, test, null, listener, StateSink.NONE);
    }

    /**
     * Runs iterations {@code from.iteration() + 1 .. settings.iterations()} (all of them when
     * {@code from} is null), handing {@code sink} the state after every iteration it wants.
     *
     * <p>Exact continuation: the state between iterations is each engine's exact state
     * ({@link MessagePassing#state()}), which a resumed run puts back with {@code setState}. An
     * engine that does not implement its own exact state falls back to the interface's default,
     * the messages in the units of the potentials; that round trip is not exact in floating point
     * for an engine that stores them scaled, so such an engine is re-seated
     * ({@code setMessages(messages())}) after every iteration that changed it, as a resumed run
     * will be. An uninterrupted run and a run resumed from any iteration then start the next
     * iteration from the same bits.
     */
    public Result train(ExampleBatch train, ExampleBatch test, LearnerState from, LearnListener listener, StateSink sink) {
        if (!train.hasLabels()) throw new IllegalArgumentException("training examples must carry labels");
        if (pairOracles.size() != train.numPairTypes()) {
            throw new IllegalArgumentException(pairOracles.size() + " pairwise oracles for " + train.numPairTypes() + " pairwise types");
        }
        if (from != null && from.iteration() > settings.iterations()) {
            throw new IllegalArgumentException("cannot continue from iteration " + from.iteration() + " to " + settings.iterations());
        }
        if (from != null && from.pair().size() != train.numPairTypes()) {
            throw new IllegalArgumentException("the state has " + from.pair().size() + " pairwise functions for " + train.numPairTypes() + " types");
        }
        double eps = settings.eps();
        int L = train.numLabels();
        Targets truth = new Targets(train);
        INDArray delta = Potentials.hammingLoss(train);

        ScoreFunction unary = from == null ? null : from.unary();
        List<ScoreFunction> pair = from == null ? new ArrayList<>(Collections.nCopies(truth.numPairTypes(), null)) : new ArrayList<>(from.pair());
        List<IterationRecord> curve = from == null ? new ArrayList<>() : new ArrayList<>(from.curve());
        long fitNs = from == null ? 0 : Math.round(from.fitSeconds() * 1e9);
        long passNs = from == null ? 0 : Math.round(from.passingSeconds() * 1e9);
        long evalNs = from == null ? 0 : Math.round(from.evalSeconds() * 1e9);
        long start = System.nanoTime() - (from == null ? 0 : Math.round(from.seconds() * 1e9));
        Schedule schedule = settings.newSchedule();
        try (MessagePassing mp = train.newEngine(eps);
             MessagePassing trainEval = settings.evalSweeps() > 0 ? train.newEngine(eps) : null;
             MessagePassing testEval = test != null && settings.evalSweeps() > 0 ? test.newEngine(eps) : null) {
            boolean reseatTrain = !ownsExactState(mp);
            INDArray thetaU0 = Potentials.unary(train, unary, eps);                 // eps * g_unary, without the loss
            INDArray thetaU = thetaU0.add(delta);
            INDArray thetaP = Potentials.pairwise(train, pair, eps);
            mp.setPotentials(thetaU, thetaP);
            if (from != null) {
                from.train().restoreInto(mp);
                // The evaluation engines: the current functions' potentials, then their saved state.
                if (trainEval != null) restore(trainEval, thetaU0, thetaP, from.trainEval(), "training-set evaluation");
                if (testEval != null) restore(testEval, Potentials.unary(test, unary, eps), Potentials.pairwise(test, pair, eps),
                        from.testEval(), "test-set evaluation");
            }
            for (int it = from == null ? 1 : from.iteration() + 1; it <= settings.iterations(); it++) {
                // Unary oracle: bias (Delta - sum of incoming messages) / eps.
                long t0 = System.nanoTime();
                Extrapolation.Point iterationStart = schedule.extrapolates()
                        ? new Extrapolation.Point(unary, new ArrayList<>(pair), mp.messages(), thetaU, thetaP) : null;
                int budget = schedule.fitIterations(it);
                double before = schedule.needsFitGain() ? objective(mp, truth, thetaU, thetaP) : Double.NaN;
                INDArray biasU = truth.unaryBias(flat(mp.incomingMessageSums()), eps);
                // withImages places the rows in the batch's images (for whole-image functions; null layout: unchanged problem)
                unary = limited(unaryOracle, budget).fit(new BiasedLogisticProblem(train.unaryFeatures(), truth.labels, biasU, L)
                        .withImages(train.imageRows(-1)), unary);
                NativeMemory.release();   // native buffers the fit left behind, back to the OS (see NativeMemory)
                thetaU0 = Potentials.unary(train, unary, eps);
                thetaU = thetaU0.add(delta);
                mp.setPotentials(thetaU, thetaP);
                double gain = schedule.needsFitGain() ? before - objective(mp, truth, thetaU, thetaP) : Double.NaN;
                long t1 = System.nanoTime();
                schedule.passAfterFit(mp, new Schedule.Fit(it, false, gain));
                long t2 = System.nanoTime();

                // Pairwise oracles: bias (lambda_{a->i}(y_i) + lambda_{a->j}(y_j)) / eps.
                before = schedule.needsFitGain() ? objective(mp, truth, thetaU, thetaP) : Double.NaN;
                float[] messages = flat(mp.messages());
                for (int t = 0; t < truth.numPairTypes(); t++) {
                    INDArray biasP = truth.pairBias(messages, t, eps);
                    pair.set(t, limited(pairOracles.get(t), budget).fit(new BiasedLogisticProblem(train.pairFeatures(t), truth.pairLabels[t], biasP, L * L)
                            .withImages(train.imageRows(t)), pair.get(t)));
                }
                NativeMemory.release();
                thetaP = Potentials.pairwise(train, pair, eps);
                mp.setPotentials(thetaU, thetaP);
                gain = schedule.needsFitGain() ? before - objective(mp, truth, thetaU, thetaP) : Double.NaN;
                long t3 = System.nanoTime();
                schedule.passAfterFit(mp, new Schedule.Fit(it, true, gain));
                if (iterationStart != null) {
                    // a step along this iteration's displacement, kept only where R falls (Extrapolation)
                    Extrapolation.Outcome x = Extrapolation.step(mp, train, eps, delta, iterationStart,
                            new Extrapolation.Point(unary, new ArrayList<>(pair), mp.messages(), thetaU, thetaP),
                            objective(mp, truth, thetaU, thetaP), (u, p) -> objective(mp, truth, u, p));
                    unary = x.unary();
                    pair = new ArrayList<>(x.pair());
                    if (x.thetaU0() != null) thetaU0 = x.thetaU0();
                    thetaU = x.thetaU();
                    thetaP = x.thetaP();
                }
                if (reseatTrain) reseat(mp);
                long t4 = System.nanoTime();
                fitNs += (t1 - t0) + (t3 - t2);
                passNs += (t2 - t1) + (t4 - t3); // with the schedule's dual evaluations and extrapolation

                if (settings.evaluates(it)) {
                    // R = sum_k [ -F(x^k, y^k) + A(lambda^k, theta^k) ] per variable; Delta is 0 at the truth.
                    double objective = objective(mp, truth, thetaU, thetaP) / train.graph().numVariables();
                    double trainErr = Double.NaN, testErr = Double.NaN;
                    if (trainEval != null) {
                        trainEval.setPotentials(thetaU0, thetaP);
                        trainEval.iterate(settings.evalSweeps());
                        trainErr = Potentials.error(train, trainEval.decode());
                        if (!ownsExactState(trainEval)) reseat(trainEval);
                    }
                    if (testEval != null) {
                        testEval.setPotentials(Potentials.unary(test, unary, eps), Potentials.pairwise(test, pair, eps));
                        testEval.iterate(settings.evalSweeps());
                        if (test.hasLabels()) testErr = Potentials.error(test, testEval.decode());
                        if (!ownsExactState(testEval)) reseat(testEval);
                    }
                    curve.add(new IterationRecord(it, objective, trainErr, testErr, (System.nanoTime() - start) / 1e9, (fitNs + passNs) / 1e9));
                }
                evalNs += System.nanoTime() - t4;
                if (sink.wants(it, settings.iterations())) {
                    try {
                        sink.accept(new LearnerState(it, unary, pair, EngineState.of(mp),
                                trainEval == null ? null : EngineState.of(trainEval), testEval == null ? null : EngineState.of(testEval),
                                curve, (System.nanoTime() - start) / 1e9, fitNs / 1e9, passNs / 1e9, evalNs / 1e9));
                    } catch (IOException e) {
                        throw new UncheckedIOException("cannot save the learner's state after iteration " + it + ": " + e.getMessage(), e);
                    }
                }
                listener.onProgress(it, settings.iterations());
                if (settings.evaluates(it)) listener.onIteration(curve.get(curve.size() - 1), settings.iterations());
            }
        }
        return new Result(unary, pair, curve, fitNs / 1e9, passNs / 1e9, evalNs / 1e9);
    }

    /** R = A(lambda, theta) - F(x, y), summed over the training examples (Delta is 0 at the truth). */
    private static double objective(MessagePassing mp, Targets truth, INDArray thetaU, INDArray thetaP) {
        return mp.dual() - truth.score(thetaU, thetaP);
    }

    /** The oracle with the schedule's bound on its iterations, if it has any and the schedule sets one. */
    private static Oracle limited(Oracle o, int iterations) {
        return iterations > 0 && o instanceof org.structlr.oracle.IterativeOracle io ? io.limitedTo(iterations) : o;
    }

    private static void restore(MessagePassing engine, INDArray unaryPot, INDArray pairPot, EngineState saved, String what) {
        engine.setPotentials(unaryPot, pairPot);
        if (saved == null) throw new IllegalArgumentException("the state lacks the messages of the " + what);
        saved.restoreInto(engine);
    }

    /**
     * Whether the engine implements {@link MessagePassing#state()} itself (its exact state). The
     * interface's default goes through {@code messages()}: the engine must then be re-seated to
     * make its continuation equal a resumed one. Asked of the class because the interface has no
     * other way to say it, and adding one belongs to the engines' owners.
     */
    static boolean ownsExactState(MessagePassing engine) {
        try {
            return !engine.getClass().getMethod("state").getDeclaringClass().isInterface();
        } catch (NoSuchMethodException e) {
            throw new AssertionError(e);
        }
    }

    /** Sets the engine's messages back into it: afterwards it holds what a resumed engine holds. */
    private static void reseat(MessagePassing engine) {
        engine.setMessages(engine.messages());
    }

    /** A row-major float copy of any array. */
    static float[] flat(INDArray a) {
        INDArray f = a.dataType() == DataType.FLOAT ? a : a.castTo(DataType.FLOAT);
        if (f.ordering() != 'c' || f.isView() || f.data().length() != f.length()) f = f.dup('c');
        return f.data().asFloat();
    }

    /**
     * The training truth in the forms the loop reads every iteration, built once: labels, the
     * joint labels of every pairwise type and its edges (in the type's row order).
     */
    private static final class Targets {
        final int L;
        final int[] labels;          // [V]
        final int[] jointLabels;     // [E], y_i * L + y_j
        final int[][] pairLabels;    // per type, in the type's edge order
        final int[][] edgesOfType;   // per type: edge indices

        Targets(ExampleBatch b) {
            L = b.numLabels();
            labels = b.labels();
            jointLabels = b.jointLabels();
            int types = b.numPairTypes();
            pairLabels = new int[types][];
            edgesOfType = new int[types][];
            for (int t = 0; t < types; t++) {
                pairLabels[t] = b.pairLabels(t);
                edgesOfType[t] = b.edgesOfType(t);
            }
        }

        int numPairTypes() {
            return pairLabels.length;
        }

        /** [V, L]: b_i(y) = (Delta_i(y) - sum_a lambda_{a->i}(y)) / eps, Delta_i(y) = [y != y_i]. */
        INDArray unaryBias(float[] incoming, double eps) {
            float e = (float) eps;
            float[] b = new float[incoming.length];
            for (int v = 0; v < labels.length; v++) {
                for (int y = 0, o = v * L; y < L; y++) b[o + y] = ((y == labels[v] ? 0f : 1f) - incoming[o + y]) / e;
            }
            return Nd4j.create(b, new long[] {labels.length, L}, 'c');
        }

        /** [E_t, L*L] for the edges of type t: b_a(y_i, y_j) = (lambda_{a->i}(y_i) + lambda_{a->j}(y_j)) / eps from messages [E, 2, L]. */
        INDArray pairBias(float[] messages, int type, double eps) {
            float e = (float) eps;
            int[] edges = edgesOfType[type];
            float[] b = new float[edges.length * L * L];
            for (int k = 0; k < edges.length; k++) {
                int m = edges[k] * 2 * L, o = k * L * L;
                for (int yi = 0; yi < L; yi++) {
                    for (int yj = 0; yj < L; yj++) b[o + yi * L + yj] = (messages[m + yi] + messages[m + L + yj]) / e;
                }
            }
            return Nd4j.create(b, new long[] {edges.length, (long) L * L}, 'c');
        }

        /** F(x, y) = sum_i theta_i(y_i) + sum_a theta_a(y_a) at the true labels. */
        double score(INDArray thetaU, INDArray thetaP) {
            float[] u = flat(thetaU), p = flat(thetaP);
            double f = 0;
            for (int v = 0; v < labels.length; v++) f += u[v * L + labels[v]];
            int LL = L * L;
            for (int e = 0; e < jointLabels.length; e++) f += p[e * LL + jointLabels[e]];
            return f;
        }
    }
}
