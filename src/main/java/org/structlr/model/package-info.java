/**
 * Internal (no compatibility promise): trained models and what is done with them.
 *
 * <p>{@link org.structlr.model.CrfModel}: label count L, eps, factor types and each type's function g,
 * so that theta_i(y) = eps g_unary(phi_i)[y] and theta_a(y_i, y_j) = eps g_t(phi_a)[y_i L + y_j]; saved as
 * a checksummed folder. {@link org.structlr.model.ExampleBatch}: many examples as one disjoint-union
 * graph with features grouped by factor type; {@link org.structlr.model.Potentials}: theta (and the
 * Hamming loss Delta, and the error) of a batch; {@link org.structlr.model.Predictor}: theta without
 * Delta, message passing, y_i = argmax_y b_i(y); {@link org.structlr.model.ModelExport}: every function
 * in its ecosystem's format (through its {@code FunctionClass}) plus a manifest.
 */
package org.structlr.model;
