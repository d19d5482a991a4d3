package org.structlr.oracle.linear;

import org.structlr.oracle.BiasedLogisticProblem;
import org.structlr.oracle.TestProblems;

import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;

/**
 * Not a test: milliseconds per loss-and-gradient evaluation of the linear oracle on one pairwise
 * problem of the denoising set (rows x 2 features x 4 classes, FLOAT): the former ND4J version (X W
 * and X^T R as matrix products, softmax in a Java loop) against {@link LinearLoss} on 1 and 2
 * threads. Run with
 * {@code java -cp target/classes:target/test-classes:<classpath> org.structlr.oracle.linear.LinearLossTiming [rows] [evaluations]}
 * (set OMP_NUM_THREADS for the ND4J version).
 */
public final class LinearLossTiming {

    public static void main(String[] args) {
        int rows = args.length > 0 ? Integer.parseInt(args[0]) : 320_000;
        int evals = args.length > 1 ? Integer.parseInt(args[1]) : 50;
        int c = args.length > 2 ? Integer.parseInt(args[2]) : 4;
        BiasedLogisticProblem p = TestProblems.random(rows, 2, c, 1.0, 1, DataType.FLOAT);
        int d = p.numFeatures();
        double[] w = new double[d * c];
        for (int i = 0; i < w.length; i++) w[i] = 0.1 * (i % 5) - 0.2;
        Lbfgs.Objective nd4j = nd4jObjective(p);
        Lbfgs.Objective one = LinearLoss.of(p, 1), two = LinearLoss.of(p, 2);
        double[] g0 = new double[d * c], g1 = new double[d * c], g2 = new double[d * c];
        double f0 = nd4j.valueAndGradient(w, g0), f1 = one.valueAndGradient(w, g1), f2 = two.valueAndGradient(w, g2);
        System.out.printf("problem %s; loss nd4j %.12f, 1 thread %.12f, 2 threads %.12f (equal bits: %b)%n", p, f0, f1, f2,
                f1 == f2 && java.util.Arrays.equals(g1, g2));
        for (int round = 0; round < 3; round++) {
            System.out.printf("round %d: nd4j %.2f ms, plain 1 thread %.2f ms, plain 2 threads %.2f ms%n", round,
                    time(nd4j, w, g0, evals), time(one, w, g1, evals), time(two, w, g2, evals));
        }
    }

    private static double time(Lbfgs.Objective f, double[] w, double[] g, int evals) {
        long t = System.nanoTime();
        for (int k = 0; k < evals; k++) f.valueAndGradient(w, g);
        return (System.nanoTime() - t) / 1e6 / evals;
    }

    /** The objective as LinearOracle computed it before LinearLoss (for the comparison only). */
    static Lbfgs.Objective nd4jObjective(BiasedLogisticProblem p) {
        int n = p.numRows(), d = p.numFeatures(), c = p.numClasses();
        INDArray x = p.features().castTo(DataType.DOUBLE);
        INDArray xt = x.transpose();
        double[] b = BiasedLogisticProblem.flatDouble(p.bias());
        int[] y = p.labels();
        double[] r = new double[n * c];
        return (w, grad) -> {
            INDArray wm = Nd4j.create(w, new long[]{d, c}, DataType.DOUBLE);
            double[] s = x.mmul(wm).dup('c').data().asDouble();
            double total = 0;
            for (int i = 0; i < n; i++) {
                int o = i * c;
                double max = Double.NEGATIVE_INFINITY;
                for (int k = 0; k < c; k++) max = Math.max(max, s[o + k] += b[o + k]);
                double sum = 0;
                for (int k = 0; k < c; k++) sum += (r[o + k] = Math.exp(s[o + k] - max));
                total += max + Math.log(sum) - s[o + y[i]];
                for (int k = 0; k < c; k++) r[o + k] /= sum;
                r[o + y[i]] -= 1;
            }
            INDArray g = xt.mmul(Nd4j.create(r, new long[]{n, c}, DataType.DOUBLE)).divi(n);
            System.arraycopy(g.dup('c').data().asDouble(), 0, grad, 0, d * c);
            return total / n;
        };
    }
}
