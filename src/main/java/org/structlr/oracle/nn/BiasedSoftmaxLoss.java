package org.structlr.oracle.nn;

import org.nd4j.common.primitives.Pair;
import org.structlr.oracle.BiasedLogisticLoss;
import org.nd4j.linalg.activations.IActivation;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.indexing.NDArrayIndex;
import org.nd4j.linalg.lossfunctions.ILossFunction;

/**
 * The biased logistic loss of the oracle step (docs/design.md §1) as a DL4J loss, so that any DL4J network
 * whose output layer uses it (with the IDENTITY activation) fits g of
 * {@code maximise sum_n [ g(x_n, y_n) + b_n(y_n) - lse_c(g(x_n, c) + b_n(c)) ]}.
 *
 * <p>Labels have width {@code 2C}: {@code [ T | bias b ]}, T the target rows (one-hot y; weighted or
 * soft: {@link org.structlr.oracle.RowTargets}) (DL4J does not check the label width against nOut).
 * With {@code z = activation(preOutput) + b}, by {@link BiasedLogisticLoss}:
 * <pre>
 *   score_n    = - sum_c T_nc * logsoftmax(z_n)_c
 *   dscore/dz  = softmax(z_n) * sum_c T_nc - T_n        (= softmax(z_n) - y_n for one-hot y)
 * </pre>
 * and the gradient is passed back through {@code activationFn.backprop}. A per-example mask
 * ({@code [N, 1]}) multiplies both. Stateless: every instance equals every other, and the public
 * no-arg constructor is what Jackson (ModelSerializer) needs to restore it.
 */
public final class BiasedSoftmaxLoss implements ILossFunction {

    private static final long serialVersionUID = 1L;

    public BiasedSoftmaxLoss() {
    }

    /** The DL4J labels of a problem: {@code [N, 2C] = [T | b]} (T its target rows: one-hot labels unless weighted or soft). */
    public static INDArray labels(org.structlr.oracle.BiasedLogisticProblem p) {
        return labels(p.targetMatrix(), p.bias());
    }

    /** Labels {@code [N, 2C]} for target rows (one-hot labels) and a bias, in the bias's data type. */
    public static INDArray labels(INDArray targets, INDArray bias) {
        return Nd4j.hstack(targets.castTo(bias.dataType()), bias);
    }

    private static INDArray[] split(INDArray labels, INDArray preOutput) {
        long c = preOutput.size(1);
        if (labels.rank() != 2 || labels.size(1) != 2 * c || labels.size(0) != preOutput.size(0)) {
            throw new IllegalArgumentException("BiasedSoftmaxLoss: labels must be [N, 2C] = [targets | bias] with N = "
                    + preOutput.size(0) + ", C = " + c + "; got " + java.util.Arrays.toString(labels.shape()));
        }
        INDArray y = labels.get(NDArrayIndex.all(), NDArrayIndex.interval(0, c));
        INDArray b = labels.get(NDArrayIndex.all(), NDArrayIndex.interval(c, 2 * c));
        return new INDArray[]{y, b};
    }

    /** z = activation(preOutput) + b, a fresh array. */
    private static INDArray biasedOutput(INDArray preOutput, IActivation activationFn, INDArray b) {
        INDArray out = activationFn.getActivation(preOutput.dup(), true);
        return out.addi(b.castTo(out.dataType()));
    }

    private static INDArray scoreColumn(INDArray labels, INDArray preOutput, IActivation activationFn, INDArray mask) {
        INDArray[] yb = split(labels, preOutput);
        INDArray z = biasedOutput(preOutput, activationFn, yb[1]);
        INDArray s = BiasedLogisticLoss.lossColumn(z, yb[0]);
        if (mask != null) applyMask(s, mask);
        return s;
    }

    private static void applyMask(INDArray perRowOrFull, INDArray mask) {
        if (mask.length() == perRowOrFull.size(0)) {
            perRowOrFull.muliColumnVector(mask.reshape(perRowOrFull.size(0), 1).castTo(perRowOrFull.dataType()));
        } else if (mask.equalShapes(perRowOrFull)) {
            perRowOrFull.muli(mask.castTo(perRowOrFull.dataType()));
        } else {
            throw new IllegalArgumentException("BiasedSoftmaxLoss: mask must be per example ([N, 1]); got "
                    + java.util.Arrays.toString(mask.shape()));
        }
    }

    @Override
    public double computeScore(INDArray labels, INDArray preOutput, IActivation activationFn, INDArray mask,
                               boolean average) {
        double sum = scoreColumn(labels, preOutput, activationFn, mask).sumNumber().doubleValue();
        return average ? sum / preOutput.size(0) : sum;
    }

    @Override
    public INDArray computeScoreArray(INDArray labels, INDArray preOutput, IActivation activationFn, INDArray mask) {
        return scoreColumn(labels, preOutput, activationFn, mask);
    }

    @Override
    public INDArray computeGradient(INDArray labels, INDArray preOutput, IActivation activationFn, INDArray mask) {
        INDArray[] yb = split(labels, preOutput);
        INDArray z = biasedOutput(preOutput, activationFn, yb[1]);
        INDArray dLdz = BiasedLogisticLoss.gradient(z, yb[0]);
        if (mask != null) applyMask(dLdz, mask);
        return activationFn.backprop(preOutput.dup(), dLdz).getFirst();
    }

    @Override
    public Pair<Double, INDArray> computeGradientAndScore(INDArray labels, INDArray preOutput, IActivation activationFn,
                                                          INDArray mask, boolean average) {
        return new Pair<>(computeScore(labels, preOutput, activationFn, mask, average),
                computeGradient(labels, preOutput, activationFn, mask));
    }

    @Override
    public String name() {
        return "BiasedSoftmaxLoss";
    }

    @Override
    public String toString() {
        return "BiasedSoftmaxLoss()";
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof BiasedSoftmaxLoss;
    }

    @Override
    public int hashCode() {
        return BiasedSoftmaxLoss.class.getName().hashCode();
    }
}
