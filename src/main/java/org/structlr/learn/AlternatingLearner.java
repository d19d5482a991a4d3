package org.structlr.learn;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.indexing.NDArrayIndex;
import org.structlr.inference.MessagePassing;
import org.structlr.model.ExampleBatch;
import org.structlr.oracle.BiasedLogisticProblem;
import org.structlr.oracle.Oracle;
import org.structlr.oracle.ScoreFunction;

/**
 * Learning by alternating oracle fits with warm-started message passing (the paper's Alg. 1):
 * each iteration fits every unary type, runs {@code sweepsPerFit} sweeps on every training example,
 * fits every pairwise type, and runs {@code sweepsPerFit} more. Messages persist across iterations,
 * so learning and inference are optimised jointly; nothing is run to convergence inside.
 *
 * <p>The oracle step (DESIGN §1): with the messages fixed, minimising the objective over one type's
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
     * The functions learned, the curve of the run, and where the time went: oracle fits (including
     * the potentials they produce), training message passing, and the evaluation (objective, and
     * prediction sweeps on train and test).
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
     * <p>Exact continuation: the state between iterations is the messages in the units of the
     * potentials ({@link MessagePassing#messages()}), which an engine stores in its own scaled layout;
     * that round trip is not exact in floating point, so every engine's messages are re-seated
     * ({@code setMessages(messages())}) at the end of every iteration, checkpointed or not. An
     * uninterrupted run and a run resumed from any iteration then start the next iteration from the
     * same bits.
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
        INDArray delta = train.hammingLoss();
        INDArray trueUnary = oneHot(train.labels(), L);                       // [V, L]
        int[] trueLabels = train.labels();
        int numPairTypes = train.numPairTypes();
        int[][] pairLabels = new int[numPairTypes][];
        for (int t = 0; t < numPairTypes; t++) pairLabels[t] = train.pairLabels(t);
        INDArray truePair = oneHot(train.jointLabels(), L * L);                 // [E, L*L]

        ScoreFunction unary = from == null ? null : from.unary();
        List<ScoreFunction> pair = from == null ? new ArrayList<>(Collections.nCopies(numPairTypes, null)) : new ArrayList<>(from.pair());
        List<IterationRecord> curve = from == null ? new ArrayList<>() : new ArrayList<>(from.curve());
        long fitNs = from == null ? 0 : Math.round(from.fitSeconds() * 1e9);
        long passNs = from == null ? 0 : Math.round(from.passingSeconds() * 1e9);
        long evalNs = from == null ? 0 : Math.round(from.evalSeconds() * 1e9);
        long start = System.nanoTime() - (from == null ? 0 : Math.round(from.seconds() * 1e9));
        try (MessagePassing mp = train.newEngine(eps);
             MessagePassing trainEval = settings.evalSweeps() > 0 ? train.newEngine(eps) : null;
             MessagePassing testEval = test != null && settings.evalSweeps() > 0 ? test.newEngine(eps) : null) {
            INDArray thetaU = train.unaryPotentials(unary, eps).addi(delta);
            INDArray thetaP = train.pairPotentials(pair, eps);
            mp.setPotentials(thetaU, thetaP);
            if (from != null) {
                mp.setMessages(from.trainMessages());
                // The evaluation engines as the last iteration left them: its potentials, then its messages.
                if (trainEval != null) restore(trainEval, thetaU.sub(delta), thetaP, from.trainEvalMessages(), "training-set evaluation");
                if (testEval != null) restore(testEval, test.unaryPotentials(unary, eps), test.pairPotentials(pair, eps),
                        from.testEvalMessages(), "test-set evaluation");
            }
            for (int it = from == null ? 1 : from.iteration() + 1; it <= settings.iterations(); it++) {
                // Unary oracle: bias (Delta - sum of incoming messages) / eps.
                long t0 = System.nanoTime();
                INDArray biasU = delta.sub(mp.incomingMessageSums().castTo(DataType.FLOAT)).divi(eps);
                // fcn: withImages places the rows in the batch's images (null layout: unchanged problem).
                unary = unaryOracle.fit(new BiasedLogisticProblem(train.unaryFeatures(), trueLabels, biasU, L)
                        .withImages(train.imageRows(-1)), unary);
                thetaU = train.unaryPotentials(unary, eps).addi(delta);
                mp.setPotentials(thetaU, thetaP);
                long t1 = System.nanoTime();
                mp.iterate(settings.sweepsPerFit());
                long t2 = System.nanoTime();

                // Pairwise oracles: bias (lambda_{a->i}(y_i) + lambda_{a->j}(y_j)) / eps.
                INDArray biasP = pairBias(mp.messages().castTo(DataType.FLOAT), L).divi(eps);
                for (int t = 0; t < numPairTypes; t++) {
                    INDArray rows = numPairTypes == 1 ? biasP : Nd4j.pullRows(biasP, 1, train.edgesOfType(t));
                    pair.set(t, pairOracles.get(t).fit(new BiasedLogisticProblem(train.pairFeatures(t), pairLabels[t], rows, L * L)
                            .withImages(train.imageRows(t)), pair.get(t)));   // fcn: as above
                }
                thetaP = train.pairPotentials(pair, eps);
                mp.setPotentials(thetaU, thetaP);
                long t3 = System.nanoTime();
                mp.iterate(settings.sweepsPerFit());
                long t4 = System.nanoTime();
                fitNs += (t1 - t0) + (t3 - t2);
                passNs += (t2 - t1) + (t4 - t3);

                // R = sum_k [ -F(x^k, y^k) + A(lambda^k, theta^k) ] per variable; Delta is 0 at the truth.
                double f = thetaU.mul(trueUnary).sumNumber().doubleValue() + thetaP.mul(truePair).sumNumber().doubleValue();
                double objective = (mp.dual() - f) / train.graph().numVariables();
                double trainErr = Double.NaN, testErr = Double.NaN;
                if (trainEval != null) {
                    trainEval.setPotentials(thetaU.sub(delta), thetaP);
                    trainEval.iterate(settings.evalSweeps());
                    trainErr = train.error(trainEval.decode());
                }
                if (testEval != null) {
                    testEval.setPotentials(test.unaryPotentials(unary, eps), test.pairPotentials(pair, eps));
                    testEval.iterate(settings.evalSweeps());
                    if (test.hasLabels()) testErr = test.error(testEval.decode());
                }
                // The iteration's end state, exactly as a resumed run will see it (see the method comment).
                INDArray mTrain = reseat(mp), mTrainEval = reseat(trainEval), mTestEval = reseat(testEval);
                evalNs += System.nanoTime() - t4;
                IterationRecord rec = new IterationRecord(it, objective, trainErr, testErr, (System.nanoTime() - start) / 1e9);
                curve.add(rec);
                if (sink.wants(it, settings.iterations())) {
                    try {
                        sink.accept(new LearnerState(it, unary, pair, mTrain, mTrainEval, mTestEval, curve,
                                fitNs / 1e9, passNs / 1e9, evalNs / 1e9));
                    } catch (IOException e) {
                        throw new UncheckedIOException("cannot save the learner's state after iteration " + it + ": " + e.getMessage(), e);
                    }
                }
                listener.onIteration(rec, settings.iterations());
            }
        }
        return new Result(unary, pair, curve, fitNs / 1e9, passNs / 1e9, evalNs / 1e9);
    }

    private static void restore(MessagePassing engine, INDArray unaryPot, INDArray pairPot, INDArray messages, String what) {
        engine.setPotentials(unaryPot, pairPot);
        if (messages == null) throw new IllegalArgumentException("the state lacks the messages of the " + what);
        engine.setMessages(messages);
    }

    /** The engine's messages, set back into it: the state from which the next iteration starts. Null for no engine. */
    private static INDArray reseat(MessagePassing engine) {
        if (engine == null) return null;
        INDArray m = engine.messages();
        engine.setMessages(m);
        return m;
    }

    /** [E, L*L]: lambda_{a->i}(y_i) + lambda_{a->j}(y_j) from messages [E, 2, L]. */
    static INDArray pairBias(INDArray messages, int L) {
        long E = messages.size(0);
        INDArray toI = messages.get(NDArrayIndex.all(), NDArrayIndex.point(0), NDArrayIndex.all()).reshape(E, L, 1);
        INDArray toJ = messages.get(NDArrayIndex.all(), NDArrayIndex.point(1), NDArrayIndex.all()).reshape(E, 1, L);
        return toI.broadcast(E, L, L).add(toJ.broadcast(E, L, L)).reshape(E, (long) L * L);
    }

    static INDArray oneHot(int[] labels, int classes) {
        float[] data = new float[labels.length * classes];
        for (int k = 0; k < labels.length; k++) data[k * classes + labels[k]] = 1f;
        return Nd4j.create(data, new long[] {labels.length, classes}, DataType.FLOAT);
    }
}
