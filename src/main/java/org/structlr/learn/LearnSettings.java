package org.structlr.learn;

/**
 * Settings of the alternating learner (the paper's Alg. 1 and its defaults).
 *
 * @param iterations      learning iterations (each: fit unary types, sweeps, fit pairwise types, sweeps)
 * @param eps             entropy smoothing of the LP relaxation (the paper: 0.1)
 * @param sweepsPerFit    message-passing sweeps after each oracle fit (the paper: 25)
 * @param evalSweeps      warm-started prediction sweeps per iteration on the train and test sets
 *                        to report errors (0 skips the evaluation)
 * @param seed            seed of every random choice (oracles, shuffling)
 * @param schedule        how many sweeps follow each fit ({@link org.structlr.schedule.Schedules}):
 *                        "paper" runs {@code sweepsPerFit}, "adaptive" at least that many
 */
public record LearnSettings(int iterations, double eps, int sweepsPerFit, int evalSweeps, long seed, String schedule) {
    /** The paper's schedule. */
    public LearnSettings(int iterations, double eps, int sweepsPerFit, int evalSweeps, long seed) {
        this(iterations, eps, sweepsPerFit, evalSweeps, seed, org.structlr.schedule.Schedules.PAPER);
    }

    public LearnSettings {
        org.structlr.schedule.Schedules.create(schedule, Math.max(1, sweepsPerFit)); // refuses unknown names
        if (iterations < 0) throw new IllegalArgumentException("iterations must be at least 0, got " + iterations);
        if (!(eps > 0) || Double.isInfinite(eps)) throw new IllegalArgumentException("eps must be positive, got " + eps);
        if (sweepsPerFit < 1) throw new IllegalArgumentException("sweeps per fit must be at least 1, got " + sweepsPerFit);
        if (evalSweeps < 0) throw new IllegalArgumentException("evaluation sweeps must be at least 0, got " + evalSweeps);
    }

    /** The same settings with another schedule. */
    public LearnSettings withSchedule(String name) {
        return new LearnSettings(iterations, eps, sweepsPerFit, evalSweeps, seed, name);
    }

    /** The schedule these settings name, fresh for one run. */
    public org.structlr.schedule.Schedule newSchedule() {
        return org.structlr.schedule.Schedules.create(schedule, sweepsPerFit);
    }

    public static LearnSettings paperDefaults(int iterations, long seed) {
        return new LearnSettings(iterations, 0.1, 25, 50, seed);
    }
}
