package org.structlr.oracle.fcn;

import org.structlr.oracle.BiasedLogisticProblem;
import org.structlr.oracle.ImageRows;
import org.structlr.oracle.Oracle;
import org.structlr.oracle.ScoreFunction;
import org.structlr.oracle.ZeroScore;
import org.structlr.oracle.nn.BiasedSoftmaxLoss;

import org.deeplearning4j.nn.graph.ComputationGraph;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.learning.config.Adam;
import org.nd4j.linalg.learning.config.IUpdater;

/**
 * The fully convolutional function classes (beyond the paper): one DL4J network scores every pixel of
 * a whole image in one pass, so g sees image context and position instead of one pixel's features or
 * one fixed patch. Unary ({@link FcnScore}): C = L scores per pixel. Pairwise ({@link FcnPairScore}):
 * per pixel the L*L scores of its right edge and of its down edge (two groups), so the pairwise
 * function also sees image context, not only 3 edge features. The oracle needs {@link ImageRows} on
 * the problem (the examples must form a grid batch); for a pairwise type the network reads the pixel
 * features, not the edge features.
 *
 * <p>Three parts, each its own class: the network ({@link FcnArchitecture}, by default
 * {@link DilatedConvolutions}) with the biased loss on top ({@link FcnGraph}: the message bias added
 * before the softmax, as in {@link BiasedSoftmaxLoss}; labels are the target rows, and a group whose
 * row is not in the problem, an edge of another type or no edge at the border, has all-zero targets
 * and adds nothing); the training ({@link FcnEpochs}: {@code epochsPerFit} passes over the images in
 * an order reshuffled each epoch from {@code seed} and the number of fits so far, same-size
 * mini-batches of up to {@code batchImages}); and the step policy ({@link DescentSteps}: a fit is kept
 * only if it lowers the problem's loss). All settings are one {@link FcnSettings}. Adam (learning rate
 * {@link FcnSettings#DEFAULT_LEARNING_RATE}); the updater state travels with the network, so
 * consecutive fits continue one run (warm start). Why Adam rather than the MLP's momentum SGD:
 * per-image mini-batches of deep convolutions have very uneven gradient scales across layers.
 * The network's precision is the first problem's (FLOAT recommended).
 */
public final class FcnOracle implements Oracle, java.io.Serializable {

    private static final long serialVersionUID = 2L;

    private final FcnSettings settings;

    public FcnOracle(FcnSettings settings) {
        this.settings = java.util.Objects.requireNonNull(settings, "settings");
    }

    /** The defaults for a unary type. */
    public static FcnOracle unary() {
        return new FcnOracle(FcnSettings.builder(false).build());
    }

    /** The defaults for a pairwise type. */
    public static FcnOracle pairwise() {
        return new FcnOracle(FcnSettings.builder(true).build());
    }

    public FcnSettings settings() {
        return settings;
    }

    /** This oracle with some settings changed, e.g. {@code oracle.with(s -> s.epochs(2))}. */
    public FcnOracle with(java.util.function.UnaryOperator<FcnSettings.Builder> change) {
        return new FcnOracle(change.apply(settings.toBuilder()).build());
    }

    /**
     * A fresh network ({@link FcnSettings#architecture()}) for this oracle's role, with the given
     * updater (Adam for fits; the gradient checks need {@code NoOp}).
     */
    ComputationGraph newNetwork(int numFeatures, int numClasses, DataType dataType, IUpdater updater) {
        return settings.architecture().newNetwork(numFeatures, numClasses, settings.groups(),
                new FcnArchitecture.Optimisation(settings.seed(), dataType, updater, settings.weightDecay()));
    }

    @Override
    public ScoreFunction fit(BiasedLogisticProblem p, ScoreFunction previous) {
        ImageRows im = p.images();
        if (im == null) {
            throw new IllegalArgumentException("fcn oracle: needs whole images: every training example must be an image"
                    + " (a grid batch)");
        }
        if (im.perEdge() != settings.pairwise()) {
            throw new IllegalArgumentException("fcn oracle: a " + (settings.pairwise() ? "pairwise" : "unary") + " fcn got a problem over "
                    + (im.perEdge() ? "edges" : "pixels"));
        }
        Start start = start(previous, im.numPixelFeatures(), p.numClasses(), p.dataType());
        int fits = start.fits();
        long shuffle = shuffleSeed(fits, 0);
        if (!settings.descentCheck()) {
            train(start.net(), p, im, shuffle, settings.batchImages(), 0, settings.epochsPerFit());
            return score(start.net(), fits + 1);
        }
        // the loss where the fit starts: the previous function's, or a fresh network's (not g = 0's: a
        // fresh network's random head may score worse than g = 0, and then no short step could pass)
        double before = p.loss(score(start.net(), fits));
        FcnEpochs.Images data = FcnEpochs.Images.of(p, im, settings.groups(), start.net());   // once for every try
        ComputationGraph kept = steps().descend(start.net(), before,
                net -> FcnEpochs.train(net, data, shuffle, settings.batchImages(), 0, settings.epochsPerFit()),
                net -> p.loss(score(net, fits + 1)));
        return score(kept, fits + 1);
    }

    /** The network a fit starts from (a copy of the previous function's, or a fresh one) and the fits it has had. */
    record Start(ComputationGraph net, int fits) {}

    Start start(ScoreFunction previous, int d, int c, DataType dataType) {
        Class<? extends FullyConvolutionalScore> kind = settings.pairwise() ? FcnPairScore.class : FcnScore.class;
        if (previous == null || previous instanceof ZeroScore) {
            return new Start(newNetwork(d, c, dataType, new Adam(settings.learningRate())), 0);
        }
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

    /** The image order's seed of fit number {@code fits + 1} on partition {@code part} (0: one machine). */
    long shuffleSeed(int fits, int part) {
        return settings.seed() * 1_000_003L + fits + part * 0x9E3779B97F4A7C15L;
    }

    /** Epochs {@code fromEpoch .. toEpoch - 1} of a fit on the problem's images, mini-batches of up to {@code batch} images. */
    void train(ComputationGraph net, BiasedLogisticProblem p, ImageRows im, long shuffleSeed, int batch, int fromEpoch, int toEpoch) {
        FcnEpochs.train(net, p, im, settings.groups(), shuffleSeed, batch, fromEpoch, toEpoch);
    }

    /** The step policy with this oracle's configured rate and regrowth. */
    DescentSteps steps() {
        return new DescentSteps(settings.learningRate(), settings.recovery());
    }

    ScoreFunction score(ComputationGraph net, int fits) {
        return settings.pairwise() ? new FcnPairScore(net, fits) : new FcnScore(net, fits);
    }

    @Override
    public String describe() {
        return settings.describe();
    }
}
