package org.structlr.oracle.nn;

import org.structlr.oracle.BiasedLogisticProblem;
import org.structlr.oracle.ScoreFunction;

import org.nd4j.linalg.api.buffer.DataType;

/**
 * Not a test (a timing has no place in a unit test): prints seconds per CNN oracle fit on 9x9x3
 * patches. Run with {@code OMP_NUM_THREADS=1 mvn -B -o -q test-compile exec:java
 * -Dexec.classpathScope=test -Dexec.mainClass=org.structlr.oracle.nn.CnnTiming} and the optional
 * properties cnn.rows (default 280,000), cnn.f1, cnn.f2, cnn.step.
 */
public final class CnnTiming {
    private CnnTiming() {}

    public static void main(String[] args) {
        int rows = Integer.getInteger("cnn.rows", 280_000);
        BiasedLogisticProblem p = CnnOracleTest.patches(rows, 9, 25, 1.0, 45, DataType.FLOAT);
        int f1 = Integer.getInteger("cnn.f1", CnnOracle.DEFAULT_FILTERS1), f2 = Integer.getInteger("cnn.f2", CnnOracle.DEFAULT_FILTERS2);
        double step = Double.parseDouble(System.getProperty("cnn.step", "" + CnnOracle.UNARY_STEP));
        CnnOracle o = new CnnOracle(step, f1, f2, CnnOracle.DEFAULT_DENSE, 1, 1000, 0.9, 1);
        ScoreFunction f = null;
        for (int t = 0; t < 3; t++) {
            long t0 = System.nanoTime();
            f = o.fit(p, f);
            double s = (System.nanoTime() - t0) / 1e9;
            long t1 = System.nanoTime();
            double loss = p.meanLoss(f);
            System.out.printf("cnn %dx%d step %s, %d rows, OMP_NUM_THREADS=%s: fit %d took %.1f s (scoring all rows %.1f s), loss %.4f%n",
                    f1, f2, step, rows, System.getenv("OMP_NUM_THREADS"), t + 1, s, (System.nanoTime() - t1) / 1e9, loss);
        }
    }
}
