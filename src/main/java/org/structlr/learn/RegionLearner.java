package org.structlr.learn;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.function.BiFunction;

import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.structlr.graph.FactorGraph;
import org.structlr.inference.MessagePassing;
import org.structlr.inference.loop.LoopMessagePassing;
import org.structlr.oracle.BiasedLogisticProblem;
import org.structlr.oracle.Oracle;
import org.structlr.oracle.ScoreFunction;

/**
 * The paper's Alg. 1 with factors over regions of any size (the general form of docs/design.md §1): each
 * iteration fits the unary function, passes messages, fits every region type's function, passes
 * messages again; messages persist, so learning and inference are optimised jointly.
 *
 * <p>Not yet the main loop's: {@link AlternatingLearner} (and the CLI's train) still stop at pairs;
 * this class learns from a {@link RegionBatch} on the loop engine (any graph with regions), with
 * the paper's schedule (a fixed number of sweeps after each fit, exact fits, no extrapolation), so
 * that region potentials can be learned and compared with pairs (bench/regions).
 *
 * <p>The oracle step for a region r over variables (i_1..i_k), messages fixed: a logistic
 * regression over the L^k joint labels y_r with the bias
 * <pre>  b_r(y_r) = sum_p lambda_{r->i_p}(y_{i_p}) / eps  </pre>
 * (the pairwise bias of AlternatingLearner for k = 2), and for the unary rows
 * b_i(y) = (Delta_i(y) - sum_{r containing i} lambda_{r->i}(y)) / eps. With theta = eps g the
 * objective R = A(lambda, theta) - F(x, y) is then eps times the sum of the rows' biased logistic
 * losses (docs/design.md §1), which {@code RegionLearnerTest} checks for regions of 3 and 4 variables.
 */
public final class RegionLearner {

    /**
     * eps, iterations, sweeps after each fit, sweeps of the evaluation engines (0: no errors), evaluate
     * every n-th iteration. Errors come from engines of their own, warm-started from one
     * evaluation to the next, never from the training engine: its messages, optimised jointly with
     * the functions at the true labels, would make the training set look solved.
     */
    public record Settings(double eps, int iterations, int sweepsPerFit, int evalSweeps, int evalEvery) {
        public Settings {
            if (!(eps > 0) || iterations < 1 || sweepsPerFit < 0 || evalSweeps < 0 || evalEvery < 1) {
                throw new IllegalArgumentException("region learner settings: eps > 0, iterations >= 1, sweeps >= 0, evalEvery >= 1 needed");
            }
        }
    }

    /** The functions learned (unary; one per region type), the curve of evaluated iterations, fit and passing seconds. */
    public record Result(ScoreFunction unary, List<ScoreFunction> regions, List<IterationRecord> curve, double fitSeconds, double passingSeconds) {}

    private final Settings settings;
    private final Oracle unaryOracle;
    private final List<Oracle> regionOracles;
    private final BiFunction<FactorGraph, Double, MessagePassing> engines;

    /** Oracles for the unary type and for each region type; the loop engine. */
    public RegionLearner(Settings settings, Oracle unaryOracle, List<Oracle> regionOracles) {
        this(settings, unaryOracle, regionOracles, LoopMessagePassing::new);
    }

    public RegionLearner(Settings settings, Oracle unaryOracle, List<Oracle> regionOracles, BiFunction<FactorGraph, Double, MessagePassing> engines) {
        this.settings = settings;
        this.unaryOracle = unaryOracle;
        this.regionOracles = List.copyOf(regionOracles);
        this.engines = engines;
    }

    public Result train(RegionBatch train, RegionBatch test, LearnListener listener) {
        if (train.labels() == null) throw new IllegalArgumentException("training examples must carry labels");
        if (regionOracles.size() != train.numRegionTypes()) {
            throw new IllegalArgumentException(regionOracles.size() + " region oracles for " + train.numRegionTypes() + " region types");
        }
        double eps = settings.eps();
        int L = train.numLabels();
        int[][] regionLabels = new int[train.numRegionTypes()][];
        for (int t = 0; t < regionLabels.length; t++) regionLabels[t] = train.regionLabels(t);
        INDArray delta = hammingLoss(train.labels(), L);
        ScoreFunction unary = null;
        List<ScoreFunction> regions = new ArrayList<>(Collections.nCopies(train.numRegionTypes(), (ScoreFunction) null));
        List<IterationRecord> curve = new ArrayList<>();
        long fitNs = 0, passNs = 0, start = System.nanoTime();
        try (MessagePassing mp = engines.apply(train.graph(), eps);
             MessagePassing trainEval = settings.evalSweeps() > 0 ? engines.apply(train.graph(), eps) : null;
             MessagePassing testEval = test != null && settings.evalSweeps() > 0 ? engines.apply(test.graph(), eps) : null) {
            INDArray thetaU = delta.dup();
            INDArray thetaR = regionPotentials(train, regions, eps);
            INDArray noPairs = Nd4j.zeros(DataType.DOUBLE, 0, (long) L * L);
            mp.setPotentials(thetaU, noPairs, thetaR);
            for (int it = 1; it <= settings.iterations(); it++) {
                long t0 = System.nanoTime();
                INDArray biasU = unaryBias(mp, train.labels(), L, eps);
                unary = unaryOracle.fit(new BiasedLogisticProblem(train.unaryFeatures(), train.labels(), biasU, L), unary);
                thetaU = unaryPotentials(train, unary, eps).addi(delta);
                mp.setPotentials(thetaU, noPairs, thetaR);
                long t1 = System.nanoTime();
                mp.iterate(settings.sweepsPerFit());
                long t2 = System.nanoTime();
                INDArray messages = mp.regionMessages();
                for (int t = 0; t < train.numRegionTypes(); t++) {
                    INDArray biasR = regionBias(train.graph(), messages, t, eps);
                    regions.set(t, regionOracles.get(t).fit(new BiasedLogisticProblem(train.regionFeatures().get(t), regionLabels[t], biasR,
                            train.regionClasses(t)), regions.get(t)));
                }
                thetaR = regionPotentials(train, regions, eps);
                mp.setPotentials(thetaU, noPairs, thetaR);
                long t3 = System.nanoTime();
                mp.iterate(settings.sweepsPerFit());
                long t4 = System.nanoTime();
                fitNs += (t1 - t0) + (t3 - t2);
                passNs += (t2 - t1) + (t4 - t3);
                if (it == 1 || it == settings.iterations() || it % settings.evalEvery() == 0) {
                    double objective = objective(mp, train, thetaU, thetaR, regionLabels) / train.graph().numVariables();
                    double testErr = Double.NaN;
                    if (testEval != null) {
                        testEval.setPotentials(unaryPotentials(test, unary, eps), noPairs, regionPotentials(test, regions, eps));
                        testEval.iterate(settings.evalSweeps());
                        if (test.labels() != null) testErr = error(test.labels(), testEval.decode());
                    }
                    double trainErr = Double.NaN;
                    if (trainEval != null) {
                        trainEval.setPotentials(unaryPotentials(train, unary, eps), noPairs, thetaR);
                        trainEval.iterate(settings.evalSweeps());
                        trainErr = error(train.labels(), trainEval.decode());
                    }
                    IterationRecord rec = new IterationRecord(it, objective, trainErr, testErr, (System.nanoTime() - start) / 1e9, (fitNs + passNs) / 1e9);
                    curve.add(rec);
                }
                listener.onProgress(it, settings.iterations());
                if (!curve.isEmpty() && curve.get(curve.size() - 1).iteration() == it) listener.onIteration(curve.get(curve.size() - 1), settings.iterations());
            }
        }
        return new Result(unary, regions, curve, fitNs / 1e9, passNs / 1e9);
    }

    /** R = A(lambda, theta) - F(x, y), Delta being 0 at the truth. */
    static double objective(MessagePassing mp, RegionBatch b, INDArray thetaU, INDArray thetaR, int[][] regionLabels) {
        return mp.dual() - score(b, thetaU, thetaR, regionLabels);
    }

    /** F(x, y) = sum_i theta_i(y_i) + sum_r theta_r(y_r) at the true labels. */
    static double score(RegionBatch b, INDArray thetaU, INDArray thetaR, int[][] regionLabels) {
        int L = b.numLabels();
        double[] u = thetaU.castTo(DataType.DOUBLE).dup('c').data().asDouble();
        double[] r = thetaR.castTo(DataType.DOUBLE).dup('c').data().asDouble();
        double f = 0;
        int[] labels = b.labels();
        for (int v = 0; v < labels.length; v++) f += u[v * L + labels[v]];
        int[][] byType = b.graph().regionsByType();
        for (int t = 0; t < byType.length; t++) {
            for (int k = 0; k < byType[t].length; k++) f += r[b.graph().regionTableOffset(byType[t][k]) + regionLabels[t][k]];
        }
        return f;
    }

    /** [V, L] = eps g_unary(features), zeros for no function. */
    static INDArray unaryPotentials(RegionBatch b, ScoreFunction unary, double eps) {
        if (unary == null) return Nd4j.zeros(DataType.DOUBLE, b.graph().numVariables(), b.numLabels());
        return unary.scores(b.unaryFeatures()).castTo(DataType.DOUBLE).muli(eps);
    }

    /** [totalRegionEntries]: region r of type t gets eps g_t(its features) as its table (zeros for no function). */
    static INDArray regionPotentials(RegionBatch b, List<ScoreFunction> functions, double eps) {
        FactorGraph g = b.graph();
        double[] out = new double[g.totalRegionEntries()];
        int[][] byType = g.regionsByType();
        for (int t = 0; t < byType.length; t++) {
            ScoreFunction f = functions.get(t);
            if (f == null || byType[t].length == 0) continue;
            int c = b.regionClasses(t);
            double[] s = f.scores(b.regionFeatures().get(t)).castTo(DataType.DOUBLE).dup('c').data().asDouble();
            for (int k = 0; k < byType[t].length; k++) {
                int o = g.regionTableOffset(byType[t][k]);
                for (int y = 0; y < c; y++) out[o + y] = eps * s[k * c + y];
            }
        }
        return Nd4j.createFromArray(out);
    }

    /** [V, L] Delta_i(y) = [y != y_i]. */
    static INDArray hammingLoss(int[] labels, int L) {
        double[] d = new double[labels.length * L];
        for (int v = 0; v < labels.length; v++) for (int y = 0; y < L; y++) d[v * L + y] = y == labels[v] ? 0 : 1;
        return Nd4j.create(d, new long[] {labels.length, L}, 'c');
    }

    /** [V, L]: b_i(y) = (Delta_i(y) - sum_{r containing i} lambda_{r->i}(y)) / eps. */
    static INDArray unaryBias(MessagePassing mp, int[] labels, int L, double eps) {
        double[] in = mp.incomingMessageSums().castTo(DataType.DOUBLE).dup('c').data().asDouble();
        double[] b = new double[labels.length * L];
        for (int v = 0; v < labels.length; v++) {
            for (int y = 0; y < L; y++) b[v * L + y] = ((y == labels[v] ? 0 : 1) - in[v * L + y]) / eps;
        }
        return Nd4j.create(b, new long[] {labels.length, L}, 'c').castTo(DataType.FLOAT);
    }

    /** [R_t, L^k] for the regions of type t: b_r(y_r) = sum_p lambda_{r->i_p}(y_p) / eps, y_r in the table's order. */
    static INDArray regionBias(FactorGraph g, INDArray regionMessages, int type, double eps) {
        int L = g.maxLabels();
        double[] m = regionMessages.castTo(DataType.DOUBLE).dup('c').data().asDouble();
        int[] regions = g.regionsByType()[type];
        int c = regions.length == 0 ? 1 : g.regionEntries(regions[0]);
        double[] b = new double[regions.length * c];
        for (int k = 0; k < regions.length; k++) {
            int r = regions[k], size = g.regionSize(r);
            for (int y = 0; y < c; y++) {
                double s = 0;
                for (int p = 0; p < size; p++) s += m[g.regionSlot(r, p) * L + g.regionLabel(r, p, y)];
                b[k * c + y] = s / eps;
            }
        }
        return Nd4j.create(b, new long[] {regions.length, c}, 'c').castTo(DataType.FLOAT);
    }

    /** Fraction of variables whose decoded label is wrong. */
    static double error(int[] labels, int[] decoded) {
        int wrong = 0;
        for (int v = 0; v < labels.length; v++) if (labels[v] != decoded[v]) wrong++;
        return (double) wrong / labels.length;
    }
}
