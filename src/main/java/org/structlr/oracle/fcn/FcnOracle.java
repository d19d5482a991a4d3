package org.structlr.oracle.fcn;

import org.structlr.oracle.BiasedLogisticProblem;
import org.structlr.oracle.ImageRows;
import org.structlr.oracle.Oracle;
import org.structlr.oracle.ScoreFunction;
import org.structlr.oracle.ZeroScore;
import org.structlr.oracle.nn.BiasedSoftmaxLoss;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

import org.deeplearning4j.nn.conf.CacheMode;
import org.deeplearning4j.nn.conf.ConvolutionMode;
import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.nn.conf.layers.CnnLossLayer;
import org.deeplearning4j.nn.conf.layers.ConvolutionLayer;
import org.deeplearning4j.nn.conf.ComputationGraphConfiguration;
import org.deeplearning4j.nn.conf.graph.ElementWiseVertex;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.deeplearning4j.nn.weights.WeightInit;
import org.nd4j.linalg.activations.Activation;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.indexing.NDArrayIndex;
import org.nd4j.linalg.learning.config.Adam;
import org.nd4j.linalg.learning.config.IUpdater;
import org.structlr.graph.GridBatch;
import org.structlr.memory.NativeMemory;

/**
 * The fully convolutional function classes (beyond the paper): one DL4J network scores every pixel of
 * a whole image in one pass, so g sees image context and position instead of one pixel's features or
 * one fixed patch. Unary ({@link FcnScore}): C = L scores per pixel. Pairwise ({@link FcnPairScore}):
 * per pixel the L*L scores of its right edge and of its down edge (two groups), so the pairwise
 * function also sees image context, not only 3 edge features. The oracle needs {@link ImageRows} on
 * the problem (the examples must form a grid batch); for a pairwise type the network reads the pixel
 * features, not the edge features.
 *
 * <p>Architecture: same-padded 3 x 3 convolutions of {@code width} channels, ReLU, with dilations
 * {@code 1, 2, 4, 8} by default (receptive field 31 x 31 pixels, most of a 36 x 48 image, at the
 * cost of four layers and no down-sampling, so every image size works and outputs align with pixels),
 * then a 1 x 1 convolution to {@code K*C} channels (IDENTITY) and a {@code CnnLossLayer} with
 * {@link FcnLoss}: the biased softmax loss per pixel and group, the message bias added before the
 * softmax. Labels are {@code [1, 2KC, H, W] = [one-hot | bias]}; a group whose row is not in the
 * problem (an edge of another type, or no edge at the border) has an all-zero one-hot and so adds
 * nothing.
 *
 * <p>Training: mini-batches of up to {@code batchImages} images of one size (images of different sizes
 * in one fit go in different batches), images in an order
 * reshuffled each epoch from {@code seed} and the number of fits so far, {@code epochsPerFit} passes per
 * oracle call, Adam (learning rate {@link #DEFAULT_LEARNING_RATE}); the updater state travels with the
 * network, so consecutive fits continue one run (warm start). Why Adam rather than the MLP's momentum
 * SGD: per-image mini-batches of deep convolutions have very uneven gradient scales across layers.
 * The network's precision is the first problem's (FLOAT recommended).
 */
public final class FcnOracle implements Oracle, java.io.Serializable {

    private static final long serialVersionUID = 1L;

    public static final int DEFAULT_WIDTH = 16;
    public static final int[] DEFAULT_DILATIONS = {1, 2, 4, 8};
    /**
     * Defaults for 8-image mini-batches (horses, 36 x 48, busy machine, iteration 1 of (fcn, mlp):
     * Adam 0.01 gave objective 0.478 / test error 0.172, Adam 0.02 gave 0.424 / 0.122, both 4 epochs
     * per fit; one image per step with 2 epochs and 0.01, the first defaults, gave 0.312 / 0.115).
     * Batches of 8 save little CPU (one epoch over the 164 images: 8.0 s against 8.7 s one at a
     * time) but make the fit steps, and so Adam's, 8 times fewer; more epochs and a larger step
     * make up for that.
     */
    public static final int DEFAULT_EPOCHS = 4;
    public static final double DEFAULT_LEARNING_RATE = 2e-2;
    /** Images of one size per mini-batch (a ragged remainder of a size goes in a smaller batch). */
    public static final int DEFAULT_BATCH = 8;

    private final boolean pairwise;
    private final int width;
    private final int[] dilations;
    private final int epochsPerFit;
    private final double learningRate;
    private final long seed;
    private final int batchImages;
    /** Keep a fit only if it lowers the problem's loss ({@link #fit}); off only to measure what it changes. */
    private final boolean descentCheck;
    /** Decoupled weight decay per Adam step (times the step), 0 = none. */
    private final double weightDecay;
    /** After an accepted fit the step grows by this factor, up to the configured rate (1 = a halved step stays halved). */
    private final double recovery;
    /**
     * After a fit accepted at its first try a halved step doubles again (up to the configured rate).
     * Measured on the horses (fcn, mlp), 36 x 48, 30 iterations (busy machine): test error 0.0607 and
     * R 0.148 with 2, against 0.0627 and R 0.160 with 1 (a halved step stays halved), and 0.0620
     * with R 0.455 (rising from iteration 13) without the descent check.
     */
    public static final double DEFAULT_RECOVERY = 2;
    /** Halvings of the step tried per call before the previous function is kept. */
    static final int MAX_HALVINGS = 2;

    public static FcnOracle unary() {
        return new FcnOracle(false, DEFAULT_WIDTH, DEFAULT_DILATIONS, DEFAULT_EPOCHS, DEFAULT_LEARNING_RATE, 12345L, DEFAULT_BATCH);
    }

    public static FcnOracle pairwise() {
        return new FcnOracle(true, DEFAULT_WIDTH, DEFAULT_DILATIONS, DEFAULT_EPOCHS, DEFAULT_LEARNING_RATE, 12345L, DEFAULT_BATCH);
    }

    /** One image per mini-batch. */
    public FcnOracle(boolean pairwise, int width, int[] dilations, int epochsPerFit, double learningRate, long seed) {
        this(pairwise, width, dilations, epochsPerFit, learningRate, seed, 1);
    }

    public FcnOracle(boolean pairwise, int width, int[] dilations, int epochsPerFit, double learningRate, long seed, int batchImages) {
        this(pairwise, width, dilations, epochsPerFit, learningRate, seed, batchImages, true, 0, DEFAULT_RECOVERY);
    }

    private FcnOracle(boolean pairwise, int width, int[] dilations, int epochsPerFit, double learningRate, long seed, int batchImages,
                      boolean descentCheck, double weightDecay, double recovery) {
        if (width < 1 || dilations.length < 1 || epochsPerFit < 1 || !(learningRate > 0) || batchImages < 1) {
            throw new IllegalArgumentException("fcn oracle: need width, epochsPerFit, batch >= 1, at least one layer, learning rate > 0");
        }
        for (int d : dilations) if (d < 1) throw new IllegalArgumentException("fcn oracle: dilations must be >= 1");
        this.pairwise = pairwise;
        this.width = width;
        this.dilations = dilations.clone();
        this.epochsPerFit = epochsPerFit;
        this.learningRate = learningRate;
        this.seed = seed;
        this.batchImages = batchImages;
        this.descentCheck = descentCheck;
        if (!(weightDecay >= 0) || !(recovery >= 1)) {
            throw new IllegalArgumentException("fcn oracle: weight decay must be >= 0 and step regrowth (recovery) >= 1; got "
                    + weightDecay + " and " + recovery);
        }
        this.weightDecay = weightDecay;
        this.recovery = recovery;
    }

    public FcnOracle withSeed(long seed) {
        return new FcnOracle(pairwise, width, dilations, epochsPerFit, learningRate, seed, batchImages, descentCheck, weightDecay, recovery);
    }

    public FcnOracle withEpochs(int epochs) {
        return new FcnOracle(pairwise, width, dilations, epochs, learningRate, seed, batchImages, descentCheck, weightDecay, recovery);
    }

    public FcnOracle withBatch(int images) {
        return new FcnOracle(pairwise, width, dilations, epochsPerFit, learningRate, seed, images, descentCheck, weightDecay, recovery);
    }

    public FcnOracle withWidth(int channels) {
        return new FcnOracle(pairwise, channels, dilations, epochsPerFit, learningRate, seed, batchImages, descentCheck, weightDecay, recovery);
    }

    public FcnOracle withLearningRate(double rate) {
        return new FcnOracle(pairwise, width, dilations, epochsPerFit, rate, seed, batchImages, descentCheck, weightDecay, recovery);
    }

    /** With {@code false}, every fit is kept even where it raises the problem's loss (the first wave's behaviour). */
    public FcnOracle withDescentCheck(boolean on) {
        return new FcnOracle(pairwise, width, dilations, epochsPerFit, learningRate, seed, batchImages, on, weightDecay, recovery);
    }

    /** Decoupled weight decay {@code coefficient} (DL4J's {@code weightDecay}, scaled by the step) on every layer. */
    public FcnOracle withWeightDecay(double coefficient) {
        return new FcnOracle(pairwise, width, dilations, epochsPerFit, learningRate, seed, batchImages, descentCheck, coefficient, recovery);
    }

    /** After a fit the descent check accepted, the step grows by {@code factor} (up to the configured rate). */
    public FcnOracle withRecovery(double factor) {
        return new FcnOracle(pairwise, width, dilations, epochsPerFit, learningRate, seed, batchImages, descentCheck, weightDecay, factor);
    }

    /** Names of the graph's inputs and vertices (the export and the scores read them). */
    static final String IMAGE = "image", BIAS = "bias", SCORES = "scores", BIASED = "biased", LOSS = "loss";

    /** The layer name of hidden convolution i. */
    static String conv(int i) {
        return "conv" + i;
    }

    /**
     * The network: inputs {@code image [1, D, H, W]} and {@code bias [1, KC, H, W]}; convolutions to
     * {@code scores [1, KC, H, W]} = g; {@code biased} = scores + bias (an ElementWiseVertex); a
     * CnnLossLayer with {@link FcnLoss} on it, labels one-hot {@code [1, KC, H, W]}. So the bias enters
     * before the softmax, as in {@link BiasedSoftmaxLoss}; scoring feeds a zero bias. Another updater
     * than Adam: the gradient checks need {@code NoOp}.
     */
    ComputationGraph newNetwork(int numFeatures, int numClasses, DataType dataType, IUpdater updater) {
        int groups = pairwise ? 2 : 1;
        NeuralNetConfiguration.Builder base = new NeuralNetConfiguration.Builder();
        if (weightDecay > 0) base.weightDecay(weightDecay, true);
        ComputationGraphConfiguration.GraphBuilder b = base
                .seed(seed)
                .dataType(dataType)
                .updater(updater)
                .weightInit(WeightInit.RELU)
                .convolutionMode(ConvolutionMode.Same)
                // keep each convolution's im2col from the forward pass for its backward pass: without it
                // DL4J recomputes every convolution's forward pass during backprop
                .cacheMode(CacheMode.DEVICE)
                .graphBuilder()
                .addInputs(IMAGE, BIAS);
        int in = numFeatures;
        String prev = IMAGE;
        for (int i = 0; i < dilations.length; i++) {
            b.addLayer(conv(i), new ConvolutionLayer.Builder(3, 3).dilation(dilations[i], dilations[i]).nIn(in).nOut(width)
                    .activation(Activation.RELU).build(), prev);
            in = width;
            prev = conv(i);
        }
        b.addLayer(SCORES, new ConvolutionLayer.Builder(1, 1).nIn(in).nOut((long) groups * numClasses)
                .activation(Activation.IDENTITY).weightInit(WeightInit.XAVIER).build(), prev);
        b.addVertex(BIASED, new ElementWiseVertex(ElementWiseVertex.Op.Add), SCORES, BIAS);
        b.addLayer(LOSS, new CnnLossLayer.Builder(new FcnLoss(groups)).activation(Activation.IDENTITY).build(), BIASED);
        b.setOutputs(LOSS);
        ComputationGraph net = new ComputationGraph(b.build());
        net.init();
        return net;
    }

    @Override
    public ScoreFunction fit(BiasedLogisticProblem p, ScoreFunction previous) {
        ImageRows im = p.images();
        if (im == null) {
            throw new IllegalArgumentException("fcn oracle: needs whole images: every training example must be an image"
                    + " (a grid batch)");
        }
        if (im.perEdge() != pairwise) {
            throw new IllegalArgumentException("fcn oracle: a " + (pairwise ? "pairwise" : "unary") + " fcn got a problem over "
                    + (im.perEdge() ? "edges" : "pixels"));
        }
        int groups = pairwise ? 2 : 1;
        Start start = start(previous, im.numPixelFeatures(), p.numClasses(), p.dataType());
        ComputationGraph net = start.net();
        int fits = start.fits();
        long shuffle = seed * 1_000_003L + fits;
        if (!descentCheck) {
            train(net, p, im, groups, shuffle);
            return score(net, fits + 1);
        }
        // the loss where the fit starts: the previous function's, or a fresh network's (not g = 0's: a
        // fresh network's random head may score worse than g = 0, and then no short step could pass)
        return descend(net, p, im, groups, shuffle, p.loss(score(net, fits)), fits + 1);
    }

    /** The network a fit starts from (a copy of the previous function's, or a fresh one) and the fits it has had. */
    record Start(ComputationGraph net, int fits) {}

    Start start(ScoreFunction previous, int d, int c, DataType dataType) {
        Class<? extends FullyConvolutionalScore> kind = pairwise ? FcnPairScore.class : FcnScore.class;
        if (previous == null || previous instanceof ZeroScore) return new Start(newNetwork(d, c, dataType, new Adam(learningRate)), 0);
        if (!kind.isInstance(previous)) {
            throw new IllegalArgumentException("fcn oracle: cannot continue from a " + previous.kind() + " function");
        }
        FullyConvolutionalScore f = (FullyConvolutionalScore) previous;
        if (f.numClasses() != c || f.numFeatures() != d) {
            throw new IllegalArgumentException("fcn oracle: previous function is " + f.numFeatures() + " features -> " + f.numClasses()
                    + " classes, the problem " + d + " -> " + c);
        }
        return new Start(f.networkCopy(), f.fits());
    }

    /**
     * The fit as a descent step. Measured on the horses (fcn, mlp), 36 x 48: with every fit kept, the
     * objective R fell to 0.166 by iteration 13 and then rose to 0.455 by iteration 30, because a few
     * epochs of Adam from the previous network can end at a higher biased loss than where they started
     * (the step is too long once the messages settle). At fixed messages R = eps * loss + const
     * (docs/design.md §1), so a fit that lowers the loss lowers R. Here: train; keep the network only if
     * {@code loss(new) <= loss(previous)} on this problem; otherwise retry from the previous network with
     * half the learning rate, at most {@link #MAX_HALVINGS} times, and then keep the previous network.
     * The halved rate stays in the network's configuration, so later fits continue with it, and a fit
     * accepted at its first try doubles it again ({@link #DEFAULT_RECOVERY}, up to the configured
     * rate): the step shrinks only where it had to and for as long as it has to. Cost: one scoring pass per try (a forward pass, about a twelfth of a
     * 4-epoch fit), and a full fit per retry.
     */
    private ScoreFunction descend(ComputationGraph start, BiasedLogisticProblem p, ImageRows im, int groups, long shuffle,
                                  double lossBefore, int fits) {
        double rate = learningRate(start);
        for (int attempt = 0; attempt <= MAX_HALVINGS; attempt++) {
            ComputationGraph net = copy(start);
            if (attempt > 0) net.setLearningRate(rate);
            train(net, p, im, groups, shuffle);
            if (p.loss(score(net, fits)) <= lossBefore) {
                if (attempt == 0 && recovered(rate) != rate) net.setLearningRate(recovered(rate));
                return score(net, fits);
            }
            rate /= 2;
        }
        // every try raised the loss: keep the previous network, with the smaller step for next time
        start.setLearningRate(rate);
        return score(start, fits);
    }

    /** The step after a fit accepted at its first try: regrown by {@code recovery}, at most the configured rate. */
    double recovered(double rate) {
        return recovery > 1 && rate < learningRate ? Math.min(learningRate, rate * recovery) : rate;
    }

    ScoreFunction score(ComputationGraph net, int fits) {
        return pairwise ? new FcnPairScore(net, fits) : new FcnScore(net, fits);
    }

    /** A copy with the updater state (Adam's moments and step count). */
    private static ComputationGraph copy(ComputationGraph net) {
        return FullyConvolutionalScore.copy(net);
    }

    /** The learning rate the network's Adam uses now (the first layer's: all layers share it). */
    static double learningRate(ComputationGraph net) {
        Double r = net.getLearningRate(conv(0));
        if (r == null) throw new IllegalStateException("fcn: the network has no learning rate");
        return r;
    }

    /**
     * {@code epochsPerFit} passes over the images in a reshuffled order; consecutive images of one size
     * (in that order) share a mini-batch of up to {@code batchImages}. DL4J's step on a mini-batch of B
     * images is the mean of their gradients (the loss layer's gradient is per image, the updater
     * divides by B), so every batching descends the same objective, the sum over images and pixels.
     */
    private void train(ComputationGraph net, BiasedLogisticProblem p, ImageRows im, int groups, long shuffleSeed) {
        train(net, p, im, groups, shuffleSeed, batchImages, 0, epochsPerFit);
    }

    /**
     * Only the epochs {@code fromEpoch <= e < toEpoch} (the shuffles of the earlier epochs are still
     * drawn, so epoch e sees the same order either way), in mini-batches of up to {@code batch}
     * images: the fit in rounds, for the Spark learner's averaging between them ({@link FcnDataParallel}).
     */
    void train(ComputationGraph net, BiasedLogisticProblem p, ImageRows im, int groups, long shuffleSeed, int batch,
               int fromEpoch, int toEpoch) {
        DataType t = net.params().dataType();
        INDArray[][] l = imageLabels(p, im, groups, t);
        int count = im.layout().count();
        INDArray[] x = new INDArray[count], y = new INDArray[count], b = new INDArray[count];
        for (int k = 0; k < count; k++) {
            x[k] = ImageTensors.image(im.pixelFeatures(), im.layout(), k, t);
            y[k] = l[k][0];
            b[k] = l[k][1];
        }
        Random rng = new Random(shuffleSeed);
        int[] order = new int[count];
        for (int k = 0; k < count; k++) order[k] = k;
        for (int epoch = 0; epoch < toEpoch; epoch++) {
            for (int i = count - 1; i > 0; i--) {
                int j = rng.nextInt(i + 1), tmp = order[i];
                order[i] = order[j];
                order[j] = tmp;
            }
            if (epoch < fromEpoch) continue;
            for (int[] images : batches(im.layout(), order, batch)) {
                net.fit(new INDArray[]{stack(x, images), stack(b, images)}, new INDArray[]{stack(y, images)});
                NativeMemory.release();   // at most every 30 s: whole images leave large native buffers behind
            }
        }
    }

    boolean isPairwise() {
        return pairwise;
    }

    int epochsPerFit() {
        return epochsPerFit;
    }

    int batchImages() {
        return batchImages;
    }

    long seed() {
        return seed;
    }

    double learningRate() {
        return learningRate;
    }

    boolean descentCheck() {
        return descentCheck;
    }

    /**
     * Mini-batches of same-size images: images are taken in {@code order}; each joins the open batch
     * of its size, which is emitted when it holds {@code size} images; open batches are emitted at the
     * end in the order of their first image. With {@code size = 1}: one image per batch, in {@code order}.
     */
    static List<int[]> batches(GridBatch layout, int[] order, int size) {
        List<int[]> out = new ArrayList<>();
        Map<Long, List<Integer>> open = new LinkedHashMap<>();
        for (int k : order) {
            long shape = (long) layout.height(k) << 32 | layout.width(k);
            List<Integer> b = open.computeIfAbsent(shape, s -> new ArrayList<>());
            b.add(k);
            if (b.size() == size) {
                out.add(b.stream().mapToInt(Integer::intValue).toArray());
                open.remove(shape);
            }
        }
        for (List<Integer> b : open.values()) out.add(b.stream().mapToInt(Integer::intValue).toArray());
        return out;
    }

    /** The tensors {@code a[k]}, k in {@code batch}, stacked along dimension 0 (the mini-batch). */
    static INDArray stack(INDArray[] a, int[] batch) {
        INDArray[] parts = new INDArray[batch.length];
        for (int i = 0; i < batch.length; i++) parts[i] = a[batch[i]];
        return parts.length == 1 ? parts[0] : Nd4j.concat(0, parts);
    }

    /**
     * Per image {@code {one-hot, bias}}, each {@code [1, KC, H, W]}: problem row i is group row
     * {@code slot(i)} of the batch (its pixel for unary rows, {@link ImageTensors#edgeSlots} of its edge
     * for pairwise rows); groups no row names stay all-zero and so do not count (see {@link FcnLoss}).
     */
    static INDArray[][] imageLabels(BiasedLogisticProblem p, ImageRows im, int groups, DataType t) {
        GridBatch layout = im.layout();
        int c = p.numClasses(), n = p.numRows();
        int[] rows = im.rows();
        org.structlr.oracle.RowTargets targets = p.targets();
        int[] slotOf = im.perEdge() ? ImageTensors.edgeSlots(layout) : null;
        float[] bias = BiasedLogisticProblem.flatFloat(p.bias());
        long slots = (long) layout.numVariables() * groups;
        float[] y = new float[Math.toIntExact(slots * c)], b = new float[y.length];
        for (int i = 0; i < n; i++) {
            int s = im.perEdge() ? slotOf[rows[i]] : rows[i];
            for (int k = 0; k < c; k++) y[s * c + k] = (float) targets.target(i, k);
            System.arraycopy(bias, i * c, b, s * c, c);
        }
        INDArray oneHot = Nd4j.create(y, new long[]{slots, c}, 'c'), biasRows = Nd4j.create(b, new long[]{slots, c}, 'c');
        INDArray[][] out = new INDArray[layout.count()][];
        for (int k = 0; k < out.length; k++) {
            int h = layout.height(k), w = layout.width(k);
            long from = (long) layout.variableOffset(k) * groups, to = from + (long) h * w * groups;
            out[k] = new INDArray[]{
                    ImageTensors.toChannels(oneHot.get(NDArrayIndex.interval(from, to), NDArrayIndex.all()), h, w, groups, t),
                    ImageTensors.toChannels(biasRows.get(NDArrayIndex.interval(from, to), NDArrayIndex.all()), h, w, groups, t)};
        }
        return out;
    }

    @Override
    public String describe() {
        return "fcn " + (pairwise ? "pairwise" : "unary") + " (conv 3x3x" + width + " relu, dilations " + Arrays.toString(dilations)
                + ", conv 1x1; Adam " + learningRate + ", " + (batchImages == 1 ? "one image" : "up to " + batchImages + " same-size images")
                + " per step, " + epochsPerFit + " epochs per fit" + (descentCheck ? ", a fit kept only if it lowers the loss" : "")
                + (recovery > 1 ? ", step regrown x" + recovery + " after an accepted fit" : "")
                + (weightDecay > 0 ? ", weight decay " + weightDecay : "") + ")";
    }
}
