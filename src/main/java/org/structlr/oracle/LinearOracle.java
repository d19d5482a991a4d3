package org.structlr.oracle;

import org.deeplearning4j.nn.conf.MultiLayerConfiguration;
import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.nn.conf.layers.OutputLayer;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.deeplearning4j.nn.weights.WeightInit;
import org.nd4j.linalg.activations.Activation;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.learning.config.NoOp;

/**
 * The linear function class g = W phi (W stored [D, C], g = X W), fitted by full-batch L-BFGS on the
 * mean biased logistic loss, in double precision, to {@code max |X^T (softmax(XW + B) - Y)| / N <=
 * gradTolerance} or {@code maxIterations} iterations.
 *
 * <p>Optimiser: the package's own {@link Lbfgs} (two-loop recursion, memory 10, Armijo
 * backtracking), with X W and X^T R as ND4J matrix products and the softmax in a double loop. Not
 * DL4J's {@code OptimizationAlgorithm.LBFGS}: measured here on a 200 x 3, 3-class problem it (a) stalls
 * for good with DL4J's default miniBatch(true) (the solver sees the mean loss but the summed
 * gradient, so its line search never accepts a step), and (b) with miniBatch(false) converges only
 * linearly (the gradient roughly halves per fit call), 0.15-0.45 s per call, and was still 6e-5 away
 * from an independent Newton solution after 200 calls (58 s). The fitted W is held in a one-layer
 * DL4J network (IDENTITY OutputLayer without bias, {@link BiasedSoftmaxLoss}) so that the model is
 * saved with ModelSerializer like the MLP.
 *
 * <p>Every accepted step decreases the loss, so a warm-started fit never ends worse than it began.
 * Warm start: from the previous W (the previous function is not touched); from scratch W = 0. The
 * loss is invariant to adding one vector to every class's column of W; gradients have columns
 * summing to zero, and L-BFGS steps are combinations of gradients, so sum_c W_jc stays where it
 * started (0 from scratch). The network's precision is the first problem's (FLOAT or DOUBLE).
 */
public final class LinearOracle implements Oracle {

    private final double gradTolerance;
    private final int maxIterations;
    private final long seed;

    /** Gradient tolerance 1e-6 on the mean loss, at most 200 L-BFGS iterations. */
    public LinearOracle() {
        this(1e-6, 200, 12345L);
    }

    public LinearOracle(double gradTolerance, int maxIterations, long seed) {
        if (!(gradTolerance >= 0) || maxIterations < 0) {
            throw new IllegalArgumentException("linear oracle: need gradTolerance >= 0 and maxIterations >= 0");
        }
        this.gradTolerance = gradTolerance;
        this.maxIterations = maxIterations;
        this.seed = seed;
    }

    static MultiLayerNetwork newNetwork(int numFeatures, int numClasses, DataType dataType, long seed) {
        MultiLayerConfiguration conf = new NeuralNetConfiguration.Builder()
                .seed(seed)
                .dataType(dataType)
                .updater(new NoOp())
                .weightInit(WeightInit.ZERO)
                .list()
                .layer(new OutputLayer.Builder(new BiasedSoftmaxLoss())
                        .nIn(numFeatures).nOut(numClasses)
                        .activation(Activation.IDENTITY)
                        .hasBias(false)
                        .build())
                .build();
        MultiLayerNetwork net = new MultiLayerNetwork(conf);
        net.init();
        return net;
    }

    @Override
    public ScoreFunction fit(BiasedLogisticProblem p, ScoreFunction previous) {
        ScoreFunctions.checkClasses(previous, p, "linear oracle");
        int n = p.numRows(), d = p.numFeatures(), c = p.numClasses();
        INDArray x = p.features().castTo(DataType.DOUBLE);
        INDArray xt = x.transpose();
        double[] b = BiasedLogisticProblem.flatDouble(p.bias());
        int[] y = p.labels();
        double[] r = new double[n * c];
        Lbfgs.Objective objective = (w, grad) -> {
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
        return fit(d, c, p.dataType(), previous, objective);
    }

    /**
     * The fit with the mean loss and its gradient computed elsewhere (the Spark learner sums them
     * over partitions): warm start from {@code previous}, L-BFGS with this oracle's settings, W
     * (row-major [d, c]) into a network of {@code dataType}.
     */
    public ScoreFunction fit(int d, int c, DataType dataType, ScoreFunction previous, Lbfgs.Objective objective) {
        MultiLayerNetwork net;
        if (previous == null || previous instanceof ZeroScore) {
            net = newNetwork(d, c, dataType, seed);
        } else if (previous instanceof LinearScore ls) {
            net = ls.networkCopy();
        } else {
            throw new IllegalArgumentException("linear oracle: cannot continue from a " + previous.kind() + " function");
        }
        double[] w = BiasedLogisticProblem.flatDouble(net.getLayer(0).getParam("W"));
        Lbfgs.minimise(objective, w, gradTolerance, maxIterations, 10);
        DataType dt = net.params().dataType();
        net.getLayer(0).setParam("W", Nd4j.create(w, new long[]{d, c}, DataType.DOUBLE).castTo(dt));
        return new LinearScore(net);
    }

    @Override
    public String describe() {
        return "linear (L-BFGS, grad tol " + gradTolerance + ", <= " + maxIterations + " iterations)";
    }
}
