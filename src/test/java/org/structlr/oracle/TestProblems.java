package org.structlr.oracle;

import java.util.Random;

import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;

/** Small, well-posed (non-separable) biased logistic problems for the tests. */
public final class TestProblems {

    private TestProblems() {
    }

    /**
     * X [n, d] with a constant-1 first column and N(0,1) others; bias N(0, biasScale^2); labels sampled
     * from softmax(X Wtrue + bias) with Wtrue ~ N(0,1), so every class occurs and nothing separates.
     */
    public static BiasedLogisticProblem random(int n, int d, int c, double biasScale, long seed, DataType dt) {
        Random r = new Random(seed);
        double[] x = new double[n * d];
        double[] b = new double[n * c];
        double[] w = new double[d * c];
        for (int i = 0; i < w.length; i++) w[i] = r.nextGaussian();
        int[] y = new int[n];
        double[] z = new double[c];
        for (int i = 0; i < n; i++) {
            x[i * d] = 1;
            for (int j = 1; j < d; j++) x[i * d + j] = r.nextGaussian();
            double sum = 0;
            for (int k = 0; k < c; k++) {
                b[i * c + k] = biasScale * r.nextGaussian();
                double s = b[i * c + k];
                for (int j = 0; j < d; j++) s += x[i * d + j] * w[j * c + k];
                z[k] = Math.exp(s);
                sum += z[k];
            }
            double u = r.nextDouble() * sum;
            int k = 0;
            while (k < c - 1 && (u -= z[k]) > 0) k++;
            y[i] = k;
        }
        INDArray xa = Nd4j.create(x, new long[]{n, d}, DataType.DOUBLE).castTo(dt);
        INDArray ba = Nd4j.create(b, new long[]{n, c}, DataType.DOUBLE).castTo(dt);
        return new BiasedLogisticProblem(xa, y, ba, c);
    }

    /** Same features and labels, a new bias (as when messages move between oracle calls). */
    public static BiasedLogisticProblem withNewBias(BiasedLogisticProblem p, double biasScale, long seed) {
        Random r = new Random(seed);
        double[] b = new double[p.numRows() * p.numClasses()];
        for (int i = 0; i < b.length; i++) b[i] = biasScale * r.nextGaussian();
        INDArray ba = Nd4j.create(b, new long[]{p.numRows(), p.numClasses()}, DataType.DOUBLE).castTo(p.dataType());
        return new BiasedLogisticProblem(p.features(), p.labels(), ba, p.numClasses());
    }

    public static double maxAbsDiff(INDArray a, INDArray b) {
        return a.castTo(DataType.DOUBLE).sub(b.castTo(DataType.DOUBLE)).amaxNumber().doubleValue();
    }

    /** Row i of p repeated times[i] times (0: left out). */
    public static BiasedLogisticProblem repeat(BiasedLogisticProblem p, int[] times) {
        int n = java.util.Arrays.stream(times).sum();
        int[] rows = new int[n], y = new int[n];
        int o = 0;
        for (int i = 0; i < times.length; i++) for (int k = 0; k < times[i]; k++) rows[o++] = i;
        for (int i = 0; i < n; i++) y[i] = p.labels()[rows[i]];
        return new BiasedLogisticProblem(Nd4j.pullRows(p.features(), 1, rows), y, Nd4j.pullRows(p.bias(), 1, rows), p.numClasses());
    }

    /** Each row of p once per class c, labelled c and weighted soft[i * C + c]. */
    public static BiasedLogisticProblem mixture(BiasedLogisticProblem p, double[] soft) {
        int n = p.numRows(), c = p.numClasses();
        int[] rows = new int[n * c], y = new int[n * c];
        for (int i = 0; i < n; i++) {
            for (int k = 0; k < c; k++) {
                rows[i * c + k] = i;
                y[i * c + k] = k;
            }
        }
        return new BiasedLogisticProblem(Nd4j.pullRows(p.features(), 1, rows), RowTargets.labels(y, c).withWeights(soft),
                Nd4j.pullRows(p.bias(), 1, rows));
    }
}
