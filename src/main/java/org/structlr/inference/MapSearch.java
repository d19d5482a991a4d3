package org.structlr.inference;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.function.BiFunction;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.structlr.graph.FactorGraph;

/**
 * MAP search on hard models: the smoothed-LP engine run as usual, then, while time is left,
 * <ol>
 *   <li>annealing: eps lowered step by step towards {@code epsMin}, the messages carried over warm
 *       (a new engine per eps, {@link MessagePassing#setMessages}), the argmax of every sweep scored;</li>
 *   <li>tightening ({@link CycleTightening}): frustrated cycles of the current relaxation become
 *       regions, which only lowers the dual, and message passing goes on;</li>
 *   <li>local search on the best labellings of each stage ({@link LocalSearch}: ICM, exact moves on
 *       induced forests, and fusion of the stages' labellings), and iterated local search from the
 *       best labelling (a random block relabelled, then forest moves) before tightening, briefly,
 *       and after it until it stops improving;</li>
 *   <li>restarts ({@link Settings#restarts}, e.g. until a time limit): the iterated local search
 *       again, its blocks up to twice as large after every restart that found nothing (up to the
 *       whole graph: a random labelling), each result also fused into the best ({@link LocalSearch#fuse}).</li>
 * </ol>
 * Before all of these, with {@link Settings#elimination}, exact variable elimination ({@link Elimination})
 * may solve the whole model within {@code EXACT_SHARE} of the time left; if it does not, the search
 * runs with the rest. The upper bound {@link DualBound} is taken at every stage; the lowest is reported
 * beside the best energy, and when they meet the labelling is a proven MAP. Everything stops at the deadline.
 *
 * <p>Stages and what each found are kept ({@link Result#stages}) so that benchmarks can show what
 * each step is worth.
 */
public final class MapSearch {
    /**
     * @param epsMin      the last eps of the annealing (eps itself when not below it: no annealing)
     * @param epsFactor   each annealing step multiplies eps by this (in (0, 1))
     * @param sweeps      the most sweeps per annealing or tightening stage
     * @param tighten     the most tightening rounds (0: none)
     * @param round       whether rounding ({@link MapDecoder.Kind#round}) runs after the first run
     * @param localSearch whether local search runs after each stage
     * @param polish      iterated local search at the end (a random block of the best labelling relabelled
     *                    at random, then forest moves; kept when better) stops after this many rounds in a
     *                    row without improvement (0: none)
     * @param seed        of the random forests of the local search
     * @param restarts    the most restarts of the iterated local search after it (needs polish > 0; 0: none;
     *                    {@link #UNTIL_DEADLINE}: until the deadline, which must then be finite)
     * @param elimination the largest table of exact variable elimination ({@link Elimination}), in entries (0: none):
     *                    a model whose elimination fits is solved exactly first (a proven MAP); otherwise, with
     *                    local search, elimination moves on blocks ({@link LocalSearch#eliminationMoves}, tables
     *                    of at most {@link #MOVE_ENTRIES}) after the polish and in every restart
     */
    public record Settings(double epsMin, double epsFactor, int sweeps, int tighten, boolean round, boolean localSearch, int polish, long seed,
                           int restarts, long elimination) {
        /** Restarts until the deadline passes. */
        public static final int UNTIL_DEADLINE = Integer.MAX_VALUE;

        /** infer's largest table of exact elimination: 2^23 entries (64 MB of doubles; the argmax of all tables, 16 times as many entries, 2 bytes each). */
        public static final long ELIMINATION_ENTRIES = 1 << 23;

        /** The largest table of an elimination move. */
        public static final long MOVE_ENTRIES = 1 << 16;

        /** No restarts, no elimination. */
        public Settings(double epsMin, double epsFactor, int sweeps, int tighten, boolean round, boolean localSearch, int polish, long seed) {
            this(epsMin, epsFactor, sweeps, tighten, round, localSearch, polish, seed, 0, 0);
        }

        /** No elimination. */
        public Settings(double epsMin, double epsFactor, int sweeps, int tighten, boolean round, boolean localSearch, int polish, long seed,
                        int restarts) {
            this(epsMin, epsFactor, sweeps, tighten, round, localSearch, polish, seed, restarts, 0);
        }

        /** These settings with {@code n} restarts. */
        public Settings withRestarts(int n) {
            return new Settings(epsMin, epsFactor, sweeps, tighten, round, localSearch, polish, seed, n, elimination);
        }

        /** These settings with exact elimination up to tables of {@code entries} (0: none). */
        public Settings withElimination(long entries) {
            return new Settings(epsMin, epsFactor, sweeps, tighten, round, localSearch, polish, seed, restarts, entries);
        }

        public Settings {
            if (elimination < 0) throw new IllegalArgumentException("elimination must be at least 0, got " + elimination);
            if (restarts < 0) throw new IllegalArgumentException("restarts must be at least 0, got " + restarts);
            if (!(epsMin > 0)) throw new IllegalArgumentException("epsMin must be positive, got " + epsMin);
            if (!(epsFactor > 0 && epsFactor < 1)) throw new IllegalArgumentException("epsFactor must be in (0, 1), got " + epsFactor);
            if (sweeps < 1) throw new IllegalArgumentException("sweeps must be at least 1, got " + sweeps);
            if (tighten < 0) throw new IllegalArgumentException("tighten must be at least 0, got " + tighten);
            if (polish < 0) throw new IllegalArgumentException("polish must be at least 0, got " + polish);
        }
    }

    /** One stage: what it was, its eps and sweeps, the best energy so far after it, the bound so far, seconds since the start. */
    public record Stage(String name, double eps, int sweeps, double energy, double bound, double seconds) {}

    /** The best labelling, its energy, the lowest upper bound, and the stages. */
    public record Result(int[] labels, double energy, double bound, List<Stage> stages) {
        /** True when the energy reaches the bound (to rounding): the labelling is a MAP. */
        public boolean certified() {
            return energy > Double.NEGATIVE_INFINITY && bound - energy <= 1e-9 * Math.max(1, Math.abs(bound));
        }
    }

    private final LabelingEnergy energy;
    private final BiFunction<FactorGraph, Double, MessagePassing> engines;
    private final Settings settings;
    private final PrintWriter progress;
    private final LocalSearch local;
    private final Random rnd;
    private final long start;
    private final Deadline deadline;
    private final List<Stage> stages = new ArrayList<>();
    private final List<int[]> candidates = new ArrayList<>();
    private int[] best;
    private double bestE = Double.NEGATIVE_INFINITY;
    private int bestBroken = Integer.MAX_VALUE;
    private double bound = Double.POSITIVE_INFINITY;

    /**
     * @param engines  builds an engine for a graph and eps (the graph changes when tightening)
     * @param deadline after it nothing new starts and sweeps stop
     * @param progress one line per stage (null: quiet)
     */
    public MapSearch(LabelingEnergy energy, BiFunction<FactorGraph, Double, MessagePassing> engines, Settings settings,
                     Deadline deadline, PrintWriter progress) {
        this.energy = energy;
        this.engines = engines;
        this.settings = settings;
        this.progress = progress;
        this.local = new LocalSearch(energy);
        this.rnd = new Random(settings.seed());
        this.start = System.nanoTime();
        this.deadline = deadline;
        if (settings.restarts() == Settings.UNTIL_DEADLINE && deadline == Deadline.NONE) {
            throw new IllegalArgumentException("restarts until the deadline need a deadline");
        }
    }

    /**
     * Continues from {@code first}, an engine at the user's eps that has run its normal stop rule (its
     * potentials those of the energy), and {@code labels}, the labelling decoded from it.
     */
    public Result run(MessagePassing first, int[] labels) {
        offer(labels.clone());
        takeBound(first);
        stage("first run", first.eps(), 0);
        if (settings.elimination() > 0 && timeLeft()) {
            // at most its share of the time left: a model it cannot finish leaves the rest to the search
            Deadline share = deadline.share(EXACT_SHARE);
            int[] y = new Elimination(energy, share).exactMap(best, settings.elimination(), EXACT_WORK * settings.elimination(), share);
            if (y != null) {
                offer(y);
                bound = Math.min(bound, energy.energy(y));   // the exact MAP value is the tightest upper bound
                stage("elimination (exact)", first.eps(), 0);
                return new Result(best.clone(), bestE, bound, List.copyOf(stages));
            }
            stage("elimination (not exact)", first.eps(), 0);
        }
        MessagePassing mp = first;
        double eps = first.eps();
        List<MessagePassing> opened = new ArrayList<>();
        try {
            // rounding on a copy of the first engine (rounding clamps the engine it runs on)
            if (settings.round() && timeLeft()) {
                MessagePassing copy = engines.apply(energy.graph(), eps);
                opened.add(copy);
                copy.setPotentials(unary(), pairwise(), regions());
                copy.setMessages(first.messages());
                copy.setRegionMessages(first.regionMessages());
                double[][] beliefs = first.unaryBeliefs().castTo(DataType.DOUBLE).toDoubleMatrix();
                int[] y = new MapDecoder(MapDecoder.Kind.round, energy).round(copy, beliefs, new StopRule(Integer.MAX_VALUE, 0, 1, deadline));
                energy.icm(y, MapDecoder.ICM_SWEEPS);
                offer(y);
                stage("round", eps, 0);
            }
            improveLocally();
            // annealing, warm
            while (eps * settings.epsFactor() >= settings.epsMin() * (1 - 1e-9) && timeLeft()) {
                eps *= settings.epsFactor();
                MessagePassing next = engines.apply(energy.graph(), eps);
                opened.add(next);
                next.setPotentials(unary(), pairwise(), regions());
                next.setMessages(mp.messages());
                next.setRegionMessages(mp.regionMessages());
                mp = next;
                int done = sweep(mp);
                stage("anneal", eps, done);
                improveLocally();
            }
            // a first, short iterated local search, before tightening takes its share of the time
            if (settings.polish() > 0 && timeLeft() && !certified()) {
                int rounds = polish(Math.max(1, settings.polish() / 10));
                stage("polish " + rounds + " rounds", eps, 0);
            }
            // tightening: frustrated cycles become regions (the reparametrised model: same energy, lower dual)
            for (int round = 0; round < settings.tighten() && timeLeft() && !certified(); round++) {
                CycleTightening.Tightened t = CycleTightening.tighten(energyOf(mp), mp);
                if (t == null) break;
                MessagePassing next = engines.apply(t.graph(), mp.eps());
                opened.add(next);
                next.setPotentials(t.unary(), t.pairwise(), t.regions());
                LabelingEnergy tightened = t.energy();
                int done = sweep(next, tightened);
                stage("tighten +" + t.added() + " cycles", next.eps(), done);
                improveLocally();
                mp = next;
                tightenedEnergy = tightened;
            }
        } finally {
            for (MessagePassing m : opened) m.close();
        }
        if (settings.polish() > 0 && timeLeft() && !certified()) {
            int rounds = polish(settings.polish());
            stage("polish " + rounds + " rounds", eps, 0);
        }
        if (settings.elimination() > 0 && settings.localSearch() && timeLeft() && !certified()) {
            int[] y = best.clone();
            local.eliminationMoves(y, Integer.MAX_VALUE, ELIMINATION_PATIENCE, Math.min(settings.elimination(), Settings.MOVE_ENTRIES), rnd, deadline);
            offer(y);
            stage("elimination moves", eps, 0);
        }
        // the rest of a finite time limit: restarts with ever larger kicks while they find nothing
        if (settings.polish() > 0 && settings.restarts() > 0 && timeLeft() && !certified()) {
            int restarts = 0;
            double fraction = FIRST_BLOCK;
            while (restarts < settings.restarts() && timeLeft() && !certified()) {
                double before = bestE;
                int brokenBefore = bestBroken;
                polish(settings.polish(), fraction, true);
                if (settings.elimination() > 0 && settings.localSearch() && timeLeft()) {
                    int[] y = best.clone();
                    local.eliminationMoves(y, Integer.MAX_VALUE, ELIMINATION_PATIENCE, Math.min(settings.elimination(), Settings.MOVE_ENTRIES), rnd, deadline);
                    offer(y);
                    candidates.remove(candidates.size() - 1);
                }
                restarts++;
                fraction = bestBroken < brokenBefore || bestE > before ? FIRST_BLOCK : Math.min(1, 2 * fraction);
            }
            stage("restarts " + restarts, eps, 0);
        }
        return new Result(best.clone(), bestE, bound, List.copyOf(stages));
    }

    /** The energy whose potentials the engine {@code mp} holds (the original, or a tightened model's). */
    private LabelingEnergy tightenedEnergy;

    private LabelingEnergy energyOf(MessagePassing mp) {
        return tightenedEnergy != null && mp.graph() == tightenedEnergy.graph() ? tightenedEnergy : energy;
    }

    private int sweep(MessagePassing mp) {
        return sweep(mp, energyOf(mp));
    }

    /** Up to settings.sweeps() sweeps, scoring every sweep's argmax; the bound every 10 sweeps and at the end. */
    private int sweep(MessagePassing mp, LabelingEnergy held) {
        int done = 0;
        int[] sweepBest = null;
        double sweepE = Double.NEGATIVE_INFINITY;
        while (done < settings.sweeps() && timeLeft()) {
            mp.iterate(1);
            done++;
            int[] y = mp.decode();
            double e = energy.energy(y);
            if (sweepBest == null || e > sweepE) {
                sweepBest = y;
                sweepE = e;
            }
            if (done % 10 == 0) {
                takeBound(mp, held);
                if (Math.abs(mp.gap()) < 1e-9 * Math.max(1, Math.abs(bound))) break;
            }
        }
        takeBound(mp, held);
        if (sweepBest != null) offer(sweepBest);
        return done;
    }

    private void takeBound(MessagePassing mp) {
        takeBound(mp, energyOf(mp));
    }

    private void takeBound(MessagePassing mp, LabelingEnergy held) {
        bound = Math.min(bound, DualBound.of(held, mp));
    }

    /** ICM and forest moves from the newest candidate, fused with the best. */
    private void improveLocally() {
        if (!settings.localSearch() || !timeLeft()) return;
        int[] y = candidates.get(candidates.size() - 1).clone();
        energy.icm(y, MapDecoder.ICM_SWEEPS);
        descend(y, 200, 5);
        offer(y);
        int[] fused = best.clone();
        for (int[] c : candidates) local.fuse(fused, c);
        descend(fused, 200, 5);
        offer(fused);
    }

    /**
     * Iterated local search from the best labelling: a connected block of random size (grown
     * breadth-first from a random variable) gets random labels, forest moves repair it, and the result
     * replaces the best when better; until {@code patience} rounds in a row bring nothing. Returns
     * the rounds run.
     */
    private int polish(int patience) {
        return polish(patience, FIRST_BLOCK, false);
    }

    /** Exact elimination may condition on variables while their labellings times the plan's entries stay below this many times the largest table. */
    static final long EXACT_WORK = 64;

    /**
     * The share of the time left after the first run that the exact attempt may take before the search
     * runs instead (with a finite deadline). The models it solves took up to 4 s of a 60 s budget (the
     * Promedus networks, Grids_11, DBN_11: docs/guide/higher-order.md).
     */
    static final double EXACT_SHARE = 0.25;

    /** Elimination moves stop after this many blocks in a row that improve nothing. */
    private static final int ELIMINATION_PATIENCE = 50;

    /** The largest block of the iterated local search at first, as a fraction of the variables. */
    private static final double FIRST_BLOCK = 0.1;

    /**
     * As {@link #polish(int)} with blocks of up to {@code fraction} of the variables, each result
     * also fused into the best when {@code fuse}.
     */
    private int polish(int patience, double fraction, boolean fuse) {
        FactorGraph g = energy.graph();
        int V = g.numVariables();
        int[][] nb = g.neighbours();
        int round = 0;
        int[] queue = new int[V];
        boolean[] inBlock = new boolean[V];
        int idle = 0;
        for (; idle < patience && timeLeft() && !certified(); round++) {
            double before = bestE;
            int brokenBefore = bestBroken;
            int[] z = best.clone();
            int size = 1 + rnd.nextInt(Math.max(1, (int) (V * fraction)));
            int head = 0, tail = 0;
            queue[tail++] = rnd.nextInt(V);
            inBlock[queue[0]] = true;
            while (head < tail && tail < size) {
                int v = queue[head++];
                for (int k = nb[0][v]; k < nb[0][v + 1] && tail < size; k++) {
                    int u = nb[1][k];
                    if (!inBlock[u]) {
                        inBlock[u] = true;
                        queue[tail++] = u;
                    }
                }
            }
            for (int k = 0; k < tail; k++) {
                int v = queue[k];
                inBlock[v] = false;
                z[v] = rnd.nextInt(g.numLabels(v));
            }
            descend(z, 20, 2);
            offer(z);
            candidates.remove(candidates.size() - 1); // polish candidates are not kept for fusion
            if (fuse) {
                int[] f = best.clone();
                local.fuse(f, z);
                offer(f);
                candidates.remove(candidates.size() - 1);
            }
            idle = bestBroken < brokenBefore || bestE > before ? 0 : idle + 1;
        }
        return round;
    }

    /** Forest moves, then region moves, while either improves (at most a few times). */
    private void descend(int[] y, int rounds, int patience) {
        double e = local.forestMoves(y, rounds, patience, rnd, deadline);
        if (!energy.graph().hasRegions()) return;
        for (int t = 0; t < 5 && !deadline.passed(); t++) {
            double after = local.regionMoves(y, 10, rnd, deadline);
            if (!(after > e)) break;
            e = local.forestMoves(y, rounds, patience, rnd, deadline);
        }
    }

    private void offer(int[] y) {
        candidates.add(y);
        double e = energy.energy(y);
        int broken = energy.brokenCount(y);
        if (best == null || broken < bestBroken || (broken == bestBroken && e > bestE)) {
            best = y.clone();
            bestE = e;
            bestBroken = broken;
        }
    }

    private boolean certified() {
        return bestE > Double.NEGATIVE_INFINITY && bound - bestE <= 1e-9 * Math.max(1, Math.abs(bound));
    }

    private boolean timeLeft() {
        return !deadline.passed();
    }

    private void stage(String name, double eps, int sweeps) {
        Stage s = new Stage(name, eps, sweeps, bestE, bound, (System.nanoTime() - start) / 1e9);
        stages.add(s);
        if (progress != null) {
            progress.printf("map: %-22s eps %-8.3g sweeps %5d  energy %.6f  bound %.6f  %.1f s%n", name, eps, sweeps, bestE, bound, s.seconds());
            progress.flush();
        }
    }

    private INDArray unary() {
        FactorGraph g = energy.graph();
        return Nd4j.create(energy.unaryCopy(), new long[] {g.numVariables(), g.maxLabels()}, DataType.DOUBLE);
    }

    private INDArray pairwise() {
        FactorGraph g = energy.graph();
        long ll = (long) g.maxLabels() * g.maxLabels();
        if (g.numEdges() == 0) return Nd4j.create(DataType.DOUBLE, 0, ll);
        return Nd4j.create(energy.pairwiseCopy(), new long[] {g.numEdges(), ll}, DataType.DOUBLE);
    }

    private INDArray regions() {
        FactorGraph g = energy.graph();
        if (g.totalRegionEntries() == 0) return Nd4j.create(DataType.DOUBLE, 0);
        return Nd4j.create(energy.regionCopy(), new long[] {g.totalRegionEntries()}, DataType.DOUBLE);
    }
}
