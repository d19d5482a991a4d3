/**
 * Internal (no compatibility promise): examples and data sets on disk and in memory (docs/design.md §4).
 *
 * <p>An {@link org.structlr.data.Example} is one graph: unary features phi_i [V, Du], edges (i, j) [E, 2],
 * pairwise features phi_ij [E, Dp], optional labels y [V], label count L, image shape [H, W] and edge
 * types t(i, j). {@link org.structlr.data.Dataset} holds the train/test/val splits and checks their
 * consistency (feature widths, L = num_labels or 1 + the largest training label).
 * {@link org.structlr.data.ExampleIO} reads and writes examples as {@code .npz} ({@link org.structlr.data.Npz},
 * {@link org.structlr.data.NpyArray}: NumPy's formats, written by hand because no maintained Java
 * library writes .npz); {@link org.structlr.data.UaiReader} reads UAI model files (MARKOV and BAYES, factors of
 * any size, sizes checked against limits before allocation), {@link org.structlr.data.UaiWriter}
 * writes them, {@link org.structlr.data.UaiEvidence} reads evidence;
 * {@link org.structlr.data.DenoisingGenerator} makes the paper's synthetic denoising set.
 * {@link org.structlr.data.AtomicFiles} writes files and folders all-or-nothing and
 * {@link org.structlr.data.BadInputException} is the one error type for bad input (exit code 2).
 */
package org.structlr.data;
