/**
 * Internal (no compatibility promise): the paper's experiments as runs of (unary class, pairwise class)
 * pairs on one data set: {@link org.structlr.experiment.Experiment} trains one pair or the whole table
 * (the paper's Table 1: every pair of the given classes), resumable pair by pair, and writes the table
 * (test error after 5 iterations and at the end, final objective R / #variables, seconds) as CSV and
 * Markdown, with the learning curves as PNGs.
 */
package org.structlr.experiment;
