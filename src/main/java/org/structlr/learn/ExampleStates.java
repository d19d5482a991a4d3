package org.structlr.learn;

import org.structlr.oracle.Oracle;
import org.structlr.oracle.ScoreFunction;
import org.structlr.schedule.Schedule;

/**
 * Where the learner's examples and their message-passing engines live, and the operations the one
 * learning loop ({@link AlternatingLearner}) runs on them: one machine's batch ({@link BatchStates})
 * or Spark partitions (the {@code -Pspark} build's {@code spark.PartitionStates}, which runs
 * {@link BatchStates} on each partition and adds the partitions' numbers in partition order).
 *
 * <p>It holds the training engine (potentials of the current functions with the Hamming loss
 * augmentation, docs/design.md §1), and when asked for evaluation the warm-started prediction engines of
 * the training and test sets (potentials without the loss). The loop holds only functions and
 * scalars: everything proportional to the data stays here.
 *
 * <p>Factor types: {@link Functions#UNARY} and pairwise types 0..T-1.
 */
public interface ExampleStates extends Schedule.Passing, AutoCloseable {

    /** Training variables (the objective is reported per variable). */
    long numTrainVariables();

    /** Test variables (0 without a test set): with the training ones, what an evaluation's sweeps cost. */
    long numTestVariables();

    /**
     * Puts the engines at the start of learning: potentials of {@code functions}, and the messages
     * of {@code from} (null: a fresh start, all messages zero).
     *
     * @throws IllegalArgumentException when {@code from} lacks an engine these states have
     */
    void start(Functions functions, Engines from);

    /**
     * The oracle step for one factor type at the current messages: {@code oracle} fits the biased
     * logistic problem of the type's rows (unary bias (Delta - incoming) / eps, pairwise bias
     * (lambda_i + lambda_j) / eps), wherever the rows are, warm-started from {@code previous}.
     */
    ScoreFunction fit(int type, Oracle oracle, ScoreFunction previous);

    /** The training engine's potentials from these functions; the messages stay (warm start). */
    void setFunctions(Functions functions);

    /** R = sum_k [A(lambda^k, theta^k) - F(x^k, y^k)] at the current functions and messages, summed. */
    double objective();

    /**
     * The warm-started prediction engines: potentials of the current functions (no loss), then
     * {@code sweeps} sweeps from where the previous evaluation left them, and the decoded labels'
     * errors. Learning never reads these engines, so the functions learned do not depend on it.
     */
    Errors evaluate(int sweeps);

    /** Called after every iteration's learning, before its evaluation (one machine: re-seats an inexact engine). */
    void endIteration(int iteration);

    /** The engines' states now (exact where the engine has one, and messages), for checkpoints. */
    Engines states();

    /** Keeps the current messages as the start x0 of this iteration's extrapolation line. */
    void markLineStart();

    /**
     * The line x1 + beta (x1 - x0) from the messages of {@link #markLineStart} and the potentials of
     * {@code x0} to the current point x1 (whose functions are the current ones): the unary and
     * pairwise potentials move where asked, the messages when every one of them is finite at both
     * ends. Null when nothing moves or a displacement is not finite.
     */
    Line line(Functions x0, boolean moveUnary, boolean movePair);

    @Override
    void close();

    /** R restricted to an extrapolation line, and the moves along it ({@link Extrapolation}). */
    interface Line {
        /** R(x1 + b d), its gradient and Hessian in b (one coefficient), summed over the training examples. */
        SubspaceObjective.Eval at(double[] b);

        /** Puts the engine at x1 + beta d: the potentials of {@code atBeta} (the functions there) where they move. */
        void moveTo(double beta, Functions atBeta);

        /** Back to x1 after {@link #moveTo}: its potentials and messages. */
        void undo();

        /** Frees what the line holds (at the end of the step). */
        default void release() {}
    }

    /**
     * The engines' states: training, training-set evaluation, test-set evaluation, and the clamped
     * problem's of the clamped void form ({@link ClampedRows}) (null where there is none).
     */
    record Engines(EngineState train, EngineState trainEval, EngineState testEval, EngineState clamped) implements java.io.Serializable {
        /** Without a clamped engine. */
        public Engines(EngineState train, EngineState trainEval, EngineState testEval) {
            this(train, trainEval, testEval, null);
        }
    }

    /** Wrong labels and labelled variables of an evaluation, summed over examples. */
    record Errors(long trainWrong, long trainVariables, long testWrong, long testVariables) implements java.io.Serializable {
        public static final Errors NONE = new Errors(0, 0, 0, 0);

        /** Fraction of wrong training labels; NaN when none were evaluated. */
        public double trainError() {
            return trainVariables == 0 ? Double.NaN : (double) trainWrong / trainVariables;
        }

        /** Fraction of wrong test labels; NaN when none were evaluated. */
        public double testError() {
            return testVariables == 0 ? Double.NaN : (double) testWrong / testVariables;
        }

        public Errors plus(Errors o) {
            return new Errors(trainWrong + o.trainWrong, trainVariables + o.trainVariables, testWrong + o.testWrong, testVariables + o.testVariables);
        }
    }
}
