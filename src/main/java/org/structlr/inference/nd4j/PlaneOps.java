package org.structlr.inference.nd4j;

import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.api.ops.impl.scalar.ScalarMax;
import org.nd4j.linalg.api.ops.impl.transforms.pairwise.arithmetic.Axpy;
import org.nd4j.linalg.api.ops.impl.transforms.pairwise.arithmetic.MulOp;
import org.nd4j.linalg.api.ops.impl.transforms.same.Max;
import org.nd4j.linalg.api.ops.impl.transforms.same.Min;
import org.nd4j.linalg.api.ops.impl.transforms.strict.Exp;
import org.nd4j.linalg.api.ops.impl.transforms.strict.Log;
import org.nd4j.linalg.api.ops.impl.transforms.strict.SoftPlus;
import org.nd4j.linalg.factory.Nd4j;

/**
 * Element-wise ND4J ops on equal-length planes, each writing into an explicit output (no
 * allocation): the only operations the grid engine's sweep uses, so it never leaves the device.
 */
final class PlaneOps {
    /** Floor of a maximum before it is subtracted: an all minus infinity lse gives -inf, not NaN. */
    static final double BIG = 1e30;

    private PlaneOps() {}

    // Axpy (out = p * x + y) is a legacy pairwise op: about a third of the dispatch cost of the
    // custom AddOp/SubOp, and bit-identical to them (p = +-1 is an exact sign change), infinities included.
    static void add(INDArray x, INDArray y, INDArray out) { Nd4j.exec(new Axpy(y, x, out, 1.0)); }
    static void sub(INDArray x, INDArray y, INDArray out) { Nd4j.exec(new Axpy(y, x, out, -1.0)); }
    static void mul(INDArray x, INDArray y, INDArray out) { Nd4j.exec(new MulOp(x, y, out)); }
    static void max(INDArray x, INDArray y, INDArray out) { Nd4j.exec(new Max(x, y, out)); }
    static void min(INDArray x, INDArray y, INDArray out) { Nd4j.exec(new Min(x, y, out)); }
    static void maxScalar(INDArray x, double v, INDArray out) { Nd4j.exec(new ScalarMax(x, null, out, v)); }
    static void exp(INDArray x, INDArray out) { Nd4j.exec(new Exp(x, out)); }
    static void log(INDArray x, INDArray out) { Nd4j.exec(new Log(x, out)); }
    static void softplus(INDArray x, INDArray out) { Nd4j.exec(new SoftPlus(x, out)); }

    /** out = element-wise log-sum-exp of equal-length planes; all -inf gives -inf, never NaN. Allocates (read-outs only). */
    static void lse(INDArray[] planes, INDArray out) {
        INDArray mx = planes[0].dup();
        for (int i = 1; i < planes.length; i++) max(mx, planes[i], mx);
        maxScalar(mx, -BIG, mx);
        INDArray s = Nd4j.zerosLike(mx), t = Nd4j.zerosLike(mx);
        for (INDArray p : planes) {
            sub(p, mx, t);
            exp(t, t);
            add(s, t, s);
        }
        log(s, s);
        add(s, mx, out);
    }
}
