package org.structlr.oracle.fcn;

import org.structlr.oracle.nn.BiasedSoftmaxLoss;

import org.nd4j.common.primitives.Pair;
import org.nd4j.linalg.activations.IActivation;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.indexing.NDArrayIndex;
import org.nd4j.linalg.lossfunctions.ILossFunction;
import org.nd4j.shade.jackson.annotation.JsonProperty;

/**
 * {@link BiasedSoftmaxLoss} over {@code K} groups of {@code C} outputs per row, for a fully
 * convolutional network whose {@code K*C} output channels hold, per pixel, K separate softmaxes (the
 * pairwise FCN: K = 2, the L*L scores of the pixel's right edge and of its down edge; the unary FCN:
 * K = 1). DL4J's {@code CnnLossLayer} hands the loss one row per pixel: {@code preOutput [N, K*C]},
 * labels {@code [N, K*C]} (one-hot; the FCN adds the message bias inside the network, because
 * {@code CnnLossLayer} insists that labels and output have one shape) or {@code [N, 2*K*C] =
 * [one-hot | bias]}; channel {@code s*C + c} = group s, class c. Each group is one row of the biased loss:
 * <pre>
 *   score_n = sum_s - sum_c y_nsc * logsoftmax(z_ns)_c,   z_ns = preOutput_ns + b_ns
 *   dscore/dz_ns = softmax(z_ns) * sum_c y_nsc - y_ns
 * </pre>
 * so a group whose one-hot is all zero (a pixel without a right edge, or a row the problem does not
 * contain) adds nothing to the score or the gradient: that is how absent rows are masked. Reshaping
 * to {@code [N*K, C]} rows and delegating keeps a single implementation of the maths.
 */
public final class FcnLoss implements ILossFunction {

    private static final long serialVersionUID = 1L;
    private static final BiasedSoftmaxLoss ROWS = new BiasedSoftmaxLoss();

    @JsonProperty("groups")          // DL4J's (shaded) Jackson saves and restores it with the network
    private int groups = 1;

    /** For Jackson (ModelSerializer); one group. */
    public FcnLoss() {
    }

    public FcnLoss(int groups) {
        if (groups < 1) throw new IllegalArgumentException("fcn loss: groups must be >= 1, got " + groups);
        this.groups = groups;
    }

    public int groups() {
        return groups;
    }

    /** [N, K*C] -> [N*K, C]. */
    private INDArray perGroup(INDArray a, long c) {
        return a.dup('c').reshape('c', a.size(0) * groups, c);
    }

    /** The rows [N*K, 2C] = [one-hot | bias] that {@link BiasedSoftmaxLoss} reads. */
    private INDArray groupLabels(INDArray labels, INDArray preOutput) {
        long kc = preOutput.size(1);
        if (kc % groups != 0 || labels.rank() != 2 || (labels.size(1) != 2 * kc && labels.size(1) != kc)
                || labels.size(0) != preOutput.size(0)) {
            throw new IllegalArgumentException("FcnLoss: labels must be [N, KC] (one-hot) or [N, 2KC] = [one-hot | bias] with K = " + groups
                    + " groups, N = " + preOutput.size(0) + ", KC = " + kc + "; got " + java.util.Arrays.toString(labels.shape()));
        }
        long c = kc / groups;
        INDArray y = perGroup(labels.get(NDArrayIndex.all(), NDArrayIndex.interval(0, kc)), c);
        INDArray b = labels.size(1) == kc ? y.ulike().assign(0)
                : perGroup(labels.get(NDArrayIndex.all(), NDArrayIndex.interval(kc, 2 * kc)), c);
        return Nd4j.hstack(y, b);
    }

    private INDArray groupMask(INDArray mask, long n) {
        if (mask == null) return null;
        if (mask.length() != n) {
            throw new IllegalArgumentException("FcnLoss: mask must be per row ([N, 1]); got " + java.util.Arrays.toString(mask.shape()));
        }
        // each row's mask value repeated for its K groups
        return mask.reshape(n, 1).repeat(1, groups).reshape('c', n * groups, 1);
    }

    @Override
    public INDArray computeScoreArray(INDArray labels, INDArray preOutput, IActivation activationFn, INDArray mask) {
        long n = preOutput.size(0), c = preOutput.size(1) / groups;
        INDArray rows = ROWS.computeScoreArray(groupLabels(labels, preOutput), perGroup(preOutput, c), activationFn,
                groupMask(mask, n));
        return rows.reshape('c', n, groups).sum(true, 1);
    }

    @Override
    public double computeScore(INDArray labels, INDArray preOutput, IActivation activationFn, INDArray mask, boolean average) {
        double sum = computeScoreArray(labels, preOutput, activationFn, mask).sumNumber().doubleValue();
        return average ? sum / preOutput.size(0) : sum;
    }

    @Override
    public INDArray computeGradient(INDArray labels, INDArray preOutput, IActivation activationFn, INDArray mask) {
        long n = preOutput.size(0), c = preOutput.size(1) / groups;
        INDArray g = ROWS.computeGradient(groupLabels(labels, preOutput), perGroup(preOutput, c), activationFn,
                groupMask(mask, n));
        return g.reshape('c', n, groups * c);
    }

    @Override
    public Pair<Double, INDArray> computeGradientAndScore(INDArray labels, INDArray preOutput, IActivation activationFn,
                                                          INDArray mask, boolean average) {
        return new Pair<>(computeScore(labels, preOutput, activationFn, mask, average),
                computeGradient(labels, preOutput, activationFn, mask));
    }

    @Override
    public String name() {
        return "FcnLoss";
    }

    @Override
    public String toString() {
        return "FcnLoss(groups=" + groups + ")";
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof FcnLoss f && f.groups == groups;
    }

    @Override
    public int hashCode() {
        return 31 * FcnLoss.class.getName().hashCode() + groups;
    }
}
