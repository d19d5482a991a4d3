package org.structlr.oracle.fcn;

import org.structlr.oracle.BiasedLogisticProblem;
import org.structlr.oracle.ImageRows;
import org.structlr.oracle.ScoreFunction;

import java.io.Serializable;
import java.util.List;

import org.deeplearning4j.nn.graph.ComputationGraph;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;

/**
 * Hook for data-parallel FCN fits (the Spark learner): synchronous parameter averaging once per
 * epoch, with the oracle's descent check on the loss summed over the partitions. The driver takes
 * the {@link #start} of a fit; every partition runs {@link #epoch} (the oracle's own epoch over its
 * images only, from the broadcast network); the driver {@link #average}s the returned networks
 * weighted by their row counts, in partition order; after the fit's epochs it compares the summed
 * {@link #loss} with the loss before, and halves the step and redoes the fit as
 * {@link FcnOracle#fit} does. Networks travel as DL4J's own serialised form (parameters, Adam's
 * moments and step count: about 160 KB for the default network), not as objects.
 *
 * <p>Partition p shuffles its images from the oracle's seed, the fit count and p, partition 0 as
 * the single-machine fit does, and its mini-batches are the oracle's batch times its share of the
 * rows (so every partition takes about as many Adam steps per epoch as one machine); so over ONE
 * partition this is {@link FcnOracle#fit} exactly (tested), which is what makes the plumbing testable.
 */
public final class FcnDataParallel implements Serializable {

    private static final long serialVersionUID = 1L;
    private final FcnOracle oracle;

    public FcnDataParallel(FcnOracle oracle) {
        this.oracle = oracle;
    }

    /** The network a fit starts from and the fits it has had. */
    public record Start(byte[] network, int fits) implements Serializable {}

    public Start start(ScoreFunction previous, int numFeatures, int numClasses, DataType dataType) {
        FcnOracle.Start s = oracle.start(previous, numFeatures, numClasses, dataType);
        return new Start(FullyConvolutionalScore.bytes(s.net()), s.fits());
    }

    public int epochsPerFit() {
        return oracle.settings().epochsPerFit();
    }

    public boolean descentCheck() {
        return oracle.settings().descentCheck();
    }

    public int maxHalvings() {
        return DescentSteps.MAX_HALVINGS;
    }

    /** One block's biased loss of the network. */
    public double loss(byte[] network, BiasedLogisticProblem block) {
        if (block.numRows() == 0) return 0;
        return block.loss(oracle.score(FullyConvolutionalScore.fromBytes(network), 0));
    }

    /**
     * Epoch {@code epoch} of fit number {@code fits + 1} on this block's images, from {@code network};
     * returns the trained network. {@code share}: the block's fraction of all rows.
     */
    public byte[] epoch(byte[] network, BiasedLogisticProblem block, int part, double share, int fits, int epoch) {
        ImageRows im = block.images();
        if (im == null) throw new IllegalArgumentException("fcn oracle: needs whole images: every training example must be an image");
        ComputationGraph net = FullyConvolutionalScore.fromBytes(network);
        int batch = Math.max(1, (int) Math.round(oracle.settings().batchImages() * share));
        oracle.train(net, block, im, oracle.shuffleSeed(fits, part), batch, epoch, epoch + 1);
        return FullyConvolutionalScore.bytes(net);
    }

    /**
     * The weighted mean of the networks' parameters and updater states (added in the given order, in
     * double), written into a copy of the first network, which keeps its step counts (Adam's bias
     * correction reads them). One network: itself, bit for bit.
     */
    public byte[] average(List<byte[]> networks, double[] weights) {
        if (networks.isEmpty() || networks.size() != weights.length) throw new IllegalArgumentException("average: networks and weights differ");
        ComputationGraph first = FullyConvolutionalScore.fromBytes(networks.get(0));
        INDArray p0 = first.params(), u0 = first.getUpdater().getStateViewArray();
        double[] p = new double[(int) p0.length()], u = new double[u0 == null ? 0 : (int) u0.length()];
        double total = 0;
        for (int k = 0; k < networks.size(); k++) {
            if (weights[k] <= 0) continue;
            ComputationGraph g = k == 0 ? first : FullyConvolutionalScore.fromBytes(networks.get(k));
            float[] pk = g.params().castTo(DataType.FLOAT).dup('c').reshape(-1).toFloatVector();
            if (pk.length != p.length) throw new IllegalArgumentException("average: networks of different shapes");
            for (int i = 0; i < p.length; i++) p[i] += weights[k] * pk[i];
            if (u.length > 0) {
                float[] uk = g.getUpdater().getStateViewArray().castTo(DataType.FLOAT).dup('c').reshape(-1).toFloatVector();
                for (int i = 0; i < u.length; i++) u[i] += weights[k] * uk[i];
            }
            total += weights[k];
        }
        if (!(total > 0)) throw new IllegalArgumentException("average: no block with rows");
        p0.assign(mean(p, total, p0));
        if (u.length > 0) u0.assign(mean(u, total, u0));
        return FullyConvolutionalScore.bytes(first);
    }

    private static INDArray mean(double[] sum, double total, INDArray like) {
        float[] m = new float[sum.length];
        for (int i = 0; i < m.length; i++) m[i] = (float) (sum[i] / total);
        return org.nd4j.linalg.factory.Nd4j.create(m, like.shape(), 'c').castTo(like.dataType());
    }

    public double learningRate(byte[] network) {
        return FcnGraph.learningRate(FullyConvolutionalScore.fromBytes(network));
    }

    /** The network after a fit accepted at its first try (its step regrown as {@link FcnOracle#fit} does). */
    public byte[] acceptedAtFirstTry(byte[] network) {
        double rate = learningRate(network), next = oracle.steps().recovered(rate);
        return next == rate ? network : withLearningRate(network, next);
    }

    public byte[] withLearningRate(byte[] network, double rate) {
        ComputationGraph net = FullyConvolutionalScore.fromBytes(network);
        net.setLearningRate(rate);
        return FullyConvolutionalScore.bytes(net);
    }

    /** The fitted function: fit number {@code fits + 1}. */
    public ScoreFunction finish(byte[] network, int fits) {
        return oracle.score(FullyConvolutionalScore.fromBytes(network), fits + 1);
    }
}
