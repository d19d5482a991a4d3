/**
 * Internal (no compatibility promise): learning by alternating oracle fits with warm-started message
 * passing (the paper's Alg. 1, docs/design.md §1).
 *
 * <p>The objective, per example k with messages lambda^k: R = sum_k [ -F(x^k, y^k) + A(lambda^k, theta^k_F) ],
 * theta_i(y) = f_unary(phi_i, y) + [y != y_i^k] (Hamming loss augmentation). With lambda fixed, the fit of
 * one factor type is a biased logistic regression (the oracle step, {@code org.structlr.oracle}): bias
 * c_i(y) = Delta_i(y) - sum_{a ∋ i} lambda_{a->i}(y) for unary rows, c_a(y_i, y_j) = lambda_{a->i}(y_i) +
 * lambda_{a->j}(y_j) for pairwise rows, b = c / eps, f = eps g. Each iteration: fit unary, sweeps, fit
 * pairwise, sweeps; R / #variables is reported as the objective.
 *
 * <p>Entry points: {@link org.structlr.learn.Training} (data set + function-class names + settings ->
 * model, curve, provenance), {@link org.structlr.learn.AlternatingLearner} (the loop itself, on oracles),
 * {@link org.structlr.learn.LearnSettings}, {@link org.structlr.learn.Checkpoint} /
 * {@link org.structlr.learn.Checkpointer} (the whole learner state, for {@code --resume}),
 * {@link org.structlr.learn.Provenance} (what a model records about how it was made).
 */
package org.structlr.learn;
