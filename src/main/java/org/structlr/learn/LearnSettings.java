package org.structlr.learn;

import org.structlr.inference.engines.EngineChoice;
import org.structlr.inference.engines.Engines;

/**
 * Settings of the alternating learner (the paper's Alg. 1 and its defaults).
 *
 * @param iterations      learning iterations (each: fit unary types, sweeps, fit pairwise types, sweeps)
 * @param eps             entropy smoothing of the LP relaxation (the paper: 0.1)
 * @param sweepsPerFit    message-passing sweeps after each oracle fit (the paper: 25)
 * @param evalSweeps      warm-started prediction sweeps per evaluation on the train and test sets
 *                        to report errors (0 skips the errors; the objective is still recorded);
 *                        {@link #AUTO_EVAL_SWEEPS} (the default): a fifth of one iteration's
 *                        passing ({@link #evalSweepsFor})
 * @param evalEvery       evaluate (objective, errors: one curve row) after iteration 1, every
 *                        {@code evalEvery}-th iteration and the last; the iterations between are not
 *                        evaluated and have no curve row. Learning itself does not depend on it.
 * @param seed            seed of every random choice (oracles, shuffling)
 * @param schedule        how many sweeps follow each fit ({@link org.structlr.schedule.Schedules}):
 *                        "paper" runs {@code sweepsPerFit} after every fit; see the others there
 * @param engine          the inference engine ({@code --engine}); engines agree to float rounding, so
 *                        a named one changes the numbers in their last digits and is recorded
 * @param voidForm        how training treats void labels ({@code --void-form}, {@link VoidForm}); no
 *                        effect on training sets without void
 */

public record LearnSettings(int iterations, double eps, int sweepsPerFit, int evalSweeps, int evalEvery, long seed, String schedule,
                            EngineChoice engine, VoidForm voidForm) {
    /** The void form of {@code --void-form}'s default. */
    public static final VoidForm DEFAULT_VOID_FORM = VoidForm.CLAMPED;

    /** The default void form ({@link #DEFAULT_VOID_FORM}). */
    public LearnSettings(int iterations, double eps, int sweepsPerFit, int evalSweeps, int evalEvery, long seed, String schedule,
                         EngineChoice engine) {
        this(iterations, eps, sweepsPerFit, evalSweeps, evalEvery, seed, schedule, engine, DEFAULT_VOID_FORM);
    }

    /** {@link Engines}' choice of engine. */
    public LearnSettings(int iterations, double eps, int sweepsPerFit, int evalSweeps, int evalEvery, long seed, String schedule) {
        this(iterations, eps, sweepsPerFit, evalSweeps, evalEvery, seed, schedule, EngineChoice.AUTO);
    }
    /** {@code evalSweeps}: as many as {@link #evalSweepsFor} gives (recorded as "auto"). */
    public static final int AUTO_EVAL_SWEEPS = -1;

    /** The paper's schedule. */
    public LearnSettings(int iterations, double eps, int sweepsPerFit, int evalSweeps, int evalEvery, long seed) {
        this(iterations, eps, sweepsPerFit, evalSweeps, evalEvery, seed, org.structlr.schedule.Schedules.PAPER);
    }

    public LearnSettings {
        org.structlr.schedule.Schedules.create(schedule, Math.max(1, sweepsPerFit)); // refuses unknown names
        if (iterations < 0) throw new IllegalArgumentException("iterations must be at least 0, got " + iterations);
        if (!(eps > 0) || Double.isInfinite(eps)) throw new IllegalArgumentException("eps must be positive, got " + eps);
        if (sweepsPerFit < 1) throw new IllegalArgumentException("sweeps per fit must be at least 1, got " + sweepsPerFit);
        if (evalSweeps < AUTO_EVAL_SWEEPS) throw new IllegalArgumentException("evaluation sweeps must be at least 0 (or auto), got " + evalSweeps);
        if (evalEvery < 1) throw new IllegalArgumentException("evaluation every " + evalEvery + " iterations: need at least 1");
        if (engine == null) throw new IllegalArgumentException("engine must be given (auto for Engines' choice)");
        if (voidForm == null) throw new IllegalArgumentException("the void form must be given");
    }

    /** Evaluating after every iteration. */
    public LearnSettings(int iterations, double eps, int sweepsPerFit, int evalSweeps, long seed) {
        this(iterations, eps, sweepsPerFit, evalSweeps, 1, seed);
    }

    /** The same settings with another schedule. */
    public LearnSettings withSchedule(String name) {
        return new LearnSettings(iterations, eps, sweepsPerFit, evalSweeps, evalEvery, seed, name, engine, voidForm);
    }

    /** The same settings evaluating every {@code k}-th iteration. */
    public LearnSettings withEvalEvery(int k) {
        return new LearnSettings(iterations, eps, sweepsPerFit, evalSweeps, k, seed, schedule, engine, voidForm);
    }

    /** The same settings on another inference engine. */
    public LearnSettings withEngine(EngineChoice e) {
        return new LearnSettings(iterations, eps, sweepsPerFit, evalSweeps, evalEvery, seed, schedule, e, voidForm);
    }

    /** The same settings with another void form. */
    public LearnSettings withVoidForm(VoidForm f) {
        return new LearnSettings(iterations, eps, sweepsPerFit, evalSweeps, evalEvery, seed, schedule, engine, f);
    }

    /** The schedule these settings name, fresh for one run. */
    public org.structlr.schedule.Schedule newSchedule() {
        return org.structlr.schedule.Schedules.create(schedule, sweepsPerFit);
    }

    public static LearnSettings paperDefaults(int iterations, long seed) {
        return new LearnSettings(iterations, 0.1, 25, 50, defaultEvalEvery(iterations), seed);
    }

    /** About 20 curve rows per run: every max(1, iterations / 20)-th iteration (100 iterations: every 5th). */
    public static int defaultEvalEvery(int iterations) {
        return Math.max(1, iterations / 20);
    }

    /** Whether an evaluation reports errors (it keeps warm-started prediction engines); else the objective only. */
    public boolean evaluatesErrors() {
        return evalSweeps != 0;
    }

    /**
     * The sweeps each evaluation runs on both sets: {@code evalSweeps}, or with
     * {@link #AUTO_EVAL_SWEEPS} a fifth of the passing the paper schedule does in one iteration,
     * shared by the two sets in proportion to their variables:
     * <pre>
     *   K = max(1, floor(2 * sweepsPerFit * V_train / (5 * (V_train + V_test))))
     * </pre>
     * (two phases of {@code sweepsPerFit} sweeps per iteration on V_train variables; K sweeps on each
     * set cost K (V_train + V_test)), whatever {@code evalEvery} is. An evaluation's sweeps then cost
     * a fifth of one iteration's passing; what the whole evaluation costs (with the test set's
     * potentials, decoding and the objective) against a whole iteration (with the fits) is measured
     * on the demo in docs/results.md, "What an evaluation costs". Its messages carry over to the
     * next evaluation (warm start), so the rows' errors approach the converged ones as learning goes
     * on; early rows trail them (the table "What the warm start's sweeps buy" there).
     */
    public int evalSweepsFor(long trainVariables, long testVariables) {
        if (evalSweeps != AUTO_EVAL_SWEEPS) return evalSweeps;
        double k = 2.0 * sweepsPerFit * trainVariables / (5.0 * Math.max(1, trainVariables + testVariables));
        return (int) Math.max(1, Math.min(Integer.MAX_VALUE, Math.floor(k)));
    }

    /** {@code evalSweeps} as recorded in model.json and checkpoints: a number, or "auto". */
    public Object evalSweepsRecorded() {
        return evalSweeps == AUTO_EVAL_SWEEPS ? "auto" : (Object) evalSweeps;
    }

    /** The recorded form back ({@link #evalSweepsRecorded}). */
    public static int evalSweepsOf(com.fasterxml.jackson.databind.JsonNode recorded) {
        if (recorded.isTextual() && recorded.asText().equals("auto")) return AUTO_EVAL_SWEEPS;
        if (!recorded.isIntegralNumber() || !recorded.canConvertToInt()) throw new IllegalArgumentException("evalSweeps must be a number or \"auto\", got " + recorded);
        return recorded.asInt();
    }

    /** Whether iteration {@code it} (1-based) is evaluated: the first, every {@code evalEvery}-th, and the last. */
    public boolean evaluates(int it) {
        return it == 1 || it % evalEvery == 0 || it == iterations;
    }

    /** The same settings with another iteration count. */
    public LearnSettings withIterations(int n) {
        return new LearnSettings(n, eps, sweepsPerFit, evalSweeps, evalEvery, seed, schedule, engine, voidForm);
    }
}
