package org.structlr.inference.nd4j;

import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.api.ops.DynamicCustomOp;
import org.nd4j.linalg.api.ops.impl.transforms.custom.Max;
import org.nd4j.linalg.api.ops.impl.transforms.pairwise.arithmetic.AddOp;
import org.nd4j.linalg.api.ops.impl.transforms.pairwise.arithmetic.SubOp;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.indexing.BooleanIndexing;
import org.nd4j.linalg.indexing.conditions.Conditions;
import org.nd4j.linalg.ops.transforms.Transforms;

/**
 * Small ND4J building blocks shared by the batched engines. Every hot-path op writes into a
 * preallocated output: allocation and reductions over a small trailing axis are what make ND4J slow
 * here (measured on ND4J 1.0.0-M2.1's CPU backend when these engines were written), element-wise ops over contiguous arrays are fast.
 */
final class Nd4jKernels {
    /**
     * Floor for a maximum before it is subtracted: a row whose entries are all minus infinity gets
     * log-sum-exp = -BIG + log(0) = -inf instead of -inf - (-inf) = NaN.
     */
    static final double BIG = 1e30;

    private Nd4jKernels() {}

    static void add(INDArray x, INDArray y, INDArray out) {
        Nd4j.exec(new AddOp(x, y, out));
    }

    static void sub(INDArray x, INDArray y, INDArray out) {
        Nd4j.exec(new SubOp(x, y, out));
    }

    static void max(INDArray x, INDArray y, INDArray out) {
        Nd4j.exec(new Max(x, y, out));
    }

    /** out[k] = x[idx[k]] for a 1-D x; {@code idx} is [K, 1] (gather_nd is ~30x faster than gather here). */
    static void gather(INDArray x, INDArray idx, INDArray out) {
        Nd4j.exec(DynamicCustomOp.builder("gather_nd").addInputs(x, idx).addOutputs(out).build());
    }

    static INDArray indexColumn(int[] idx) {
        return Nd4j.createFromArray(idx).reshape(idx.length, 1);
    }

    /**
     * out = log sum_r exp(rows[r]) over the rows of a contiguous [R, K] array, stable, -inf safe.
     * {@code rows} is overwritten; {@code mx} is a [K] scratch buffer.
     */
    static void logSumExpRows(INDArray rows, INDArray mx, INDArray out) {
        int r = (int) rows.size(0);
        mx.assign(rows.getRow(0));
        for (int k = 1; k < r; k++) max(mx, rows.getRow(k), mx);
        Transforms.max(mx, -BIG, false);
        rows.subiRowVector(mx);
        Transforms.exp(rows, false);
        out.assign(rows.getRow(0));
        for (int k = 1; k < r; k++) out.addi(rows.getRow(k));
        Transforms.log(out, false);
        out.addi(mx);
    }

    /** Softmax over the rows of [R, K] in place (each column sums to 1); -inf entries get 0. */
    static void softmaxRows(INDArray rows) {
        int r = (int) rows.size(0);
        INDArray mx = rows.getRow(0).dup();
        for (int k = 1; k < r; k++) max(mx, rows.getRow(k), mx);
        Transforms.max(mx, -BIG, false);
        rows.subiRowVector(mx);
        Transforms.exp(rows, false);
        INDArray s = rows.sum(0);
        rows.diviRowVector(s);
    }

    /** Sum over columns of sum_r b[r] * (t[r] - log b[r]) with 0 * anything = 0: theta.b + H(b). */
    static double expectedPlusEntropy(INDArray t, INDArray b) {
        INDArray tt = t.dup();
        BooleanIndexing.replaceWhere(tt, 0.0, Conditions.isInfinite());
        INDArray logb = Transforms.log(b, true);
        BooleanIndexing.replaceWhere(logb, 0.0, Conditions.isInfinite());
        return tt.subi(logb).muli(b).sumNumber().doubleValue();
    }

    static boolean hasNanOrPlusInf(INDArray a) {
        if (a.isEmpty()) return false;
        if (BooleanIndexing.or(a, Conditions.isNan())) return true;
        return a.maxNumber().doubleValue() == Double.POSITIVE_INFINITY;
    }
}
