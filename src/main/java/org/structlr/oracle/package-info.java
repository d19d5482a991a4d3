/**
 * The oracle step of DESIGN §1: fit a function of one class to a biased logistic problem.
 *
 * <ul>
 *   <li>{@link org.structlr.oracle.BiasedLogisticProblem}: features X [N, D], labels y [N], bias B [N, C]
 *       (b = c / eps), validated; {@code loss(scores)} is the negative objective in double.</li>
 *   <li>{@link org.structlr.oracle.Oracle#fit}: problem + previous function (null = start from g = 0)
 *       -> a new {@link org.structlr.oracle.ScoreFunction}; the previous one is never changed.</li>
 *   <li>Function classes: zero, constant (exact Newton), linear (L-BFGS to a gradient tolerance), mlp
 *       (DL4J, SGD + momentum), boost (XGBoost4J, one round of one tree per class per fit).</li>
 *   <li>{@link org.structlr.oracle.ScoreFunctions#load} restores any saved function from its directory
 *       ({@code score-function.json} names the kind).</li>
 *   <li>{@link org.structlr.oracle.BiasedSoftmaxLoss}: the biased loss as a DL4J loss, labels [one-hot | b].</li>
 * </ul>
 * Scores are g, in units where f = eps * g: the learner multiplies by eps.
 */
package org.structlr.oracle;
