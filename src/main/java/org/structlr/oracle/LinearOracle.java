package org.structlr.oracle;

import org.deeplearning4j.nn.api.OptimizationAlgorithm;
import org.deeplearning4j.nn.conf.MultiLayerConfiguration;
import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.nn.conf.layers.OutputLayer;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.deeplearning4j.nn.weights.WeightInit;
import org.nd4j.linalg.activations.Activation;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.learning.config.NoOp;

/**
 * The linear function class g = W phi, fitted by full-batch L-BFGS on the biased logistic loss.
 *
 * <p>Optimiser: DL4J's own {@code OptimizationAlgorithm.LBFGS} on a single IDENTITY OutputLayer (no
 * bias) with {@link BiasedSoftmaxLoss} and the NoOp updater (so the solver sees the raw gradient).
 * Chosen because it is the maintained optimiser already in the pom, the network doubles as the saved
 * model, and it was measured here to reach an independent Newton optimum to 2.5e-10. Each DL4J
 * {@code fit} is one L-BFGS iteration (with its line search); this oracle loops it until the gradient
 * of the mean loss, {@code max |X^T (softmax(XW + B) - Y)| / N}, is at most {@code gradTolerance},
 * or {@code maxIterations} iterations. The best iterate seen (by the loss, evaluated in the
 * network's precision) is returned, so a warm-started fit never returns a worse W than it started
 * from.
 *
 * <p>Warm start: continues from a copy of the previous network (the previous score function is not
 * touched). From scratch W = 0. The loss is invariant to adding one vector to every class's column of
 * W; L-BFGS directions are combinations of gradients, whose columns sum to zero, so the sum over
 * classes of the columns stays where it started (0 from scratch). The network's precision is the
 * first problem's data type (FLOAT or DOUBLE); features of the other type are cast.
 */
public final class LinearOracle implements Oracle {

    private final double gradTolerance;
    private final int maxIterations;
    private final long seed;

    /** Gradient tolerance 1e-6 (DOUBLE problems; use 1e-4 for FLOAT), at most 100 L-BFGS iterations. */
    public LinearOracle() {
        this(1e-6, 100, 12345L);
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
                .optimizationAlgo(OptimizationAlgorithm.LBFGS)
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
        MultiLayerNetwork net;
        if (previous == null || previous instanceof ZeroScore) {
            net = newNetwork(p.numFeatures(), p.numClasses(), p.dataType(), seed);
        } else if (previous instanceof LinearScore ls) {
            net = ls.networkCopy();
        } else {
            throw new IllegalArgumentException("linear oracle: cannot continue from a " + previous.kind() + " function");
        }
        DataType dt = net.params().dataType();
        INDArray x = p.features().castTo(dt);
        INDArray labels = p.lossLabels().castTo(dt);

        INDArray best = net.params().dup();
        double bestLoss = Double.POSITIVE_INFINITY;
        for (int it = 0; ; it++) {
            INDArray s = net.output(x, false);
            double loss = p.loss(s);
            if (loss < bestLoss) {
                bestLoss = loss;
                best.assign(net.params());
            }
            double gmax = x.transpose().mmul(Nets.scoreGradient(s, p)).amaxNumber().doubleValue();
            if (gmax <= gradTolerance || it >= maxIterations) break;
            net.fit(x, labels);
        }
        net.setParams(best);
        return new LinearScore(net);
    }

    @Override
    public String describe() {
        return "linear (DL4J L-BFGS, grad tol " + gradTolerance + ", <= " + maxIterations + " iterations)";
    }
}
