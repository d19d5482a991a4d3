package org.structlr.oracle.linear;

import org.structlr.oracle.BiasedLogisticProblem;
import org.structlr.oracle.IterativeOracle;
import org.structlr.oracle.ScoreFunction;
import org.structlr.oracle.ScoreFunctions;
import org.structlr.oracle.ZeroScore;
import org.structlr.oracle.nn.BiasedSoftmaxLoss;

import org.deeplearning4j.nn.conf.MultiLayerConfiguration;
import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.nn.conf.layers.OutputLayer;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.deeplearning4j.nn.weights.WeightInit;
import org.nd4j.linalg.activations.Activation;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.learning.config.NoOp;

/**
 * The linear function class g = W phi (W stored [D, C], g = X W), fitted by full-batch L-BFGS on the
 * mean biased logistic loss, in double precision, to {@code max |X^T (softmax(XW + B) - Y)| / N <=
 * gradTolerance} or {@code maxIterations} iterations.
 *
 * <p>Optimiser: with few parameters (D * C at most {@link LinearNewton#MAX_PARAMETERS}, e.g. the
 * denoising set's 2 x 2 and 2 x 4) damped Newton ({@link LinearNewton}); otherwise the package's own {@link Lbfgs} (two-loop recursion, memory 10, Armijo
 * backtracking, stopping when the gradient or the decrease per step is small), on the loss and
 * gradient of {@link LinearLoss} (plain loops over row blocks on {@code threads} threads, the same
 * bits for every thread count). Not
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
public final class LinearOracle implements IterativeOracle {

    /** Default gradient tolerance on the mean loss. */
    public static final double GRAD_TOLERANCE = 1e-6;
    /** Default relative-decrease tolerance (see {@link Lbfgs}). */
    public static final double REL_DECREASE = 1e-9;
    /** Default bound on the iterations per fit. */
    public static final int MAX_ITERATIONS = 200;

    private final double gradTolerance;
    private final double relDecrease;
    private final int maxIterations;
    private final long seed;
    private final int threads;
    /** What the last fit did (for tests and diagnostics). */
    volatile Lbfgs.Result lastFit;

    /** The defaults on one thread. */
    public LinearOracle() {
        this(1);
    }

    /** Gradient tolerance 1e-6 on the mean loss, relative decrease 1e-9, at most 200 L-BFGS iterations, on {@code threads} threads. */
    public LinearOracle(int threads) {
        this(GRAD_TOLERANCE, REL_DECREASE, MAX_ITERATIONS, 12345L, threads);
    }

    /** The gradient test only (no decrease test), one thread. */
    public LinearOracle(double gradTolerance, int maxIterations, long seed) {
        this(gradTolerance, 0, maxIterations, seed, 1);
    }

    public LinearOracle(double gradTolerance, double relDecrease, int maxIterations, long seed, int threads) {
        if (!(gradTolerance >= 0) || !(relDecrease >= 0) || maxIterations < 0 || threads < 1) {
            throw new IllegalArgumentException("linear oracle: need gradTolerance >= 0, relDecrease >= 0, maxIterations >= 0, threads >= 1");
        }
        this.gradTolerance = gradTolerance;
        this.relDecrease = relDecrease;
        this.maxIterations = maxIterations;
        this.seed = seed;
        this.threads = threads;
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
        return fit(p.numFeatures(), p.numClasses(), p.dataType(), previous, LinearLoss.of(p, threads));
    }

    /**
     * The fit with the mean loss, its gradient and Hessian computed elsewhere (the Spark learner sums
     * them over partitions): warm start from {@code previous}, the same solver and tolerances as
     * {@link #fit(BiasedLogisticProblem, ScoreFunction)} (damped Newton for at most
     * {@link LinearNewton#MAX_PARAMETERS} parameters, L-BFGS above), W (row-major [d, c]) into a
     * network of {@code dataType}.
     */
    public ScoreFunction fit(int d, int c, DataType dataType, ScoreFunction previous, SecondOrderObjective objective) {
        MultiLayerNetwork net;
        if (previous == null || previous instanceof ZeroScore) {
            net = newNetwork(d, c, dataType, seed);
        } else if (previous instanceof LinearScore ls) {
            net = ls.networkCopy();
        } else {
            throw new IllegalArgumentException("linear oracle: cannot continue from a " + previous.kind() + " function");
        }
        double[] w = BiasedLogisticProblem.flatDouble(net.getLayer(0).getParam("W"));
        lastFit = d * c <= LinearNewton.MAX_PARAMETERS
                ? LinearNewton.minimise(objective, w, d, c, gradTolerance, relDecrease, maxIterations)
                : Lbfgs.minimise(objective, w, gradTolerance, relDecrease, maxIterations, 10);
        DataType dt = net.params().dataType();
        net.getLayer(0).setParam("W", Nd4j.create(w, new long[]{d, c}, DataType.DOUBLE).castTo(dt));
        return new LinearScore(net);
    }

    /** L-BFGS iterations and loss evaluations of the last fit, {0, 0} before any (diagnostics). */
    public int[] lastFitCounts() {
        Lbfgs.Result r = lastFit;
        return r == null ? new int[2] : new int[] {r.iterations(), r.evaluations()};
    }

    @Override
    public LinearOracle limitedTo(int iterations) {
        if (iterations < 1) throw new IllegalArgumentException("linear oracle: at least 1 iteration per fit, got " + iterations);
        return new LinearOracle(gradTolerance, relDecrease, Math.min(iterations, maxIterations), seed, threads);
    }

    @Override
    public String describe() {
        return "linear (L-BFGS, grad tol " + gradTolerance + ", rel. decrease " + relDecrease + ", <= " + maxIterations + " iterations, "
                + threads + " threads)";
    }
}
