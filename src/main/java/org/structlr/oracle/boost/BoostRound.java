package org.structlr.oracle.boost;

import org.structlr.oracle.BiasedLogisticLoss;
import org.structlr.oracle.RowTargets;
import org.structlr.oracle.ScoreFunction;

import java.io.IOException;
import java.io.Serializable;
import java.util.HashMap;
import java.util.Map;
import java.util.function.UnaryOperator;

import ml.dmlc.xgboost4j.java.Booster;
import ml.dmlc.xgboost4j.java.DMatrix;
import ml.dmlc.xgboost4j.java.XGBoost;
import ml.dmlc.xgboost4j.java.XGBoostError;

/**
 * One boosting round: one XGBoost regression tree per class, fitted to the biased logistic loss's
 * gradients at the current ensemble. The one implementation of the round: {@link BoostOracle} runs
 * it on all the rows of one machine ({@link #boost}), a distributed fit on every worker's share of
 * the rows, with the ensemble shipped to the workers and back as bytes ({@link #ship},
 * {@link #boostShipped}, {@link #adopt}: the Spark learner's route, where the rest of that protocol
 * lives). Same gradients, settings and bins either way.
 *
 * <p>With m the ensemble's margins on the rows (XGBoost's prediction), z = m + b and p = softmax(z),
 * the custom gradient and Hessian of the round are
 * <pre>
 *   grad_nc = p_nc - [y_n = c]          hess_nc = max(s * p_nc (1 - p_nc), 1e-16)
 * </pre>
 * (s the {@link Settings#hessianFactor}); XGBoost's settings are in {@link #params}, listed in
 * {@link BoostOracle}'s class comment.
 */
public final class BoostRound {
    private BoostRound() {}

    /**
     * What a round needs besides the rows and the ensemble: XGBoost's thread count, the seed and the
     * Hessian's factor s ({@link BoostOracle.Hessian}).
     */
    public record Settings(int nthread, long seed, double hessianFactor) implements Serializable {
        public Settings {
            if (nthread < 1) throw new IllegalArgumentException("boost round: nthread must be >= 1");
        }
    }

    /** XGBoost's settings for one round (the oracle's class comment lists them); min_child_weight is set per round. */
    static Map<String, Object> params(int numClasses, Settings s) {
        Map<String, Object> m = new HashMap<>();
        m.put("objective", "multi:softprob");   // only fixes the output width; gradients are ours
        m.put("num_class", numClasses);
        m.put("base_score", 0.0);
        m.put("eta", BoostOracle.ETA);
        m.put("lambda", 0.0);
        m.put("alpha", 0.0);
        m.put("gamma", 0.0);
        m.put("max_depth", BoostOracle.MAX_DEPTH);
        m.put("max_delta_step", BoostOracle.MAX_DELTA_STEP);
        m.put("min_child_weight", 0.0);
        m.put("tree_method", "hist");
        m.put("max_bin", 256);
        m.put("subsample", 1.0);
        m.put("nthread", s.nthread());
        m.put("seed", s.seed());
        m.put("verbosity", 0);
        m.put("disable_default_eval_metric", 1);
        return m;
    }

    /**
     * The settings of one round, with min_child_weight = {@value BoostOracle#MIN_LEAF_FRACTION} * min over
     * classes of the Hessian sums {@code hsum} (over every training row). Set before every round: a
     * saved or shipped model keeps only the trees and the learner's shape, so a loaded booster would
     * otherwise train with XGBoost's defaults.
     */
    static Map<String, Object> roundParams(int numClasses, Settings s, double[] hsum) {
        double minH = Double.POSITIVE_INFINITY;
        for (double h : hsum) minH = Math.min(minH, h);
        Map<String, Object> params = params(numClasses, s);
        params.put("min_child_weight", BoostOracle.MIN_LEAF_FRACTION * minH);
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

    /** A booster with no rounds yet for {@code dm}'s rows ({@code numClasses} trees per round). */
    static Booster newBooster(DMatrix dm, int numClasses, Settings s) throws XGBoostError {
        return XGBoost.train(dm, params(numClasses, s), 0, new HashMap<>(), null, null);
    }

    /**
     * The training matrix of binned rows ({@code binned [n, d]} row-major, {@link FeatureCuts#bin}):
     * zero base margin, the labels set (XGBoost wants some; the gradients are ours).
     */
    static DMatrix matrix(float[] binned, int n, int d, int numClasses, int[] labels) throws XGBoostError {
        DMatrix dm = BoostScore.zeroMarginMatrix(binned, n, d, numClasses);
        float[] l = new float[n];
        for (int i = 0; i < n; i++) l[i] = labels[i];
        try {
            dm.setLabel(l);
        } catch (XGBoostError e) {
            dm.dispose();
            throw e;
        }
        return dm;
    }

    /**
     * The round: after {@code done} rounds of {@code booster} on {@code dm}'s n rows (bias b [n, C]
     * row-major, targets t), the gradients above; min_child_weight from the per-class Hessian sums
     * after {@code sumOverWorkers} (the identity on one machine; on a distributed round the sum over
     * every worker, the same doubles on each); then XGBoost grows the round's trees.
     */
    static void boost(Booster booster, int done, DMatrix dm, double[] b, RowTargets t, Settings s,
                      UnaryOperator<double[]> sumOverWorkers) throws XGBoostError {
        int n = t.numRows(), c = t.numClasses();
        float[][] margin = done == 0 ? null : booster.predict(dm, true, 0);
        if (margin != null && n > 0 && (margin.length != n || margin[0].length != c)) {
            throw new XGBoostError("boost round: XGBoost margin has the wrong shape");
        }
        Gradients g = gradients(margin, b, t, s.hessianFactor());
        booster.setParams(roundParams(c, s, sumOverWorkers.apply(g.hessianSums())));
        booster.boost(dm, done, g.grad(), g.hess());
    }

    // ---- the round on shipped ensembles: a distributed fit's three steps ----

    /** An ensemble on its way to a distributed round's workers: XGBoost's UBJSON bytes (null before the first round), its round count and shape. */
    public record Shipped(byte[] booster, int rounds, int numFeatures, int numClasses) implements Serializable {}

    /**
     * The ensemble a distributed fit continuing {@code previous} ships to its workers (checked as
     * {@link BoostOracle#fit} checks it: the latest snapshot of a boosting run, or nothing, or a zero
     * function).
     */
    public static Shipped ship(ScoreFunction previous, int numFeatures, int numClasses) {
        BoostScore.Ensemble ens = BoostScore.Ensemble.continuing(previous, numFeatures, numClasses, "boost round");
        synchronized (ens) {
            try {
                byte[] bytes = ens.booster == null ? null : ens.booster.toByteArray("ubj");
                return new Shipped(bytes, ens.rounds, numFeatures, numClasses);
            } catch (XGBoostError e) {
                throw new IllegalStateException("boost round: XGBoost could not serialise the ensemble: " + e.getMessage(), e);
            }
        }
    }

    /**
     * One worker's part of a distributed round (every worker calls it once): its rows ({@code x}
     * [n, D] row-major, binned by {@code cuts}, the bins of ALL the workers' rows; labels;
     * {@code bias} [n, C] row-major; n may be 0) get {@link #boost} on the ensemble rebuilt from
     * {@code e}, with XGBoost's collective (when there is more than one worker) already initialised
     * on this thread: it all-reduces the sketches and histograms, so every worker grows the same
     * trees. Returns the booster after the round (UBJSON). Frees its native matrix and booster.
     */
    public static byte[] boostShipped(Shipped e, Settings s, FeatureCuts cuts, float[] x, int[] y, float[] bias,
                                      UnaryOperator<double[]> sumOverWorkers) throws XGBoostError {
        int n = y.length, c = e.numClasses(), d = e.numFeatures();
        if (cuts.numFeatures() != d) {
            throw new IllegalArgumentException("boost round: cuts for " + cuts.numFeatures() + " features, the rows have " + d);
        }
        DMatrix dm = matrix(cuts.bin(x, n, d), n, d, c, y);
        Booster booster = null;
        try {
            booster = e.booster() == null ? newBooster(dm, c, s) : XGBoost.loadModel(e.booster());
            double[] b = new double[bias.length];
            for (int k = 0; k < b.length; k++) b[k] = bias[k];
            boost(booster, e.rounds(), dm, b, RowTargets.labels(y, c), s, sumOverWorkers);
            return booster.toByteArray("ubj");
        } catch (IOException ex) {
            throw new XGBoostError("boost round: cannot read the shipped ensemble: " + ex.getMessage(), ex);
        } finally {
            if (booster != null) booster.dispose();
            dm.dispose();
        }
    }

    /**
     * The function after a distributed round: {@code boosted} (the workers' booster, one round more
     * than {@code sent}) becomes the ensemble {@code previous} belongs to, exactly what
     * {@link BoostOracle#fit} returns (the same class, snapshots and round count).
     */
    public static ScoreFunction adopt(ScoreFunction previous, Shipped sent, byte[] boosted) {
        BoostScore.Ensemble ens = BoostScore.Ensemble.continuing(previous, sent.numFeatures(), sent.numClasses(), "boost round");
        synchronized (ens) {
            if (ens.rounds != sent.rounds()) throw new IllegalStateException("boost round: the ensemble moved on during a distributed round");
            try {
                Booster next = XGBoost.loadModel(boosted);
                if (next.getNumBoostedRound() != sent.rounds() + 1) {
                    next.dispose();
                    throw new IllegalStateException("boost round: the workers returned " + next.getNumBoostedRound()
                            + " rounds, expected " + (sent.rounds() + 1));
                }
                Booster old = ens.booster;
                ens.booster = next;
                ens.rounds++;
                if (old != null) old.dispose();   // earlier snapshots read the same first rounds from the new booster
                return new BoostScore(ens, ens.rounds);
            } catch (XGBoostError | IOException ex) {
                throw new IllegalStateException("boost round: XGBoost could not load the workers' ensemble: " + ex.getMessage(), ex);
            }
        }
    }
}
