package org.structlr.oracle.linear;

import org.structlr.oracle.BiasedLogisticProblem;
import org.structlr.oracle.Oracle;
import org.structlr.oracle.ScoreFunction;
import org.structlr.oracle.TestProblems;
import org.structlr.oracle.boost.BoostOracle;
import org.structlr.oracle.nn.MlpOracle;

import java.util.ArrayList;
import java.util.List;

import org.nd4j.linalg.api.buffer.DataType;

/**
 * Not a test: prints seconds per oracle fit on 160,000 rows x 2 features x 2 classes (FLOAT), the
 * size of one synthetic-denoising unary problem (16 images of 100 x 100). Run with
 * {@code java -cp target/classes:target/test-classes:<classpath> org.structlr.oracle.linear.OracleTiming [rows] [fits]}.
 *
 * <p>Measured 2026-11-29 on the shared 2-core machine under load 8-9 (compare ratios), FLOAT,
 * seconds per fit after the first call (first call in brackets: JIT, DMatrix build):
 * <pre>
 *                      OMP_NUM_THREADS=1          OMP_NUM_THREADS=2
 *   zero               0.000 (0.33)               0.000 (0.41)
 *   constant (Newton)  0.06-0.15 (0.37)           0.13-0.24 (0.50)
 *   linear (L-BFGS)    0.18-0.37 (0.83)           0.21-0.52 (1.10)
 *   mlp (2 epochs)     2.8-3.4 (3.1)              21-42 (39)
 *   boost (1 round)    0.09-0.11 (0.34)           0.43-1.3 (1.5)    [XGBoost nthread 2 in both]
 * </pre>
 * The MLP is bound by DL4J's per-mini-batch overhead (320 fit calls of 1000 rows); with 2 OpenMP
 * threads on a busy machine it is about 10x slower, as stack-measurements.md warns.
 */
public final class OracleTiming {

    public static void main(String[] args) {
        int rows = args.length > 0 ? Integer.parseInt(args[0]) : 160_000;
        int fits = args.length > 1 ? Integer.parseInt(args[1]) : 4;
        BiasedLogisticProblem p = TestProblems.random(rows, 2, 2, 1.0, 1, DataType.FLOAT);
        System.out.printf("problem %s, %d fits per oracle (each with a new bias), OMP_NUM_THREADS=%s%n", p, fits,
                System.getenv("OMP_NUM_THREADS"));
        List<BiasedLogisticProblem> problems = new ArrayList<>();
        problems.add(p);
        for (int k = 1; k < fits; k++) problems.add(TestProblems.withNewBias(p, 1.0, 1000 + k));
        BoostOracle boost = new BoostOracle(Math.max(1, Runtime.getRuntime().availableProcessors()), 1);
        Oracle[] oracles = {new ZeroOracle(), new ConstantOracle(), new LinearOracle(), MlpOracle.unary(), boost};
        for (Oracle o : oracles) {
            ScoreFunction f = null;
            StringBuilder times = new StringBuilder();
            double total = 0;
            for (BiasedLogisticProblem q : problems) {
                long t0 = System.nanoTime();
                f = o.fit(q, f);
                double s = (System.nanoTime() - t0) / 1e9;
                total += s;
                times.append(String.format(" %.3f", s));
            }
            long t0 = System.nanoTime();
            double loss = problems.get(problems.size() - 1).meanLoss(f);
            double scoreS = (System.nanoTime() - t0) / 1e9;
            System.out.printf("%-70s s/fit:%s  (mean %.3f; scores+loss %.3f s; last mean loss %.4f)%n",
                    o.describe(), times, total / fits, scoreS, loss);
        }
        boost.close();
    }
}
