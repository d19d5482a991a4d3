/**
 * Internal (no compatibility promise): inference by message passing on the entropy-smoothed dual
 * (DESIGN §1, notation theta, lambda, eps):
 * <pre>
 *   A(lambda, theta) = sum_a eps lse_{y_a}((theta_a(y_a) + lambda_{a->i}(y_i) + lambda_{a->j}(y_j)) / eps)
 *                    + sum_i eps lse_y((theta_i(y) - sum_{a ∋ i} lambda_{a->i}(y)) / eps)
 *   star update at i:  m_a(y) = eps lse_{y_j}((theta_a(y, y_j) + lambda_{a->j}(y_j)) / eps)
 *                      lambda_{a->i}(y) = (theta_i(y) + sum_{a'} m_{a'}(y)) / (deg(i) + 1) - m_a(y)
 *   beliefs:           b_i(y) ∝ exp((theta_i(y) - sum_a lambda_{a->i}(y)) / eps)
 * </pre>
 * A star update never increases A; the duality gap (A minus the primal
 * sum theta.b + eps (sum_i H(b_i) + sum_a H(b_a))) is the convergence test ({@link org.structlr.inference.StopRule}).
 * Minus-infinity potentials (hard constraints) are handled so that no infinity is subtracted from another.
 *
 * <p>Entry points: {@link org.structlr.inference.MessagePassing} (the engine interface: set potentials,
 * run sweeps, beliefs, decode, exact state) and {@link org.structlr.inference.Engines} (picks the
 * fastest engine for a graph: {@link org.structlr.inference.GridMessagePassing} for grids,
 * {@link org.structlr.inference.GraphMessagePassing} for general graphs, {@link org.structlr.inference.LoopMessagePassing}
 * for small or dense ones). ExactInference enumerates small graphs for tests.
 */
package org.structlr.inference;
