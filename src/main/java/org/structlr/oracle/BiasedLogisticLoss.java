package org.structlr.oracle;

import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.api.ops.impl.transforms.custom.SoftMax;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.ops.transforms.Transforms;

/**
 * The biased logistic loss of the oracle step (docs/design.md §1) and its gradient: the one implementation
 * every function class uses (the linear and constant fits' loops, XGBoost's custom gradients, the
 * DL4J loss of the networks, {@link BiasedLogisticProblem#loss}). For a row with scores s_n = g(x_n),
 * bias b_n and z_n = s_n + b_n:
 * <pre>
 *   loss_n = lse_c(s_nc + b_nc) - s_{n,y_n} - b_{n,y_n}          = lse_c(z_nc) - z_{n,y_n}
 *   d loss_n / d s_nc = softmax(s_n + b_n)_c - [c = y_n]
 * </pre>
 * With a row weight w_n and target distribution t_n ({@link RowTargets}: T_n = w_n t_n, one-hot for
 * a label), the same loss is the cross-entropy of softmax(z_n) against T_n:
 * <pre>
 *   loss_n = sum_c T_nc (lse(z_n) - z_nc) = W_n lse(z_n) - T_n . z_n,      W_n = sum_c T_nc = w_n
 *   d loss_n / d z_nc = W_n softmax(z_n)_c - T_nc
 *   d2 loss_n / d z_nc d z_nc' = W_n (p_nc [c = c'] - p_nc p_nc'),        p_n = softmax(z_n)
 * </pre>
 * so a row of weight k is k copies of the row, and a soft one-hot target its label. Every
 * function of a row's scores only (the gradient and Hessian with respect to z equal those with
 * respect to s, since z = s + b). Computed in double precision.
 */
public final class BiasedLogisticLoss {

    private BiasedLogisticLoss() {}

    /**
     * Row {@code i}'s loss for biased scores {@code z[off .. off + C)}; fills {@code p} (length >= C;
     * it may be {@code z} itself when {@code off} is 0) with softmax(z_i) and, when {@code r} is not
     * null, {@code r} (length >= C) with d loss_i / d z_i = W_i p - T_i.
     */
    public static double row(RowTargets t, int i, double[] z, int off, double[] p, double[] r) {
        int c = t.numClasses();
        int y = t.label(i);
        double max = Double.NEGATIVE_INFINITY;
        for (int k = 0; k < c; k++) if (z[off + k] > max) max = z[off + k];
        double zy = y >= 0 ? z[off + y] : 0;
        double softDot = 0, softSum = 0;   // T . z and W = sum_c T_c, before p may overwrite z
        if (y < 0) {
            for (int k = 0; k < c; k++) {
                double tk = t.target(i, k);
                softDot += tk * z[off + k];
                softSum += tk;
            }
        }
        double sum = 0;
        for (int k = 0; k < c; k++) sum += (p[k] = Math.exp(z[off + k] - max));
        double inv = 1 / sum;
        for (int k = 0; k < c; k++) p[k] *= inv;
        if (y >= 0) {
            // a label: loss = lse(z) - z_y, residual p - onehot(y), both times the weight
            double loss = max + Math.log(sum) - zy;
            if (r != null) for (int k = 0; k < c; k++) r[k] = p[k] - (k == y ? 1 : 0);
            if (t.weighted()) {
                double w = t.weight(i);
                loss *= w;
                if (r != null) for (int k = 0; k < c; k++) r[k] *= w;
            }
            return loss;
        }
        // soft targets: loss = W lse(z) - T . z, residual W p - T
        if (r != null) for (int k = 0; k < c; k++) r[k] = softSum * p[k] - t.target(i, k);
        return softSum == 0 ? 0 : softSum * (max + Math.log(sum)) - softDot;
    }

    /**
     * {@link #row} for two classes in the logistic form, from the one number the loss depends on,
     * {@code d = z_i1 - z_i0}: with softplus(u) = max(u, 0) + log(1 + exp(-|u|)),
     * <pre>
     *   loss_i = T_i1 softplus(-d) + T_i0 softplus(d),   d loss_i / d d = W_i sigmoid(d) - T_i1
     * </pre>
     * (for a label, loss = softplus(y = 1 ? -d : d) and residual sigmoid(d) - [y = 1]); the residual
     * goes into {@code r[0]} when {@code r} is not null. One exp and one log per row.
     */
    public static double binaryRow(RowTargets t, int i, double d, double[] r) {
        double e = Math.exp(-Math.abs(d));
        double log1pe = Math.log(1 + e);                  // as precise as the general row's log(sum); log1p is StrictMath (half the speed)
        double p1 = (d >= 0 ? 1 : e) / (1 + e);           // sigmoid(d), from e = exp(-|d|)
        int y = t.label(i);
        if (y >= 0) {
            boolean one = y == 1;
            double u = one ? -d : d;
            double loss = Math.max(u, 0) + log1pe;
            double res = p1 - (one ? 1 : 0);
            if (t.weighted()) {
                double w = t.weight(i);
                loss *= w;
                res *= w;
            }
            if (r != null) r[0] = res;
            return loss;
        }
        double t0 = t.target(i, 0), t1 = t.target(i, 1);
        if (r != null) r[0] = (t0 + t1) * p1 - t1;
        return t1 * (Math.max(-d, 0) + log1pe) + t0 * (Math.max(d, 0) + log1pe);
    }

    /**
     * Per row, {@code loss_n = - sum_c T_nc logsoftmax(z_n)_c}, as a column [N, 1] (ND4J, for the DL4J
     * losses). logsoftmax in the shifted form {@code z - m - log sum_c exp(z_c - m)}, m the row's
     * maximum: ND4J's LogSoftMax is log(softmax), which underflows to -inf for an entry more than
     * about 745 (double) or 104 (float) below its row's maximum, and then a zero target gives
     * 0 * -inf = NaN where {@link #row} gives 0.
     */
    public static INDArray lossColumn(INDArray z, INDArray targets) {
        INDArray shifted = z.subColumnVector(z.max(true, 1));
        INDArray lse = Transforms.log(Transforms.exp(shifted, true).sum(true, 1), false);
        INDArray logp = shifted.subiColumnVector(lse);
        return logp.muli(targets.castTo(logp.dataType())).sum(true, 1).negi();
    }

    /** {@code d loss / d z = W softmax(z) - T}, W the row sums of T, a fresh [N, C] array (ND4J, for the DL4J losses). */
    public static INDArray gradient(INDArray z, INDArray targets) {
        INDArray p = Nd4j.exec(new SoftMax(z, z.ulike()))[0];
        INDArray t = targets.castTo(p.dataType());
        return p.muliColumnVector(t.sum(true, 1)).subi(t);
    }
}
