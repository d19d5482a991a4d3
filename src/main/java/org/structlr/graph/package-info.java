/**
 * Internal (no compatibility promise): factor graph structure.
 *
 * <p>{@link org.structlr.graph.FactorGraph}: variables i with label counts L_i, edges a = (i, j) with
 * factor types t(a), regions r (factors over any number of variables, the paper's general regions,
 * with unpadded tables of at most 2^24 entries) with their types, adjacency; a disjoint union makes
 * one graph of a batch of examples.
 * {@link org.structlr.graph.Coloring}: a proper colouring (no factor holds two variables of one
 * colour; greedy; a 4-connected grid needs two colours, a checkerboard), so all variables of one colour can be star-updated at once with exactly the
 * sequential result (docs/design.md §1). {@link org.structlr.graph.Grids}: the 4-connected H x W grid, edges
 * ordered all horizontal then all vertical, row-major; {@link org.structlr.graph.GridBatch}: the layout
 * of a ragged batch of grids (shared interface, agreed on main).
 */
package org.structlr.graph;
