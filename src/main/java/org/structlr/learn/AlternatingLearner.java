package org.structlr.learn;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import org.structlr.memory.NativeMemory;
import org.structlr.model.ExampleBatch;
import org.structlr.oracle.IterativeOracle;
import org.structlr.oracle.Oracle;
import org.structlr.oracle.ScoreFunction;
import org.structlr.schedule.Schedule;

/**
 * The learning loop: alternating oracle fits with warm-started message passing (the paper's
 * Alg. 1) under a {@link Schedule}, over {@link ExampleStates} (one machine's batch, or Spark
 * partitions: the same loop, the same numbers). Each iteration runs two phases, the unary type and
 * then every pairwise and region type: fit each type of the phase to its biased logistic problem at the
 * current messages, set the new potentials, and pass messages as the schedule says (the paper:
 * {@code sweepsPerFit} sweeps); an extrapolating schedule then tries a step along the iteration's
 * displacement ({@link Extrapolation}). Messages persist across iterations, so learning and
 * inference are optimised jointly; nothing is run to convergence inside.
 *
 * <p>Every {@link LearnSettings#evalEvery}-th iteration (and the first and last) is evaluated: the
 * objective and, with warm-started prediction engines, the train and test errors (one curve row),
 * after {@link LearnSettings#evalSweepsFor} sweeps from the previous evaluation's messages (by
 * default a fifth of one iteration's passing).
 * Evaluation reads the learner's state but never changes it, so the functions learned do not
 * depend on how often it runs. After every iteration the listener sees the functions and may stop
 * learning there ({@link LearnListener#keepLearning}): that iteration is then evaluated and the last.
 *
 * <p>The oracle step (docs/design.md §1): with the messages fixed, minimising the objective over one type's
 * function is a logistic regression whose rows carry the bias b = c / eps, with
 * c_i(y) = Delta_i(y) - sum_a lambda_{a->i}(y) for unary rows and
 * c_a(y_i, y_j) = lambda_{a->i}(y_i) + lambda_{a->j}(y_j) for pairwise rows, and for a region r
 * over (i_1..i_k), whose output space is the product of its variables' labels,
 * c_r(y_r) = sum_p lambda_{r->i_p}(y_{i_p}) ({@link Targets}).
 */
public final class AlternatingLearner {
    private final LearnSettings settings;
    private final Oracle unaryOracle;
    private final List<Oracle> pairOracles;
    private final List<Oracle> regionOracles;

    /** One oracle per pairwise type (in the batch's type order). */
    public AlternatingLearner(LearnSettings settings, Oracle unaryOracle, List<Oracle> pairOracles) {
        this(settings, unaryOracle, pairOracles, List.of());
    }

    /** One oracle per pairwise type and one per region type (in the batch's type orders). */
    public AlternatingLearner(LearnSettings settings, Oracle unaryOracle, List<Oracle> pairOracles, List<Oracle> regionOracles) {
        this.settings = settings;
        this.unaryOracle = unaryOracle;
        this.pairOracles = List.copyOf(pairOracles);
        this.regionOracles = List.copyOf(regionOracles);
    }

    /**
     * The functions learned, the curve of the run (evaluated iterations only), where the time went
     * (oracle fits including the potentials they produce, training message passing with the
     * schedule's dual evaluations and extrapolation, and the evaluation with checkpoints), and the
     * last iteration run (below the settings' when the listener stopped learning), and the oracles'
     * own descriptions ({@link Oracle#describe}: every setting that changes a fit), unary then each pairwise type,
     * and the functions and oracles of the region types (empty without regions).
     */
    public record Result(ScoreFunction unary, List<ScoreFunction> pair, List<IterationRecord> curve,
                         double fitSeconds, double passingSeconds, double evalSeconds, int iterations,
                         String unaryOracle, List<String> pairOracles, List<ScoreFunction> regions, List<String> regionOracles) {
        public Result {
            regions = java.util.Collections.unmodifiableList(new ArrayList<>(regions));
        }
    }

    public Result train(ExampleBatch train, ExampleBatch test, LearnListener listener) {
        return train(train, test, null, listener, StateSink.NONE);
    }

    /** On one machine: {@link #train(ExampleStates, LearnerState, LearnListener, StateSink)} over {@link BatchStates}. */
    public Result train(ExampleBatch train, ExampleBatch test, LearnerState from, LearnListener listener, StateSink sink) {
        if (!train.hasLabels()) throw new IllegalArgumentException("training examples must carry labels");
        if (pairOracles.size() != train.numPairTypes()) {
            throw new IllegalArgumentException(pairOracles.size() + " pairwise oracles for " + train.numPairTypes() + " pairwise types");
        }
        if (regionOracles.size() != train.numRegionTypes()) {
            throw new IllegalArgumentException(regionOracles.size() + " region oracles for " + train.numRegionTypes() + " region types");
        }
        try (BatchStates states = new BatchStates(train, Targets.of(train, RowWeights.NONE, settings.voidForm()), test, settings.eps(),
                settings.evaluatesErrors(), settings.engine())) {
            return train(states, from, listener, sink);
        }
    }

    /**
     * Runs iterations {@code from.iteration() + 1 .. settings.iterations()} (all of them when
     * {@code from} is null) on {@code states}, handing {@code sink} the state after every iteration
     * it wants. Continuing from a state gives exactly the iterations an uninterrupted run gives
     * (the engines' exact states; see {@link BatchStates} for engines without one).
     */
    public Result train(ExampleStates states, LearnerState from, LearnListener listener, StateSink sink) {
        int T = pairOracles.size(), R = regionOracles.size();
        if (from != null && from.iteration() > settings.iterations()) {
            throw new IllegalArgumentException("cannot continue from iteration " + from.iteration() + " to " + settings.iterations());
        }
        if (from != null && from.pair().size() != T) {
            throw new IllegalArgumentException("the state has " + from.pair().size() + " pairwise functions for " + T + " types");
        }
        if (from != null && from.regions().size() != R) {
            throw new ResumeRefusedException("the state has " + from.regions().size() + " region functions, this run "
                    + R + " region types (resume with the checkpoint's --regions)");
        }
        List<String> described = describe();
        if (from != null) checkSameOracles(from.oracles(), described, T);
        Functions f = from == null ? Functions.none(T, R) : new Functions(from.unary(), from.pair(), from.regions());
        List<IterationRecord> curve = from == null ? new ArrayList<>() : new ArrayList<>(from.curve());
        long fitNs = from == null ? 0 : Math.round(from.fitSeconds() * 1e9);
        long passNs = from == null ? 0 : Math.round(from.passingSeconds() * 1e9);
        long evalNs = from == null ? 0 : Math.round(from.evalSeconds() * 1e9);
        long start = System.nanoTime() - (from == null ? 0 : Math.round(from.seconds() * 1e9));
        Schedule schedule = settings.newSchedule();
        int[][] phases = phases(T + R);
        states.start(f, from == null ? null : new ExampleStates.Engines(from.train(), from.trainEval(), from.testEval(), from.clamped()));
        int evalSweeps = settings.evaluatesErrors() ? settings.evalSweepsFor(states.numTrainVariables(), states.numTestVariables()) : 0;
        int it = from == null ? 0 : from.iteration();
        while (it < settings.iterations()) {
            it++;
            Functions x0 = null;
            if (schedule.extrapolates()) {
                x0 = f;
                states.markLineStart();
            }
            int budget = schedule.fitIterations(it);
            for (int phase = 0; phase < phases.length; phase++) {
                long t0 = System.nanoTime();
                double before = schedule.needsFitGain() ? states.objective() : Double.NaN;
                for (int type : phases[phase]) f = f.with(type, states.fit(type, limited(oracle(type), budget), f.get(type)));
                NativeMemory.release();   // native buffers the fits left behind, back to the OS (see NativeMemory)
                states.setFunctions(f);
                double gain = schedule.needsFitGain() ? before - states.objective() : Double.NaN;
                long t1 = System.nanoTime();
                schedule.passAfterFit(states, new Schedule.Fit(it, phase > 0, gain));
                fitNs += t1 - t0;
                passNs += System.nanoTime() - t1;
            }
            long t2 = System.nanoTime();
            // a step along this iteration's displacement, kept only where R falls (Extrapolation)
            if (x0 != null) f = Extrapolation.step(states, x0, f, states.objective());
            states.endIteration(it);
            long t3 = System.nanoTime();
            passNs += t3 - t2;

            boolean last = it == settings.iterations() || !listener.keepLearning(it, f);
            IterationRecord row = null;
            if (settings.evaluates(it) || last) {
                // R = sum_k [ -F(x^k, y^k) + A(lambda^k, theta^k) ] per variable; Delta is 0 at the truth.
                double objective = states.objective() / states.numTrainVariables();
                ExampleStates.Errors e = evalSweeps > 0 ? states.evaluate(evalSweeps) : ExampleStates.Errors.NONE;
                row = new IterationRecord(it, objective, e.trainError(), e.testError(), (System.nanoTime() - start) / 1e9, (fitNs + passNs) / 1e9);
                curve.add(row);
            }
            if (sink.wants(it, last ? it : settings.iterations())) {
                ExampleStates.Engines e = states.states();
                try {
                    sink.accept(new LearnerState(it, f.unary(), f.pair(), e.train(), e.trainEval(), e.testEval(), curve,
                            (System.nanoTime() - start) / 1e9, fitNs / 1e9, passNs / 1e9, (evalNs + System.nanoTime() - t3) / 1e9, described, e.clamped(), f.regions()));
                } catch (IOException x) {
                    throw new UncheckedIOException("cannot save the learner's state after iteration " + it + ": " + x.getMessage(), x);
                }
            }
            evalNs += System.nanoTime() - t3;
            listener.onProgress(it, settings.iterations());
            if (row != null) listener.onIteration(row, settings.iterations());
            if (last) break;
        }
        return new Result(f.unary(), f.pair(), curve, fitNs / 1e9, passNs / 1e9, evalNs / 1e9, it,
                described.get(0), described.subList(1, T + 1), f.regions(), described.subList(T + 1, described.size()));
    }

    /** What the oracles say of themselves ({@link Oracle#describe}), unary first, then each pairwise type, then each region type. */
    private List<String> describe() {
        List<String> out = new ArrayList<>();
        out.add(unaryOracle.describe());
        for (Oracle o : pairOracles) out.add(o.describe());
        for (Oracle o : regionOracles) out.add(o.describe());
        return out;
    }

    /**
     * Refuses to continue a state whose oracles described themselves otherwise (a setting that
     * changes a fit differs, e.g. another Hessian for XGBoost or another tolerance): the run would
     * not be the one the state began. The thread counts in the descriptions are not compared
     * ({@code --resume} may change {@code --threads}, as it always could). A state that does not
     * record them (an older checkpoint) is not checked.
     */
    private static void checkSameOracles(List<String> recorded, List<String> now, int numPairTypes) {
        if (recorded == null) return;
        for (int k = 0; k < now.size(); k++) {
            if (!withoutThreads(recorded.get(k)).equals(withoutThreads(now.get(k)))) {
                String which = k == 0 ? "unary" : k <= numPairTypes ? "pairwise type " + (k - 1) : "region type " + (k - 1 - numPairTypes);
                throw new ResumeRefusedException("the state's " + which + " oracle ran as \"" + recorded.get(k)
                        + "\", this run's is \"" + now.get(k) + "\" (a setting that changes its fits differs; resume with the same settings)");
            }
        }
    }

    /** A description with its thread count ("4 threads") left out of the comparison. */
    static String withoutThreads(String description) {
        return description.replaceAll("\\b\\d+ threads\\b", "N threads");
    }

    /** The fit phases of an iteration: the unary type, then every pairwise and region type (Alg. 1). */
    private static int[][] phases(int numTypes) {
        int[] pair = new int[numTypes];
        for (int t = 0; t < numTypes; t++) pair[t] = t;
        return new int[][] {{Functions.UNARY}, pair};
    }

    private Oracle oracle(int type) {
        if (type == Functions.UNARY) return unaryOracle;
        return type < pairOracles.size() ? pairOracles.get(type) : regionOracles.get(type - pairOracles.size());
    }

    /** The oracle with the schedule's bound on its iterations, if it has any and the schedule sets one. */
    private static Oracle limited(Oracle o, int iterations) {
        return iterations > 0 && o instanceof IterativeOracle io ? io.limitedTo(iterations) : o;
    }
}
