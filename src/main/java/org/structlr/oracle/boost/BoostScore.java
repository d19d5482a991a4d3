package org.structlr.oracle.boost;

import org.structlr.oracle.BiasedLogisticProblem;
import org.structlr.oracle.ScoreFunction;
import org.structlr.oracle.ScoreFunctions;
import org.structlr.oracle.ZeroScore;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import ml.dmlc.xgboost4j.java.Booster;
import ml.dmlc.xgboost4j.java.DMatrix;
import ml.dmlc.xgboost4j.java.XGBoost;
import ml.dmlc.xgboost4j.java.XGBoostError;
import ml.dmlc.xgboost4j.java.XGBoostJNI;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;

/**
 * g(phi, c) = sum over the first {@code rounds} boosting rounds of the class-c tree's leaf value
 * (XGBoost's tree t belongs to class t % C), computed by XGBoost's margin prediction on a fresh
 * DMatrix with a zero base margin, so base_score never enters. (Measured: {@code inplace_predict}
 * cannot take a multi-class base margin: it passes N*C values as one column and XGBoost refuses
 * the shape, like {@code DMatrix.setBaseMargin}; the margin is set with
 * {@code XGDMatrixSetFloatInfo} instead.)
 *
 * <p>Snapshots share one growing {@link Ensemble}: the booster only ever gains rounds, and this
 * function reads the first {@code rounds} of them, so it never changes when the oracle continues.
 * Saved as {@code model.ubj} (XGBoost's own format, via {@code booster.saveModel}) plus the round
 * count in the JSON; a snapshot older than its ensemble saves every round and its count.
 */
public final class BoostScore implements ScoreFunction {

    static final String KIND = "boost";
    static final String MODEL_FILE = "model.ubj";

    /** A booster and how many rounds it holds; shared by the snapshots of one boosting run. */
    static final class Ensemble {
        final int numFeatures;
        final int numClasses;
        Booster booster;      // null until the first round
        int rounds;

        Ensemble(int numFeatures, int numClasses) {
            this.numFeatures = numFeatures;
            this.numClasses = numClasses;
        }

        /**
         * The ensemble a fit continuing {@code previous} adds its round to: a new one after nothing or
         * a zero function, else the previous function's (its latest snapshot only). {@code who} names
         * the caller in errors.
         */
        static Ensemble continuing(ScoreFunction previous, int numFeatures, int numClasses, String who) {
            ScoreFunctions.checkClasses(previous, numFeatures, numClasses, who);
            if (previous == null || previous instanceof ZeroScore) return new Ensemble(numFeatures, numClasses);
            if (previous instanceof BoostScore bs) {
                Ensemble ens = bs.ensemble;
                synchronized (ens) {
                    if (bs.rounds != ens.rounds) {
                        throw new IllegalStateException(who + ": only the latest function of a boosting run can be continued"
                                + " (given " + bs.rounds + " rounds, the run has " + ens.rounds + ")");
                    }
                }
                return ens;
            }
            throw new IllegalArgumentException(who + ": cannot continue from a " + previous.kind() + " function");
        }
    }

    /**
     * A DMatrix of row-major {@code flat [n, d]} whose base margin is n x C zeros, so that margins are
     * exactly sums of leaves; set through {@code XGDMatrixSetFloatInfo} (the Java setters refuse
     * multi-class margins), return code checked.
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

    private final Ensemble ensemble;
    private final int rounds;

    BoostScore(Ensemble ensemble, int rounds) {
        this.ensemble = ensemble;
        this.rounds = rounds;
    }

    /** Number of boosting rounds (one tree per class each) in this function. */
    public int rounds() {
        return rounds;
    }

    /** The underlying booster (shared; it may hold more rounds than {@link #rounds()}). */
    Booster booster() {
        return ensemble.booster;
    }

    /** How many rounds the shared booster holds now (at least {@link #rounds()}; more when the run went on). */
    public int boosterRounds() {
        synchronized (ensemble) {
            return ensemble.rounds;
        }
    }

    /**
     * The whole shared booster serialised by XGBoost ({@code format} "json" or "ubj"); it may hold
     * more rounds than this function ({@link #boosterRounds()}). Used by export.
     */
    public byte[] boosterBytes(String format) throws IOException {
        synchronized (ensemble) {
            try {
                return ensemble.booster.toByteArray(format);
            } catch (XGBoostError e) {
                throw new IOException("XGBoost could not serialise the model: " + e.getMessage(), e);
            }
        }
    }

    @Override
    public INDArray scores(INDArray features) {
        ScoreFunctions.checkFeatures(features, ensemble.numFeatures, "boost score");
        int n = (int) features.size(0);
        int c = ensemble.numClasses;
        float[][] margins;
        synchronized (ensemble) {
            DMatrix dm = null;
            try {
                dm = zeroMarginMatrix(BiasedLogisticProblem.flatFloat(features), n, ensemble.numFeatures, c);
                margins = ensemble.booster.predict(dm, true, rounds);
            } catch (XGBoostError e) {
                throw new IllegalStateException("boost score: XGBoost prediction failed: " + e.getMessage(), e);
            } finally {
                if (dm != null) dm.dispose();
            }
        }
        if (margins.length != n || (n > 0 && margins[0].length != c)) {
            throw new IllegalStateException("boost score: XGBoost returned " + margins.length + " x "
                    + (n > 0 ? margins[0].length : 0) + " margins, expected " + n + " x " + c);
        }
        float[] flat = new float[n * c];
        for (int i = 0; i < n; i++) System.arraycopy(margins[i], 0, flat, i * c, c);
        INDArray out = Nd4j.create(flat, new long[]{n, c}, 'c');
        return features.dataType() == DataType.FLOAT ? out : out.castTo(features.dataType());
    }

    @Override
    public int numClasses() {
        return ensemble.numClasses;
    }

    @Override
    public int numFeatures() {
        return ensemble.numFeatures;
    }

    @Override
    public String kind() {
        return KIND;
    }

    @Override
    public String describe() {
        return "boost: " + rounds + " rounds x " + ensemble.numClasses + " trees on " + ensemble.numFeatures + " features";
    }

    @Override
    public void save(Path dir) throws IOException {
        Files.createDirectories(dir);
        synchronized (ensemble) {
            try {
                ensemble.booster.saveModel(dir.resolve(MODEL_FILE).toString());
            } catch (XGBoostError e) {
                throw new IOException(dir + ": XGBoost could not save the model: " + e.getMessage(), e);
            }
        }
        ObjectNode meta = ScoreFunctions.meta(this);
        meta.put("rounds", rounds);
        ScoreFunctions.writeMeta(dir, meta);
    }

    static BoostScore load(Path dir, JsonNode meta) throws IOException {
        Path file = dir.resolve(MODEL_FILE);
        if (!Files.isRegularFile(file)) throw new IOException(file + ": missing XGBoost model");
        int rounds = meta.path("rounds").asInt(-1);
        int c = meta.path("numClasses").asInt();
        int d = meta.path("numFeatures").asInt();
        Ensemble e = new Ensemble(d, c);
        try {
            e.booster = XGBoost.loadModel(file.toString());
            e.rounds = e.booster.getNumBoostedRound();
        } catch (XGBoostError ex) {
            throw new IOException(file + ": XGBoost could not load the model: " + ex.getMessage(), ex);
        }
        if (rounds < 1 || rounds > e.rounds) {
            throw new IOException(file + ": " + ScoreFunctions.META_FILE + " says " + rounds + " rounds, the model holds "
                    + e.rounds);
        }
        return new BoostScore(e, rounds);
    }

    @Override
    public String toString() {
        return describe();
    }
}
