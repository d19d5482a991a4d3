package org.structlr.oracle;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.util.Arrays;
import java.util.Random;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;

/**
 * The check every export passes ({@link FunctionClass#export}): a written function is read back
 * and compared with {@link ScoreFunction#scores} on random features ({@link #check}); a mismatch
 * throws, and the caller (ModelExport) leaves nothing behind. The writers live with their
 * families: DL4J networks in {@code oracle.nn.NetworkExport}, XGBoost models in
 * {@code oracle.boost.BoosterExport}.
 */
public final class FunctionExport {
    /** Largest |exported - structlr| allowed, relative to max(1, |g|). */
    public static final double TOLERANCE = 1e-6;
    static final int CHECK_ROWS = 64;
    /** The JSON mapper of manifests. */
    public static final ObjectMapper JSON = ScoreFunctions.JSON;

    private FunctionExport() {}

    /** Evaluates an exported function on features [N, D]. */
    public interface Scorer {
        INDArray apply(INDArray x) throws Exception;
    }

    /** Compares {@code exported} with {@code f.scores} on random features in [0, 1) (seeded). */
    public static void check(ScoreFunction f, String name, int width, DataType type, Scorer exported) throws IOException {
        Random rng = new Random(0x5eed ^ name.hashCode());
        double[] v = new double[CHECK_ROWS * width];
        for (int i = 0; i < v.length; i++) v[i] = rng.nextDouble();
        INDArray x = Nd4j.create(v, new long[]{CHECK_ROWS, width}, DataType.DOUBLE).castTo(type);
        INDArray want = f.scores(x).castTo(DataType.DOUBLE);
        INDArray got;
        try {
            got = exported.apply(x).castTo(DataType.DOUBLE);
        } catch (Exception e) {
            throw new IOException(name + ": the exported function cannot be evaluated: " + e.getMessage(), e);
        }
        if (!Arrays.equals(want.shape(), got.shape())) {
            throw new IllegalStateException(name + ": exported function gives shape " + Arrays.toString(got.shape())
                    + ", structlr " + Arrays.toString(want.shape()));
        }
        double worst = 0;
        for (int i = 0; i < want.length(); i++) {
            double a = want.getDouble(i), b = got.getDouble(i);
            worst = Math.max(worst, Math.abs(a - b) / Math.max(1, Math.abs(a)));
        }
        if (!(worst <= TOLERANCE)) {
            throw new IllegalStateException(name + ": exported function differs from the model's by " + worst
                    + " (tolerance " + TOLERANCE + "); nothing exported");
        }
    }

}
