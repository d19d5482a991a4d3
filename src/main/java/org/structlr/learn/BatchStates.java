package org.structlr.learn;

import java.io.Serializable;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.structlr.inference.MessagePassing;
import org.structlr.inference.engines.EngineChoice;
import org.structlr.model.ExampleBatch;
import org.structlr.model.Potentials;
import org.structlr.oracle.BiasedLogisticProblem;
import org.structlr.oracle.Oracle;
import org.structlr.oracle.ScoreFunction;

/**
 * The examples of one machine as batches (training, and test for the evaluation) with their engines
 * alive between calls: the {@link ExampleStates} of a run without Spark, and of one Spark partition
 * inside a stage (built from a {@link Snapshot}, see {@link #restore}). Either batch may be absent:
 * a Spark test partition has no training batch, a run without test examples no test batch.
 *
 * <p>Per iteration, the potentials, the biases and F are ND4J ops on the engines' arrays
 * ({@link Targets}); what crosses to the host: the scalars (dual, F), the decoded labels of an
 * evaluation, and with an extrapolating schedule the flat copies {@link SubspaceObjective} reads.
 * Region factors ({@link org.structlr.model.RegionLayout}) are the exception: their potentials and
 * oracle biases are built on the host (a region's variables need not be neighbours in any array).
 *
 * <p>Exact continuation: an engine without an exact state ({@link MessagePassing#exactState()}) is
 * re-seated ({@code setMessages(messages())}) after every iteration that changed it, as a run
 * resumed through its messages is; an uninterrupted run and a resumed one then start the next
 * iteration from the same bits.
 *
 * <p>Void labels in the clamped form ({@link Targets#clamps}, {@link ClampedRows}): a fourth engine, on
 * the training batch's clamped problem (the same potentials without the loss, the observed labels
 * fixed), swept with the training engine; the oracle rows' targets are its beliefs and the objective
 * is the training engine's dual minus its dual; its state is the fourth of {@link #states}.
 */
public final class BatchStates implements ExampleStates {
    private final ExampleBatch train, test;
    private final Targets truth;
    private final double eps;
    private final int L;
    private final MessagePassing mp, trainEval, testEval;
    private final MessagePassing clamped;         // the clamped problem's engine (clamped form with void), else null
    private Functions current;
    private INDArray thetaU0, thetaU, thetaP;     // training potentials: eps g_unary, (void rows zero) + Delta, eps g_pair (void edges zero)
    private INDArray thetaPAll;                   // eps g_pair on every edge (what prediction uses; = thetaP without void)
    private INDArray thetaUClamped;               // the clamped problem's unary potentials (eps g_unary, observed labels fixed), or null
    private INDArray pairBias;                    // the pairwise bias while the messages do not change, else null
    private INDArray thetaR;                      // training region potentials, eps g_region as the flat region layout (simple form: regions touching void zero), or null without regions
    private INDArray thetaRAll;                   // eps g_region on every region (what prediction and the clamped problem use), or null
    private INDArray regionMessages;              // the region messages while they do not change, else null
    private INDArray lineStart;                   // x0's messages of the current line, or null

    /**
     * @param train      training examples (with labels), or null
     * @param truth      {@link Targets#of} the training batch (kept by the caller to build it once), or null without one
     * @param test       test examples, or null
     * @param evaluation whether to keep the warm-started prediction engines ({@link #evaluate})
     * @param engine     the inference engine of all three ({@code --engine}; {@link EngineChoice#AUTO}: Engines' choice)
     */
    public BatchStates(ExampleBatch train, Targets truth, ExampleBatch test, double eps, boolean evaluation, EngineChoice engine) {
        if (train != null && !train.hasLabels()) throw new IllegalArgumentException("training examples must carry labels");
        if ((train == null) != (truth == null)) throw new IllegalArgumentException("the training batch and its targets go together");
        this.train = train;
        this.test = test;
        this.truth = truth;
        this.eps = eps;
        this.L = train != null ? train.numLabels() : test.numLabels();
        this.mp = train == null ? null : train.newEngine(eps, engine);
        this.trainEval = train != null && evaluation ? train.newEngine(eps, engine) : null;
        this.testEval = test != null && evaluation ? test.newEngine(eps, engine) : null;
        this.clamped = truth != null && truth.clamps() ? train.newEngine(eps, engine) : null;
    }

    /** As {@link #BatchStates(ExampleBatch, Targets, ExampleBatch, double, boolean, EngineChoice)} on Engines' own choice. */
    public BatchStates(ExampleBatch train, Targets truth, ExampleBatch test, double eps, boolean evaluation) {
        this(train, truth, test, eps, evaluation, EngineChoice.AUTO);
    }

    /** One machine's states of a training batch (and test batch, may be null) on the engine {@code engine} names; void labels in the simple form. */
    public BatchStates(ExampleBatch train, ExampleBatch test, double eps, boolean evaluation, EngineChoice engine) {
        this(train, Targets.of(train), test, eps, evaluation, engine);
    }

    @Override
    public long numTrainVariables() {
        return train == null ? 0 : train.graph().numVariables();
    }

    @Override
    public long numTestVariables() {
        return test == null ? 0 : test.graph().numVariables();
    }

    @Override
    public void start(Functions functions, Engines from) {
        setTraining(functions);
        if (mp != null) setPotentials(mp, thetaU, thetaP, thetaR);
        if (clamped != null) setPotentials(clamped, thetaUClamped, thetaPAll, thetaRAll);
        if (from == null) return;
        if (clamped != null) {
            if (from.clamped() == null) throw new IllegalArgumentException("the state lacks the clamped engine's messages (--void-form clamped)");
            from.clamped().restoreInto(clamped);
        }
        if (mp != null) {
            if (from.train() == null) throw new IllegalArgumentException("the state lacks the training engine's messages");
            from.train().restoreInto(mp);
        }
        // the evaluation engines: the current functions' potentials, then their saved state
        if (trainEval != null) restore(trainEval, thetaU0, thetaPAll, thetaRAll, from.trainEval(), "training-set evaluation");
        if (testEval != null) restore(testEval, Potentials.unary(test, current.unary(), eps), Potentials.pairwise(test, current.pair(), eps),
                test.numRegionTypes() == 0 ? null : Potentials.regions(test, current.regions(), eps), from.testEval(), "test-set evaluation");
    }

    private static void restore(MessagePassing engine, INDArray unaryPot, INDArray pairPot, INDArray regionPot, EngineState saved, String what) {
        setPotentials(engine, unaryPot, pairPot, regionPot);
        if (saved == null) throw new IllegalArgumentException("the state lacks the messages of the " + what);
        saved.restoreInto(engine);
    }

    /** The training potentials of {@code f} (without touching the engine). */
    private void setTraining(Functions f) {
        current = f;
        pairBias = null;
        regionMessages = null;
        if (train == null) return;
        thetaRAll = train.numRegionTypes() == 0 ? null : Potentials.regions(train, f.regions(), eps);
        thetaR = truth.maskRegions(thetaRAll);
        thetaU0 = Potentials.unary(train, f.unary(), eps);
        thetaU = truth.maskUnary(thetaU0).add(truth.delta());
        thetaPAll = Potentials.pairwise(train, f.pair(), eps);
        thetaP = truth.maskPair(thetaPAll);
        thetaUClamped = clamped == null ? null : truth.clampUnary(thetaU0);
    }

    @Override
    public ScoreFunction fit(int type, Oracle oracle, ScoreFunction previous) {
        BiasedLogisticProblem p = problem(type);
        return p == null ? previous : oracle.fit(p, previous);
    }

    /**
     * The oracle problem of one factor type at the current messages, its rows placed in the batch's
     * images for whole-image functions ({@code withImages}; no effect without a grid layout). With
     * void labels only the rows of labelled variables and of edges with two labelled ends; null
     * when a type has no such row or every one weighs 0 (its function then stays as it is).
     */
    public BiasedLogisticProblem problem(int type) {
        requireTrain();
        if (clamped != null) {
            // the clamped form: every row, fitted to the clamped beliefs (ClampedRows)
            if (type == Functions.UNARY) return truth.clampedUnaryProblem(train.unaryFeatures(), unaryBias(), clamped.unaryBeliefs(), train.imageRows(-1));
            if (type >= train.numPairTypes()) {
                int t = type - train.numPairTypes();
                if (train.regionFeatures(t).size(0) == 0) return null;
                if (regionMessages == null) regionMessages = mp.regionMessages();
                return truth.clampedRegionProblem(t, train.regionFeatures(t), truth.regionBias(regionMessages, t, eps), clamped.regionBeliefs());
            }
            return truth.clampedPairProblem(type, train.pairFeatures(type), truth.ofType(pairBias(), type), truth.ofType(clamped.pairBeliefs(), type),
                    train.imageRows(type));
        }
        if (type == Functions.UNARY) return truth.unaryProblem(train.unaryFeatures(), unaryBias(), train.imageRows(-1));
        int T = train.numPairTypes();
        if (type >= T) {
            if (train.regionFeatures(type - T).size(0) == 0) return null;   // no region of this type: its function stays
            if (regionMessages == null) regionMessages = mp.regionMessages();   // once for all the region types of a fit
            return truth.regionProblem(type - T, train.regionFeatures(type - T), truth.regionBias(regionMessages, type - T, eps));
        }
        return truth.pairProblem(type, train.pairFeatures(type), truth.ofType(pairBias(), type), train.imageRows(type));
    }

    /** [V, L] (Delta - incoming messages) / eps. */
    public INDArray unaryBias() {
        requireTrain();
        return truth.unaryBias(mp.incomingMessageSums(), eps);
    }

    /** [E, L*L] (lambda_{a->i} + lambda_{a->j}) / eps, every edge in edge order. */
    public INDArray pairBias() {
        requireTrain();
        if (pairBias == null) pairBias = truth.pairBias(mp.messages(), eps);   // once for all the pairwise types of a fit
        return pairBias;
    }

    @Override
    public void setFunctions(Functions functions) {
        setTraining(functions);
        if (mp != null) setPotentials(mp, thetaU, thetaP, thetaR);
        if (clamped != null) setPotentials(clamped, thetaUClamped, thetaPAll, thetaRAll);
    }

    /** Every factor's potentials into {@code engine}: the regions' too when there are any ({@code regions} not null). */
    private static void setPotentials(MessagePassing engine, INDArray unary, INDArray pair, INDArray regions) {
        if (regions == null) engine.setPotentials(unary, pair);
        else engine.setPotentials(unary, pair, regions);
    }

    @Override
    public void iterate(int sweeps) {
        if (mp == null) return;
        pairBias = null;
        regionMessages = null;
        mp.iterate(sweeps);
        if (clamped != null) clamped.iterate(sweeps);
    }

    /**
     * The training engine's dual; in the clamped form plus the clamped engine's: what sweeps decrease
     * (each engine minimises its own dual), the progress an adaptive schedule reads.
     */
    @Override
    public double dual() {
        return mp == null ? 0 : mp.dual() + (clamped == null ? 0 : clamped.dual());
    }

    /** R: the training engine's dual minus F, or in the clamped form minus the clamped problem's dual (ClampedRows). */
    @Override
    public double objective() {
        if (mp == null) return 0;
        return mp.dual() - (clamped != null ? clamped.dual() : truth.score(thetaU, thetaP, thetaR));
    }

    @Override
    public Errors evaluate(int sweeps) {
        long trainWrong = 0, trainVars = 0, testWrong = 0, testVars = 0;
        if (trainEval != null) {
            setPotentials(trainEval, thetaU0, thetaPAll, thetaRAll);
            trainEval.iterate(sweeps);
            long[] c = Potentials.wrongAndLabelled(train, trainEval.decode());
            trainWrong = c[0];
            trainVars = c[1];
            if (!trainEval.exactState()) reseat(trainEval);
        }
        if (testEval != null) {
            setPotentials(testEval, Potentials.unary(test, current.unary(), eps), Potentials.pairwise(test, current.pair(), eps),
                    test.numRegionTypes() == 0 ? null : Potentials.regions(test, current.regions(), eps));
            testEval.iterate(sweeps);
            if (test.hasLabels()) {
                long[] c = Potentials.wrongAndLabelled(test, testEval.decode());
                testWrong = c[0];
                testVars = c[1];
            }
            if (!testEval.exactState()) reseat(testEval);
        }
        return new Errors(trainWrong, trainVars, testWrong, testVars);
    }

    @Override
    public void endIteration(int iteration) {
        if (mp != null && !mp.exactState()) {
            reseat(mp);
            pairBias = null;
            regionMessages = null;
        }
        if (clamped != null && !clamped.exactState()) reseat(clamped);
    }

    /** Sets the engine's messages back into it: afterwards it holds what a resumed engine holds. */
    private static void reseat(MessagePassing engine) {
        engine.setMessages(engine.messages());
    }

    @Override
    public Engines states() {
        return new Engines(mp == null ? null : EngineState.of(mp), trainEval == null ? null : EngineState.of(trainEval),
                testEval == null ? null : EngineState.of(testEval), clamped == null ? null : EngineState.of(clamped));
    }

    // ------------------------------------------------------------------ extrapolation

    @Override
    public void markLineStart() {
        if (truth != null && truth.hasVoid()) throw new IllegalStateException("extrapolation does not handle void labels yet");
        if (thetaR != null) throw new IllegalStateException("extrapolation does not handle region factors yet");
        if (mp != null) lineStart = mp.messages();
    }

    @Override
    public Line line(Functions x0, boolean moveUnary, boolean movePair) {
        if (mp == null) return null;
        boolean moveMessages = lineMessagesFinite();
        if (!moveMessages && !moveUnary && !movePair) return null;
        INDArray m1 = mp.messages();   // x1's messages, for the undo
        SubspaceObjective objective;
        try {
            objective = lineObjective(x0, moveUnary, movePair, moveMessages);
        } catch (IllegalArgumentException e) {
            return null; // a non-finite direction (an absurd fit): no step
        }
        return new LocalLine(objective, m1, moveUnary, movePair, moveMessages);
    }

    /** Whether every message at x0 ({@link #markLineStart}) and now is finite (only then do the messages move). */
    public boolean lineMessagesFinite() {
        if (lineStart == null) throw new IllegalStateException("no line start: markLineStart() first");
        return finite(EngineState.flat(lineStart)) && finite(EngineState.flat(mp.messages()));
    }

    /**
     * R on the line from x0 (functions {@code x0}, messages of {@link #markLineStart}) through the
     * current point x1; IllegalArgumentException when a displacement is not finite.
     */
    public SubspaceObjective lineObjective(Functions x0, boolean moveUnary, boolean movePair, boolean moveMessages) {
        float[] m1 = EngineState.flat(mp.messages()), tu1 = EngineState.flat(thetaU), tp1 = EngineState.flat(thetaP);
        // potentials are linear in the parameters, so theta1 - theta0 is the potentials' move
        float[] dU = moveUnary ? minus(tu1, EngineState.flat(Potentials.unary(train, x0.unary(), eps).addi(truth.delta()))) : null;
        float[] dP = movePair ? minus(tp1, EngineState.flat(Potentials.pairwise(train, x0.pair(), eps))) : null;
        float[] dm = moveMessages ? minus(m1, EngineState.flat(lineStart)) : null;
        return new SubspaceObjective(train.graph(), L, eps, train.labels(), train.jointLabels(), tu1, tp1, m1,
                new SubspaceObjective.Direction[] {new SubspaceObjective.Direction(dU, dP, dm)});
    }

    /**
     * Moves the training engine to x1 + beta (x1 - x0): the potentials of {@code atBeta} where they
     * move (as the learner computes them: theta_u = eps g_u + Delta), the messages m1 + beta (m1 - m0)
     * when they move; the engine's messages are set either way.
     */
    public void lineMove(double beta, Functions atBeta, boolean moveUnary, boolean movePair, boolean moveMessages) {
        INDArray m1 = mp.messages();
        INDArray m = m1;
        if (moveMessages) {
            float[] a = EngineState.flat(lineStart), b = EngineState.flat(m1);
            float[] mb = new float[b.length];
            for (int i = 0; i < mb.length; i++) mb[i] = (float) (b[i] + beta * (b[i] - a[i]));
            m = Nd4j.create(mb, m1.shape(), 'c');
        }
        if (moveUnary) {
            thetaU0 = Potentials.unary(train, atBeta.unary(), eps);
            thetaU = thetaU0.add(truth.delta());
        }
        if (movePair) thetaP = thetaPAll = Potentials.pairwise(train, atBeta.pair(), eps);   // no void here (markLineStart)
        current = atBeta;
        pairBias = null;
        mp.setPotentials(thetaU, thetaP);
        mp.setMessages(m);
    }

    /** Re-seats the training engine at its current point (a Spark partition's undo of a line move, from its state at x1: what {@code Line.undo} leaves). */
    public void reseatTraining() {
        pairBias = null;
        reseat(mp);
    }

    /** One machine's line: the subspace objective over the whole batch, and the moves of this engine. */
    private final class LocalLine implements Line {
        private final SubspaceObjective objective;
        private final boolean moveUnary, movePair, moveMessages;
        private final Functions x1 = current;
        private final INDArray thetaU0At1 = thetaU0, thetaUAt1 = thetaU, thetaPAt1 = thetaP, thetaPAllAt1 = thetaPAll, m1;

        LocalLine(SubspaceObjective objective, INDArray m1, boolean moveUnary, boolean movePair, boolean moveMessages) {
            this.objective = objective;
            this.m1 = m1;
            this.moveUnary = moveUnary;
            this.movePair = movePair;
            this.moveMessages = moveMessages;
        }

        @Override
        public SubspaceObjective.Eval at(double[] b) {
            return objective.at(b);
        }

        @Override
        public void moveTo(double beta, Functions atBeta) {
            lineMove(beta, atBeta, moveUnary, movePair, moveMessages);
        }

        /** x1's potentials and messages set back (the engine holds x1 re-seated). */
        @Override
        public void undo() {
            current = x1;
            thetaU0 = thetaU0At1;
            thetaU = thetaUAt1;
            thetaP = thetaPAt1;
            thetaPAll = thetaPAllAt1;
            pairBias = null;
            mp.setPotentials(thetaU, thetaP);
            mp.setMessages(m1);
        }
    }

    private static float[] minus(float[] a, float[] b) {
        float[] out = new float[a.length];
        for (int i = 0; i < a.length; i++) out[i] = a[i] - b[i];
        return out;
    }

    /** True when no entry is infinite or NaN (an impossible label's minus infinity must stay as it is). */
    private static boolean finite(float[] a) {
        for (float v : a) if (!Float.isFinite(v)) return false;
        return true;
    }

    private void requireTrain() {
        if (train == null) throw new IllegalStateException("no training examples here");
    }

    // ------------------------------------------------------------------ a Spark partition's states between stages

    /**
     * Everything {@link #restore} needs besides the examples and functions: each engine's exact state
     * (null: no such engine, or a fresh one) and the line start's messages (null: none). Plain float
     * arrays, so that it serialises anywhere.
     */
    public record Snapshot(float[] train, float[] trainEval, float[] testEval, float[] lineStart) implements Serializable {}

    /** The engines' exact states and the line start now. */
    public Snapshot snapshot() {
        return new Snapshot(mp == null ? null : mp.state(), trainEval == null ? null : trainEval.state(),
                testEval == null ? null : testEval.state(), lineStart == null ? null : EngineState.flat(lineStart));
    }

    /**
     * States of the same batches as those {@code saved} was taken from, at {@code functions}: each
     * engine's exact state set back, then its potentials (the order in which a warm start keeps the
     * state), so that an operation here continues exactly where the snapshot's left off. A null
     * snapshot: fresh engines ({@link #start} without a state).
     */
    public static BatchStates restore(ExampleBatch train, Targets truth, ExampleBatch test, double eps, boolean evaluation, Functions functions,
                                      Snapshot saved) {
        // a Spark partition: Engines' own choice (TrainCommand refuses --engine with --spark)
        if (truth != null && truth.clamps()) throw new IllegalArgumentException("Spark partitions do not run the clamped void form yet");
        BatchStates s = new BatchStates(train, truth, test, eps, evaluation, EngineChoice.AUTO);
        if (saved == null) {
            s.start(functions, null);
            return s;
        }
        s.setTraining(functions);
        if (s.mp != null) {
            if (saved.train() != null) s.mp.setState(saved.train());
            s.mp.setPotentials(s.thetaU, s.thetaP);
        }
        if (s.trainEval != null && saved.trainEval() != null) s.trainEval.setState(saved.trainEval());
        if (s.testEval != null && saved.testEval() != null) s.testEval.setState(saved.testEval());
        if (saved.lineStart() != null) s.lineStart = Nd4j.create(saved.lineStart(), new long[] {train.graph().numEdges(), 2, s.L}, 'c');
        return s;
    }

    @Override
    public void close() {
        for (MessagePassing e : new MessagePassing[] {mp, trainEval, testEval, clamped}) if (e != null) e.close();
    }
}
