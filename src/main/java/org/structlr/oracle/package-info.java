/**
 * Internal (no compatibility promise), except the extension point {@link org.structlr.oracle.FunctionClass}:
 * the oracle step of docs/design.md §1: fit a function of one class to a biased logistic problem,
 * <pre>
 *   maximise over g in the class:  sum_rows [ g(phi, y) + b(y) - lse_c( g(phi, c) + b(c) ) ],   f = eps g
 * </pre>
 *
 * <ul>
 *   <li>{@link org.structlr.oracle.BiasedLogisticProblem}: features X [N, D], labels y [N], bias B [N, C]
 *       (b = c / eps), validated; {@code loss(scores)} is the negative objective in double.</li>
 *   <li>{@link org.structlr.oracle.BiasedLogisticLoss}: the loss lse(s + b) - s_y - b_y and its gradient
 *       softmax(s + b) - onehot(y), the one implementation every class uses (Java loops and the ND4J form
 *       of the DL4J losses); {@link org.structlr.oracle.RowTargets}: what a row is fitted to, a label or
 *       a distribution (soft targets), with a row weight (T = w t: weight k = k copies of the row).</li>
 *   <li>{@link org.structlr.oracle.Oracle#fit}: problem + previous function (null = start from g = 0)
 *       -> a new {@link org.structlr.oracle.ScoreFunction}; the previous one is never changed.</li>
 *   <li>Function classes: zero, constant (exact Newton), linear (L-BFGS to a gradient tolerance), mlp
 *       (DL4J, SGD + momentum), boost (XGBoost4J, one round of one tree per class per fit), cnn (DL4J, patches).</li>
 *   <li>{@link org.structlr.oracle.FunctionClass}: a function class end to end (CLI name, options
 *       ({@link org.structlr.oracle.ClassOption}, values in {@link org.structlr.oracle.ClassOptions}; a class
 *       with its options for one role is a {@link org.structlr.oracle.FunctionSpec}), oracle, loader,
 *       export), found by {@link org.structlr.oracle.FunctionClasses} through
 *       {@code META-INF/services/org.structlr.oracle.FunctionClass} or {@code FunctionClasses.register};
 *       the built-in classes register the same way, one family per subpackage: {@code oracle.linear}
 *       (zero, const, linear), {@code oracle.nn} (mlp, cnn), {@code oracle.fcn}, {@code oracle.boost}.</li>
 *   <li>{@link org.structlr.oracle.FunctionClasses#load} restores any saved function from its directory
 *       ({@code score-function.json} names the kind, which selects the class);
 *       {@link org.structlr.oracle.FunctionExport} checks every exported file against the function.</li>
 * </ul>
 * Scores are g, in units where f = eps * g: the learner multiplies by eps.
 */
package org.structlr.oracle;

