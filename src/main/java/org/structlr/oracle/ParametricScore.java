package org.structlr.oracle;

/**
 * A function fixed by a vector of real parameters, so that a learning schedule can move it along a
 * direction (extrapolation between iterations, {@link org.structlr.schedule}). The all-zero vector
 * is the function g = 0, so a type not fitted yet is the zero vector of the same length.
 */
public interface ParametricScore extends ScoreFunction {

    /** A copy of the parameters. */
    double[] parameters();

    /** The function of the same class and shape with these parameters. */
    ScoreFunction withParameters(double[] parameters);
}
