package org.structlr.oracle.boost;

import org.structlr.oracle.BiasedLogisticProblem;
import org.structlr.oracle.Oracle;
import org.structlr.oracle.ScoreFunction;

import java.lang.ref.WeakReference;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;

import ml.dmlc.xgboost4j.java.DMatrix;
import ml.dmlc.xgboost4j.java.XGBoostError;
import org.nd4j.linalg.api.ndarray.INDArray;

/**
 * The boosted-trees function class: every fit adds ONE round, one XGBoost regression tree per class,
 * fitted to the biased logistic loss at the current ensemble.
 *
 * <p>Per fit, with m the ensemble's margin on the training rows (the booster's own prediction
 * cache), z = m + b and p = softmax(z), {@link BoostRound} hands XGBoost the custom gradient and Hessian
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
 * <p>The round itself (gradients, XGBoost's settings, growing the trees) is {@link BoostRound}'s,
 * which a distributed fit runs on every worker (the Spark learner's route).
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

    /**
     * This oracle's round settings (seed, Hessian) with {@code nthread} XGBoost threads: a distributed
     * round's workers run the round as this oracle does, each with its own thread count.
     */
    public BoostRound.Settings roundSettings(int nthread) {
        return new BoostRound.Settings(nthread, seed, hessian.factor);
    }

    @Override
    public ScoreFunction fit(BiasedLogisticProblem p, ScoreFunction previous) {
        int c = p.numClasses();
        BoostScore.Ensemble ens = BoostScore.Ensemble.continuing(previous, p.numFeatures(), c, "boost oracle");
        BoostRound.Settings settings = roundSettings(nthread);
        try {
            DMatrix dm = matrixFor(p);
            synchronized (ens) {
                if (ens.booster == null) ens.booster = BoostRound.newBooster(dm, c, settings);
                BoostRound.boost(ens.booster, ens.rounds, dm, BiasedLogisticProblem.flatDouble(p.bias()), p.targets(), settings, h -> h);
                ens.rounds++;
                return new BoostScore(ens, ens.rounds);
            }
        } catch (XGBoostError e) {
            throw new IllegalStateException("boost oracle: XGBoost failed: " + e.getMessage(), e);
        }
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
        DMatrix dm = BoostRound.matrix(binned, p.numRows(), p.numFeatures(), p.numClasses(), p.labels());
        if (hit != null) cache.remove(key).dmatrix.dispose();   // hash collision with another shape
        cache.put(key, new CachedMatrix(dm, x.size(0), x.size(1), x));
        while (cache.size() > CACHE_SIZE) {
            Iterator<Map.Entry<Long, CachedMatrix>> it = cache.entrySet().iterator();
            it.next().getValue().dmatrix.dispose();
            it.remove();
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
