package org.structlr.oracle.nn;

import org.structlr.oracle.BiasedLogisticProblem;
import org.structlr.oracle.ScoreFunction;
import org.structlr.oracle.ScoreFunctions;


import org.deeplearning4j.nn.conf.MultiLayerConfiguration;
import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.nn.conf.layers.DenseLayer;
import org.deeplearning4j.nn.conf.layers.OutputLayer;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.deeplearning4j.nn.weights.WeightInit;
import org.nd4j.linalg.activations.Activation;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.learning.config.Nesterovs;

/**
 * The MLP function class of the paper: g(phi) = W2 tanh(W1 phi + c1) + c2, trained by mini-batch
 * SGD with momentum on the biased logistic loss, continuing from the previous network.
 *
 * <p>Defaults and why:
 * <ul>
 *   <li>one hidden layer of 32 tanh units (Xavier initialisation, seeded): small enough for 10^5-10^6
 *       rows per call, smooth like the paper's sigmoid MLP;</li>
 *   <li>mini-batches of 1000 rows, reshuffled every epoch from {@code seed} and the number of fits
 *       so far (deterministic);</li>
 *   <li>{@code epochsPerFit} = 2 passes over the data per oracle call ("a few passes", warm-started
 *       each time, matching the alternating scheme that never solves the inner problem fully);</li>
 *   <li>momentum 0.9. The paper's rule is step = 0.1 * grad + 0.9 * previous step, then params -=
 *       stepSize * step (an exponential average of gradients). DL4J's {@code Nesterovs} updater is
 *       v = 0.9 v - lr * grad; with lr = (1 - 0.9) * stepSize the two have the same steady-state
 *       step (stepSize * grad) and the same memory; Nesterovs adds its look-ahead correction.
 *       stepSize is 0.25 for unary types and 0.05 for pairwise ({@link #unary()},
 *       {@link #pairwise()}). The gradient is that of the mean loss over the mini-batch.</li>
 * </ul>
 * The updater state (momentum) travels with the network, so consecutive fits continue one SGD run.
 * The network's precision is the first problem's (FLOAT recommended); later problems are cast to it.
 */
public final class MlpOracle implements AveragedNetworkOracle {

    public static final double UNARY_STEP = 0.25;
    public static final double PAIRWISE_STEP = 0.05;
    public static final int DEFAULT_HIDDEN = 32;
    public static final int DEFAULT_EPOCHS = 2;
    public static final int DEFAULT_BATCH = 1000;
    public static final double DEFAULT_MOMENTUM = 0.9;

    private final double stepSize;
    private final int hiddenWidth;
    private final int epochsPerFit;
    private final int batchSize;
    private final double momentum;
    private final long seed;

    public static MlpOracle unary() {
        return new MlpOracle(UNARY_STEP);
    }

    public static MlpOracle pairwise() {
        return new MlpOracle(PAIRWISE_STEP);
    }

    public MlpOracle(double stepSize) {
        this(stepSize, DEFAULT_HIDDEN, DEFAULT_EPOCHS, DEFAULT_BATCH, DEFAULT_MOMENTUM, 12345L);
    }

    public MlpOracle(double stepSize, int hiddenWidth, int epochsPerFit, int batchSize, double momentum, long seed) {
        if (!(stepSize > 0) || hiddenWidth < 1 || epochsPerFit < 1 || batchSize < 1 || !(momentum >= 0 && momentum < 1)) {
            throw new IllegalArgumentException("mlp oracle: need stepSize > 0, hiddenWidth, epochsPerFit, batchSize >= 1,"
                    + " 0 <= momentum < 1");
        }
        this.stepSize = stepSize;
        this.hiddenWidth = hiddenWidth;
        this.epochsPerFit = epochsPerFit;
        this.batchSize = batchSize;
        this.momentum = momentum;
        this.seed = seed;
    }

    /** The same oracle with another seed (initial weights and shuffling). */
    public MlpOracle withSeed(long seed) {
        return new MlpOracle(stepSize, hiddenWidth, epochsPerFit, batchSize, momentum, seed);
    }

    MultiLayerNetwork newNetwork(int numFeatures, int numClasses, DataType dataType) {
        MultiLayerConfiguration conf = new NeuralNetConfiguration.Builder()
                .seed(seed)
                .dataType(dataType)
                .updater(new Nesterovs((1 - momentum) * stepSize, momentum))
                .weightInit(WeightInit.XAVIER)
                .list()
                .layer(new DenseLayer.Builder().nIn(numFeatures).nOut(hiddenWidth).activation(Activation.TANH).build())
                .layer(new OutputLayer.Builder(new BiasedSoftmaxLoss())
                        .nIn(hiddenWidth).nOut(numClasses)
                        .activation(Activation.IDENTITY)
                        .build())
                .build();
        MultiLayerNetwork net = new MultiLayerNetwork(conf);
        net.init();
        return net;
    }

    @Override
    public ScoreFunction fit(BiasedLogisticProblem p, ScoreFunction previous) {
        ScoreFunctions.checkClasses(previous, p, "mlp oracle");
        Nets.Start start = Nets.start(previous, MlpScore.class, "mlp oracle", () -> newNetwork(p.numFeatures(), p.numClasses(), p.dataType()));
        Nets.trainMinibatches(start.net(), p, seed * 1_000_003L + start.fits(), epochsPerFit, batchSize);
        return new MlpScore(start.net(), start.fits() + 1);
    }

    // --- hook for the Spark learner's parameter averaging (AveragedNetworkOracle) ---

    @Override
    public NetworkState start(ScoreFunction previous, int numFeatures, int numClasses, DataType dataType) {
        Nets.Start start = Nets.start(previous, MlpScore.class, "mlp oracle", () -> newNetwork(numFeatures, numClasses, dataType));
        return NetworkState.of(start.net(), start.fits());
    }

    @Override
    public NetworkState fitLocal(NetworkState from, BiasedLogisticProblem rows, int part, double share, Round round) {
        return Nets.fitLocal(from, rows, part, share, round, seed, epochsPerFit, batchSize);
    }

    @Override
    public long stepsPerFit(long rows) {
        return Nets.stepsPerFit(rows, epochsPerFit, batchSize);
    }

    @Override
    public ScoreFunction finish(NetworkState averaged) {
        return new MlpScore(averaged.network(), averaged.fits() + 1);
    }

    @Override
    public String describe() {
        return "mlp (" + hiddenWidth + " tanh, SGD momentum " + momentum + " step " + stepSize + ", batch " + batchSize
                + ", " + epochsPerFit + " epochs per fit)";
    }
}
