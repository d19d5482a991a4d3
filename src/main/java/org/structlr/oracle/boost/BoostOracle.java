package org.structlr.oracle.boost;

import org.structlr.oracle.BiasedLogisticLoss;
import org.structlr.oracle.BiasedLogisticProblem;
import org.structlr.oracle.RowTargets;
import org.structlr.oracle.Oracle;
import org.structlr.oracle.ScoreFunction;
import org.structlr.oracle.ScoreFunctions;
import org.structlr.oracle.ZeroScore;

import java.lang.ref.WeakReference;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;

import ml.dmlc.xgboost4j.java.Booster;
import ml.dmlc.xgboost4j.java.DMatrix;
import ml.dmlc.xgboost4j.java.XGBoost;
import ml.dmlc.xgboost4j.java.XGBoostError;
import ml.dmlc.xgboost4j.java.XGBoostJNI;
import org.nd4j.linalg.api.ndarray.INDArray;

/**
 * The boosted-trees function class: every fit adds ONE round, one XGBoost regression tree per class,
 * fitted to the biased logistic loss at the current ensemble.
 *
 * <p>Per fit, with m the ensemble's margin on the training rows (the booster's own prediction
 * cache), z = m + b and p = softmax(z), the custom gradient and Hessian handed to
 * {@code booster.boost(dmatrix, round, grad, hess)} are
 * <pre>
 *   grad_nc = p_nc - [y_n = c]          hess_nc = max(s * p_nc (1 - p_nc), 1e-16)
 * </pre>
 * where s is the {@link Hessian} setting (the class option {@code hessian}): s = 1 is the diagonal of the softmax loss's Hessian, so a
 * leaf's value -eta * G / (H + lambda) is the Newton step docs/design.md §1 asks for; s = 2 is XGBoost's own
 * multi:softprob Hessian (a half Newton step). Settings, all fixed here except the Hessian:
 * <ul>
 *   <li>eta (shrinkage) 0.25, lambda (L2 on leaves) 0: the leaf value is the (scaled) Newton step;</li>
 *   <li>leaves hold at least 5% of the data, in Hessian weight: {@code min_child_weight} is set
 *       before every round to 0.05 * min over classes of sum_n hess_nc (XGBoost can only bound the
 *       Hessian weight of a leaf, not its row count; where p is the same everywhere the two agree);</li>
 *   <li>max_delta_step {@value #MAX_DELTA_STEP}: a trust region on each leaf's Newton step (see the constant);</li>
 *   <li>max_depth 5 (the 5% rule already allows at most 20 leaves), {@code tree_method} hist with
 *       256 bins, gamma 0, no subsampling; seed fixed; {@code nthread} a constructor parameter;</li>
 *   <li>the bins are ours ({@link FeatureCuts}): the rows are binned before XGBoost sees them, so
 *       that a distributed round splits on the same values as one machine.</li>
 *   <li>base_score 0 and a zero base margin on every matrix, so margins are exactly sums of leaves.</li>
 * </ul>
 *
 * <p>The bias changes between fits while the features stay the same, so the oracle keeps one
 * DMatrix per feature array (looked up by identity, then by shape and a 64-bit content hash; the
 * most recent {@value #CACHE_SIZE} are kept) and never changes its margin (changing the margin of a
 * DMatrix already trained on gives silently wrong trees): the bias enters only through the custom
 * gradients. Only the latest snapshot of a boosting run can be continued. Close the oracle to free
 * the cached native matrices; boosters are freed by xgboost4j when their last snapshot is collected.
 * Not thread-safe.
 *
 * <p>The same round also runs distributed ({@link #start}, {@link #boostPart} on every worker of
 * XGBoost's collective, {@link #finish}; the Spark learner's route): same gradients and settings,
 * the rows split over workers whose histograms XGBoost all-reduces.
 */
public final class BoostOracle implements Oracle, AutoCloseable {

    public static final double ETA = 0.25;
    public static final double MIN_LEAF_FRACTION = 0.05;
    public static final int MAX_DEPTH = 5;
    /**
     * Trust region on a leaf's Newton step (XGBoost's max_delta_step, before eta), in units of g = f/eps.
     * Loss augmentation makes the bias Delta/eps = 10 at the paper's eps, so the first rounds see true-label
     * probabilities near e^-10 and an unbounded Newton step of order 1/p: measured here, leaves of ~2,800
     * and unary energies of ~1e14 after a few rounds. 10 = Delta/eps bounds one round's change of an energy
     * by eta * Delta.
     */
    public static final double MAX_DELTA_STEP = 10.0;
    static final int CACHE_SIZE = 4;

    /** The per-class Hessian handed to XGBoost: hess_nc = factor * p_nc (1 - p_nc). */
    public enum Hessian {
        /** factor 1: the diagonal Newton step of docs/design.md §1. */
        NEWTON(1.0),
        /** factor 2: XGBoost's own multi:softprob Hessian, a half Newton step. */
        XGBOOST(2.0);

        final double factor;

        Hessian(double factor) {
            this.factor = factor;
        }

        public String cliName() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }

        public static Hessian parse(String s) {
            for (Hessian h : values()) if (h.cliName().equals(s.trim().toLowerCase(java.util.Locale.ROOT))) return h;
            throw new IllegalArgumentException("unknown boosting Hessian '" + s + "'; expected newton or xgboost");
        }
    }

    /** The default Hessian (chosen by the comparison in docs/wave2/cleanup.md). */
    public static final Hessian DEFAULT_HESSIAN = Hessian.NEWTON;

    private final int nthread;
    private final Hessian hessian;
    private final long seed;
    private final LinkedHashMap<Long, CachedMatrix> cache = new LinkedHashMap<>(8, 0.75f, true);
    /** The bins of the rows of this oracle's distributed rounds, made by the first of them (the features stay fixed for a run). */
    private FeatureCuts distributedCuts;

    private static final class CachedMatrix {
        final DMatrix dmatrix;
        final long rows;
        final long cols;
        WeakReference<INDArray> lastArray;

        CachedMatrix(DMatrix dmatrix, long rows, long cols, INDArray array) {
            this.dmatrix = dmatrix;
            this.rows = rows;
            this.cols = cols;
            this.lastArray = new WeakReference<>(array);
        }
    }

    public BoostOracle() {
        this(Runtime.getRuntime().availableProcessors(), 12345L);
    }

    /** The default Hessian. */
    public BoostOracle(int nthread, long seed) {
        this(nthread, seed, DEFAULT_HESSIAN);
    }

    public BoostOracle(int nthread, long seed, Hessian hessian) {
        if (nthread < 1) throw new IllegalArgumentException("boost oracle: nthread must be >= 1");
        this.nthread = nthread;
        this.seed = seed;
        this.hessian = java.util.Objects.requireNonNull(hessian, "hessian");
    }

    public Hessian hessian() {
        return hessian;
    }

    private Map<String, Object> params(int numClasses) {
        return params(numClasses, nthread, seed);
    }

    /** XGBoost's settings for one round (the class comment's list); min_child_weight is set per round. */
    static Map<String, Object> params(int numClasses, int nthread, long seed) {
        Map<String, Object> m = new HashMap<>();
        m.put("objective", "multi:softprob");   // only fixes the output width; gradients are ours
        m.put("num_class", numClasses);
        m.put("base_score", 0.0);
        m.put("eta", ETA);
        m.put("lambda", 0.0);
        m.put("alpha", 0.0);
        m.put("gamma", 0.0);
        m.put("max_depth", MAX_DEPTH);
        m.put("max_delta_step", MAX_DELTA_STEP);
        m.put("min_child_weight", 0.0);
        m.put("tree_method", "hist");
        m.put("max_bin", 256);
        m.put("subsample", 1.0);
        m.put("nthread", nthread);
        m.put("seed", seed);
        m.put("verbosity", 0);
        m.put("disable_default_eval_metric", 1);
        return m;
    }

    /**
     * The settings of one round, with min_child_weight = {@value #MIN_LEAF_FRACTION} * min over classes
     * of the Hessian sums {@code hsum} (over every training row). Set before every round: a saved or
     * shipped model keeps only the trees and the learner's shape, so a loaded booster would
     * otherwise train with XGBoost's defaults.
     */
    static Map<String, Object> roundParams(int numClasses, int nthread, long seed, double[] hsum) {
        double minH = Double.POSITIVE_INFINITY;
        for (double h : hsum) minH = Math.min(minH, h);
        Map<String, Object> params = params(numClasses, nthread, seed);
        params.put("min_child_weight", MIN_LEAF_FRACTION * minH);
        return params;
    }

    /** One round's custom gradient and Hessian (n x C, row-major) and the Hessian's per-class sums over the rows. */
    record Gradients(float[] grad, float[] hess, double[] hessianSums) {}

    /**
     * grad_nc = p_nc - [y_n = c] (the residual of {@link BiasedLogisticLoss#row}; W_n p_nc - T_nc for
     * weighted or soft targets), hess_nc = max(factor * W_n p_nc (1 - p_nc), 1e-16) with
     * p_n = softmax(m_n + b_n), m the ensemble's margins ({@code null}: all zero, before the first
     * round), b the bias (n x C, row-major), W_n the row's weight.
     */
    static Gradients gradients(float[][] margin, double[] b, RowTargets t, double factor) {
        int n = t.numRows(), c = t.numClasses();
        float[] grad = new float[n * c];
        float[] hess = new float[n * c];
        double[] hsum = new double[c];
        double[] z = new double[c], p = new double[c], r = new double[c];
        for (int i = 0; i < n; i++) {
            int o = i * c;
            for (int k = 0; k < c; k++) z[k] = (margin == null ? 0 : margin[i][k]) + b[o + k];
            BiasedLogisticLoss.row(t, i, z, 0, p, r);
            double w = factor * t.weight(i);
            for (int k = 0; k < c; k++) {
                double h = Math.max(w * p[k] * (1 - p[k]), 1e-16);
                grad[o + k] = (float) r[k];
                hess[o + k] = (float) h;
                hsum[k] += h;
            }
        }
        return new Gradients(grad, hess, hsum);
    }

    /** The ensemble a fit continues: a new one after nothing or a zero function, else the previous function's (its latest snapshot only). */
    private static BoostScore.Ensemble ensembleToContinue(ScoreFunction previous, int numFeatures, int numClasses) {
        if (previous == null || previous instanceof ZeroScore) return new BoostScore.Ensemble(numFeatures, numClasses);
        if (previous instanceof BoostScore bs) {
            BoostScore.Ensemble ens = bs.ensemble();
            synchronized (ens) {
                if (bs.rounds() != ens.rounds) {
                    throw new IllegalStateException("boost oracle: only the latest function of a boosting run can be continued"
                            + " (given " + bs.rounds() + " rounds, the run has " + ens.rounds + ")");
                }
            }
            return ens;
        }
        throw new IllegalArgumentException("boost oracle: cannot continue from a " + previous.kind() + " function");
    }

    @Override
    public ScoreFunction fit(BiasedLogisticProblem p, ScoreFunction previous) {
        ScoreFunctions.checkClasses(previous, p, "boost oracle");
        int n = p.numRows();
        int c = p.numClasses();
        BoostScore.Ensemble ens = ensembleToContinue(previous, p.numFeatures(), c);
        try {
            DMatrix dm = matrixFor(p);
            synchronized (ens) {
                if (ens.booster == null) {
                    ens.booster = XGBoost.train(dm, params(c), 0, new HashMap<>(), null, null);
                }
                Booster booster = ens.booster;
                float[][] margin = ens.rounds == 0 ? null : booster.predict(dm, true, 0);
                if (margin != null && (margin.length != n || margin[0].length != c)) {
                    throw new IllegalStateException("boost oracle: XGBoost margin has the wrong shape");
                }
                Gradients g = gradients(margin, BiasedLogisticProblem.flatDouble(p.bias()), p.targets(), hessian.factor);
                booster.setParams(roundParams(c, nthread, seed, g.hessianSums()));
                booster.boost(dm, ens.rounds, g.grad(), g.hess());
                ens.rounds++;
                return new BoostScore(ens, ens.rounds);
            }
        } catch (XGBoostError e) {
            throw new IllegalStateException("boost oracle: XGBoost failed: " + e.getMessage(), e);
        }
    }

    // ---- the same round, distributed: every worker holds some of the rows (used by the Spark learner) ----

    /**
     * What the workers of a distributed round need: the ensemble so far (XGBoost's UBJSON bytes, null
     * before the first round), its round count, the shape and the oracle's settings. {@code nthread}
     * is per worker.
     */
    public record Round(byte[] booster, int rounds, int numFeatures, int numClasses, int nthread, long seed, double hessianFactor,
            FeatureCuts cuts) implements java.io.Serializable {}

    /**
     * The start of a distributed fit continuing {@code previous} (checked as {@link #fit} checks it):
     * the ensemble's bytes, to be boosted by {@link #boostPart} on every worker and taken back by
     * {@link #finish}. {@code nthread} is each worker's XGBoost thread count; {@code cuts} are the bins
     * of all the workers' rows ({@link FeatureCuts#fromSample} of their pooled samples).
     */
    public Round start(ScoreFunction previous, int numFeatures, int numClasses, int nthread, FeatureCuts cuts) {
        if (cuts.numFeatures() != numFeatures) {
            throw new IllegalArgumentException("boost oracle: cuts for " + cuts.numFeatures() + " features, the rows have " + numFeatures);
        }
        if (previous != null && previous.numClasses() != numClasses) {
            throw new IllegalArgumentException("boost oracle: previous function has " + previous.numClasses() + " classes, the rows have " + numClasses);
        }
        if (previous != null && previous.numFeatures() >= 0 && previous.numFeatures() != numFeatures) {
            throw new IllegalArgumentException("boost oracle: previous function expects " + previous.numFeatures() + " features, the rows have " + numFeatures);
        }
        BoostScore.Ensemble ens = ensembleToContinue(previous, numFeatures, numClasses);
        synchronized (ens) {
            try {
                byte[] bytes = ens.booster == null ? null : ens.booster.toByteArray("ubj");
                return new Round(bytes, ens.rounds, numFeatures, numClasses, nthread, seed, hessian.factor, cuts);
            } catch (XGBoostError e) {
                throw new IllegalStateException("boost oracle: XGBoost could not serialise the ensemble: " + e.getMessage(), e);
            }
        }
    }

    /**
     * One worker's part of a distributed round, with XGBoost's collective (Communicator) already
     * initialised on this thread for all the round's workers; every worker calls it exactly once.
     * Its rows ({@code x} [n, D] row-major, labels, {@code bias} [n, C] row-major; n may be 0) get
     * the gradients {@link #fit} computes; {@code sumOverWorkers} returns the element-wise sum of every
     * worker's array (the per-class Hessian sums, for min_child_weight; the same doubles on every
     * worker); XGBoost all-reduces the sketches and histograms, so every worker grows the same trees.
     * Returns the booster after the round (UBJSON). Frees its native matrix and booster.
     */
    public static byte[] boostPart(Round r, float[] x, int[] y, float[] bias, java.util.function.UnaryOperator<double[]> sumOverWorkers)
            throws XGBoostError {
        int n = y.length, c = r.numClasses();
        DMatrix dm = zeroMarginMatrix(r.cuts().bin(x, n, r.numFeatures()), n, r.numFeatures(), c);
        Booster booster = null;
        try {
            float[] labels = new float[n];
            for (int i = 0; i < n; i++) labels[i] = y[i];
            dm.setLabel(labels);
            booster = r.booster() == null ? XGBoost.train(dm, params(c, r.nthread(), r.seed()), 0, new HashMap<>(), null, null)
                    : XGBoost.loadModel(r.booster());
            float[][] margin = r.rounds() == 0 ? null : booster.predict(dm, true, 0);
            if (margin != null && n > 0 && (margin.length != n || margin[0].length != c)) {
                throw new XGBoostError("boost oracle: XGBoost margin has the wrong shape");
            }
            double[] b = new double[bias.length];
            for (int k = 0; k < b.length; k++) b[k] = bias[k];
            Gradients g = gradients(margin, b, RowTargets.labels(y, c), r.hessianFactor());
            booster.setParams(roundParams(c, r.nthread(), r.seed(), sumOverWorkers.apply(g.hessianSums())));
            booster.boost(dm, r.rounds(), g.grad(), g.hess());
            return booster.toByteArray("ubj");
        } catch (java.io.IOException e) {
            throw new XGBoostError("boost oracle: cannot read the shipped ensemble: " + e.getMessage(), e);
        } finally {
            if (booster != null) booster.dispose();
            dm.dispose();
        }
    }

    /**
     * The function after a distributed round: {@code boosted} (the workers' booster, one round more
     * than {@code r}) becomes the ensemble {@code previous} belongs to, exactly what {@link #fit}
     * returns (the same class, snapshots and round count).
     */
    public ScoreFunction finish(Round r, ScoreFunction previous, byte[] boosted) {
        BoostScore.Ensemble ens = ensembleToContinue(previous, r.numFeatures(), r.numClasses());
        synchronized (ens) {
            if (ens.rounds != r.rounds()) throw new IllegalStateException("boost oracle: the ensemble moved on during a distributed round");
            try {
                Booster next = XGBoost.loadModel(boosted);
                if (next.getNumBoostedRound() != r.rounds() + 1) {
                    next.dispose();
                    throw new IllegalStateException("boost oracle: the workers returned " + next.getNumBoostedRound()
                            + " rounds, expected " + (r.rounds() + 1));
                }
                Booster old = ens.booster;
                ens.booster = next;
                ens.rounds++;
                if (old != null) old.dispose();   // earlier snapshots read the same first rounds from the new booster
                return new BoostScore(ens, ens.rounds);
            } catch (XGBoostError | java.io.IOException e) {
                throw new IllegalStateException("boost oracle: XGBoost could not load the workers' ensemble: " + e.getMessage(), e);
            }
        }
    }

    /**
     * The bins of a distributed run's rows: computed by {@code compute} at the first call (on Spark a
     * pass over every worker's rows), the same ones afterwards, as the features do not change
     * between fits. An oracle serves one learning run (one set of rows).
     */
    public synchronized FeatureCuts distributedCuts(int numFeatures, java.util.function.Supplier<FeatureCuts> compute) {
        if (distributedCuts == null) distributedCuts = compute.get();
        if (distributedCuts.numFeatures() != numFeatures) {
            throw new IllegalStateException("boost oracle: its distributed rows had " + distributedCuts.numFeatures() + " features, now " + numFeatures);
        }
        return distributedCuts;
    }

    /** The cached DMatrix for the problem's features, binned by their {@link FeatureCuts} (zero base margin, labels set), building it if new. */
    private DMatrix matrixFor(BiasedLogisticProblem p) throws XGBoostError {
        INDArray x = p.features();
        for (CachedMatrix cm : cache.values()) {
            if (cm.lastArray.get() == x && cm.rows == x.size(0) && cm.cols == x.size(1)) return cm.dmatrix;
        }
        float[] flat = BiasedLogisticProblem.flatFloat(x);
        long key = contentHash(flat, x.size(0), x.size(1));
        CachedMatrix hit = cache.get(key);
        if (hit != null && hit.rows == x.size(0) && hit.cols == x.size(1)) {
            hit.lastArray = new WeakReference<>(x);
            return hit.dmatrix;
        }
        float[] binned = FeatureCuts.of(flat, p.numRows(), p.numFeatures()).bin(flat, p.numRows(), p.numFeatures());
        DMatrix dm = zeroMarginMatrix(binned, p.numRows(), p.numFeatures(), p.numClasses());
        float[] labels = new float[p.numRows()];
        for (int i = 0; i < labels.length; i++) labels[i] = p.labels()[i];
        try {
            dm.setLabel(labels);
        } catch (XGBoostError e) {
            dm.dispose();
            throw e;
        }
        if (hit != null) cache.remove(key).dmatrix.dispose();   // hash collision with another shape
        cache.put(key, new CachedMatrix(dm, x.size(0), x.size(1), x));
        while (cache.size() > CACHE_SIZE) {
            Iterator<Map.Entry<Long, CachedMatrix>> it = cache.entrySet().iterator();
            it.next().getValue().dmatrix.dispose();
            it.remove();
        }
        return dm;
    }

    /**
     * A DMatrix of row-major {@code flat [n, d]} whose base margin is n x C zeros, set through
     * {@code XGDMatrixSetFloatInfo} (the Java setters refuse multi-class margins), return code checked.
     */
    static DMatrix zeroMarginMatrix(float[] flat, int n, int d, int numClasses) throws XGBoostError {
        DMatrix dm = new DMatrix(flat, n, d, Float.NaN);
        int rc = XGBoostJNI.XGDMatrixSetFloatInfo(dm.getHandle(), "base_margin", new float[n * numClasses]);
        if (rc != 0) {
            dm.dispose();
            throw new XGBoostError(XGBoostJNI.XGBGetLastError());
        }
        return dm;
    }

    static long contentHash(float[] flat, long rows, long cols) {
        long h = 0xcbf29ce484222325L ^ (rows * 31 + cols);
        for (float v : flat) {
            h ^= Float.floatToRawIntBits(v);
            h *= 0x100000001b3L;
        }
        return h;
    }

    /** Frees the cached native matrices. Functions fitted earlier stay usable. */
    @Override
    public void close() {
        for (CachedMatrix cm : cache.values()) cm.dmatrix.dispose();
        cache.clear();
    }

    @Override
    public String describe() {
        return "boost (XGBoost, 1 round per fit, eta " + ETA + ", leaves >= " + MIN_LEAF_FRACTION
                + " of the Hessian weight, max depth " + MAX_DEPTH + ", Hessian " + hessian.cliName()
                + ", " + nthread + " threads)";
    }
}
