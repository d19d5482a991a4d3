/**
 * Internal (no compatibility promise): inference by message passing on the entropy-smoothed dual
 * (docs/design.md §1, notation theta, lambda, eps):
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
 * <p>This package holds what every engine shares: {@link org.structlr.inference.MessagePassing} (the
 * engine interface: set potentials, run sweeps, beliefs, decode, exact state), the stopping rule,
 * {@link org.structlr.inference.MapDecoder} and {@link org.structlr.inference.LabelingEnergy} (MAP
 * decoding), {@link org.structlr.inference.ExactInference} (enumeration of small graphs, for tests).
 * The engine families live in the subpackages, each using only this package and {@code graph}:
 * {@code inference.loop} (plain Java, any graph), {@code inference.fused} (Vector API, batches of
 * grids on the CPU), {@code inference.nd4j} (ND4J grid and graph engines: the CUDA path), and
 * {@code inference.engines.Engines} is the one place that chooses among them.
 */
package org.structlr.inference;
