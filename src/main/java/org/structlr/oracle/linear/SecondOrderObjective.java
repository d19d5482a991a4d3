package org.structlr.oracle.linear;

/**
 * A smooth objective with its gradient and, on request, its Hessian: what {@code LinearNewton}
 * minimises. {@link LinearLoss} computes it over row blocks on one machine; the Spark learner sums
 * the same per-block quantities over partitions, so both run the same Newton iterations.
 */
public interface SecondOrderObjective extends Lbfgs.Objective {

    /** f(w); writes the gradient into {@code grad} and, when {@code hess} is not null, the m x m Hessian (row-major). */
    double valueGradientHessian(double[] w, double[] grad, double[] hess);

    @Override
    default double valueAndGradient(double[] w, double[] grad) {
        return valueGradientHessian(w, grad, null);
    }
}
