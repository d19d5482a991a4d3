package org.structlr.oracle.nn;

import org.structlr.oracle.BiasedLogisticProblem;
import org.structlr.oracle.ScoreFunction;
import org.structlr.oracle.ScoreFunctions;


import org.deeplearning4j.nn.conf.ConvolutionMode;
import org.deeplearning4j.nn.conf.MultiLayerConfiguration;
import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.nn.conf.inputs.InputType;
import org.deeplearning4j.nn.conf.layers.ConvolutionLayer;
import org.deeplearning4j.nn.conf.layers.DenseLayer;
import org.deeplearning4j.nn.conf.layers.OutputLayer;
import org.deeplearning4j.nn.conf.layers.SubsamplingLayer;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.deeplearning4j.nn.weights.WeightInit;
import org.nd4j.linalg.activations.Activation;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.learning.config.Nesterovs;

/**
 * A convolutional unary function class (beyond the paper): g(phi) for phi the k x k RGB patch around
 * a pixel ({@link org.structlr.features.PatchFeatures}, a row of width D = 3 k^2, channel-major),
 * a small DL4J MultiLayerNetwork trained by mini-batch SGD with momentum on the biased logistic loss
 * ({@link BiasedSoftmaxLoss}), continuing from the previous network like {@link MlpOracle}.
 *
 * <p>Architecture (k inferred from D; any other width is refused). Convolutions are 3 x 3, stride 1,
 * no padding ("valid"), ReLU, He initialisation; the output layer is Xavier-initialised. A layer is
 * only added while its input is large enough, so the same class works for every odd k:
 * <pre>
 *   [k x k x 3] -- conv 3x3 x filters1, ReLU         (if side >= 3)  side -> side - 2
 *               -- max pool 2x2 stride 2, "same"     (if side >= 2)  side -> ceil(side / 2)
 *               -- conv 3x3 x filters2, ReLU         (if side >= 3)  side -> side - 2
 *               -- dense denseWidth, ReLU
 *               -- dense C, IDENTITY, BiasedSoftmaxLoss
 * </pre>
 * For the default k = 9: 9x9x3 -> 7x7x8 -> 4x4x8 -> 2x2x16 -> 32 -> C, 3.4k parameters, about 17k
 * multiply-adds per row forward; the receptive field of the last convolution is the whole patch.
 * Why this order (measured on the synthetic patch problem of CnnOracleTest, 56k rows, one OpenMP
 * thread, a busy 2-core machine): pooling before the second convolution made a fit about 1.8x cheaper
 * than conv-conv-pool (7 s vs 13 s per 56k-row pass); DL4J's CPU convolution is overhead-bound here, so
 * fewer filters (4/8, 8/8) saved little (9-12 s for conv-conv-pool). Defaults {@link #DEFAULT_FILTERS1}
 * = 8, {@link #DEFAULT_FILTERS2} = 16, {@link #DEFAULT_DENSE} = 32. On 280,000 rows of 9x9x3 patches
 * (FLOAT, OMP_NUM_THREADS=1, same busy machine, load about 3): 34-35 s per fit (one pass), and
 * 13.5 s to score all rows once with {@link CnnScore#scores} (CnnOracleTest#timing, -Dcnn.timing=true).
 *
 * <p>Training, as the MLP: mini-batches of 1000 rows reshuffled each epoch from {@code seed} and the
 * number of fits so far; DL4J's Nesterovs updater with momentum 0.9 and learning rate
 * (1 - 0.9) * stepSize (the paper's averaged-gradient momentum rule, see {@link MlpOracle});
 * {@link #UNARY_STEP} = 0.25, the MLP's unary step (measured: 0.1 learned about half as fast per
 * pass, 1.0 stalled after the first pass), {@link #DEFAULT_EPOCHS} = 1 pass per oracle call (a
 * convolutional pass costs far more than an MLP pass; the alternating scheme needs progress, not
 * convergence, per call). The updater state travels with the network; the network's precision is the
 * first problem's (FLOAT recommended). Deterministic for a seed on one machine and thread count.
 */
final class CnnOracle implements AveragedNetworkOracle {

    public static final double UNARY_STEP = 0.25;
    public static final int DEFAULT_FILTERS1 = 8;
    public static final int DEFAULT_FILTERS2 = 16;
    public static final int DEFAULT_DENSE = 32;
    public static final int DEFAULT_EPOCHS = 1;
    public static final int DEFAULT_BATCH = 1000;
    public static final double DEFAULT_MOMENTUM = 0.9;

    private final double stepSize;
    private final int filters1;
    private final int filters2;
    private final int denseWidth;
    private final int epochsPerFit;
    private final int batchSize;
    private final double momentum;
    private final long seed;

    public static CnnOracle unary() {
        return new CnnOracle(UNARY_STEP);
    }

    public CnnOracle(double stepSize) {
        this(stepSize, DEFAULT_FILTERS1, DEFAULT_FILTERS2, DEFAULT_DENSE, DEFAULT_EPOCHS, DEFAULT_BATCH, DEFAULT_MOMENTUM, 12345L);
    }

    public CnnOracle(double stepSize, int filters1, int filters2, int denseWidth, int epochsPerFit, int batchSize,
                     double momentum, long seed) {
        if (!(stepSize > 0) || filters1 < 1 || filters2 < 1 || denseWidth < 1 || epochsPerFit < 1 || batchSize < 1
                || !(momentum >= 0 && momentum < 1)) {
            throw new IllegalArgumentException("cnn oracle: need stepSize > 0, filters, dense width, epochsPerFit,"
                    + " batchSize >= 1, 0 <= momentum < 1");
        }
        this.stepSize = stepSize;
        this.filters1 = filters1;
        this.filters2 = filters2;
        this.denseWidth = denseWidth;
        this.epochsPerFit = epochsPerFit;
        this.batchSize = batchSize;
        this.momentum = momentum;
        this.seed = seed;
    }

    /** The same oracle with another seed (initial weights and shuffling). */
    public CnnOracle withSeed(long seed) {
        return new CnnOracle(stepSize, filters1, filters2, denseWidth, epochsPerFit, batchSize, momentum, seed);
    }

    /** The same oracle with another number of passes per fit. */
    public CnnOracle withEpochs(int epochs) {
        return new CnnOracle(stepSize, filters1, filters2, denseWidth, epochs, batchSize, momentum, seed);
    }

    /**
     * The patch side k for a feature width D = 3 k^2 with k odd.
     *
     * @throws IllegalArgumentException naming the width when it is not such a patch
     */
    public static int patchSide(long width) {
        long k = Math.round(Math.sqrt(width / 3.0));
        if (width < 3 || 3 * k * k != width || k % 2 == 0) {
            throw new IllegalArgumentException("cnn oracle: feature width " + width + " is not 3 k^2 for an odd k"
                    + " (the cnn function class needs patch features, a k x k RGB patch per pixel: 27, 75, 147, 243, ...)");
        }
        return (int) k;
    }

    MultiLayerNetwork newNetwork(int numFeatures, int numClasses, DataType dataType) {
        int k = patchSide(numFeatures);
        NeuralNetConfiguration.ListBuilder b = new NeuralNetConfiguration.Builder()
                .seed(seed)
                .dataType(dataType)
                .updater(new Nesterovs((1 - momentum) * stepSize, momentum))
                .weightInit(WeightInit.RELU)
                .convolutionMode(ConvolutionMode.Truncate)
                .list();
        int side = k;
        if (side >= 3) {
            b.layer(new ConvolutionLayer.Builder(3, 3).nOut(filters1).activation(Activation.RELU).build());
            side -= 2;
        }
        if (side >= 2) {
            b.layer(new SubsamplingLayer.Builder(SubsamplingLayer.PoolingType.MAX).kernelSize(2, 2).stride(2, 2)
                    .convolutionMode(ConvolutionMode.Same).build());
            side = (side + 1) / 2;
        }
        if (side >= 3) {
            b.layer(new ConvolutionLayer.Builder(3, 3).nOut(filters2).activation(Activation.RELU).build());
            side -= 2;
        }
        b.layer(new DenseLayer.Builder().nOut(denseWidth).activation(Activation.RELU).build());
        b.layer(new OutputLayer.Builder(new BiasedSoftmaxLoss()).nOut(numClasses).activation(Activation.IDENTITY)
                .weightInit(WeightInit.XAVIER).build());
        b.setInputType(InputType.convolutionalFlat(k, k, 3));
        MultiLayerConfiguration conf = b.build();
        MultiLayerNetwork net = new MultiLayerNetwork(conf);
        net.init();
        return net;
    }

    @Override
    public ScoreFunction fit(BiasedLogisticProblem p, ScoreFunction previous) {
        patchSide(p.numFeatures());
        ScoreFunctions.checkClasses(previous, p, "cnn oracle");
        Nets.Start start = Nets.start(previous, CnnScore.class, "cnn oracle", () -> newNetwork(p.numFeatures(), p.numClasses(), p.dataType()));
        Nets.trainMinibatches(start.net(), p, seed * 1_000_003L + start.fits(), epochsPerFit, batchSize);
        return new CnnScore(start.net(), start.fits() + 1);
    }

    // --- hook for the Spark learner's parameter averaging (AveragedNetworkOracle) ---

    @Override
    public NetworkState start(ScoreFunction previous, int numFeatures, int numClasses, DataType dataType) {
        patchSide(numFeatures);
        Nets.Start start = Nets.start(previous, CnnScore.class, "cnn oracle", () -> newNetwork(numFeatures, numClasses, dataType));
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
        return new CnnScore(averaged.network(), averaged.fits() + 1);
    }

    @Override
    public String describe() {
        return "cnn (conv 3x3x" + filters1 + " relu, max pool 2x2, conv 3x3x" + filters2 + " relu, " + denseWidth
                + " relu; SGD momentum " + momentum + " step " + stepSize + ", batch " + batchSize + ", " + epochsPerFit
                + " epochs per fit)";
    }
}
