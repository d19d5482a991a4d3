/**
 * The fused CPU engine for batches of grids (images of any sizes):
 * {@link org.structlr.inference.fused.FusedGridMessagePassing}. One Vector API pass per colour over
 * structure-of-arrays float planes ({@code FusedGridLayout}, {@code FusedGridKernel}, {@code LaneMath}),
 * rows in cache order ({@code FusedRowSchedule}), threads from a blocking pool ({@code SweepPool}).
 * Needs {@code --add-modules jdk.incubator.vector}; {@code inference.engines.Engines} falls back to the
 * ND4J engines without it.
 */
package org.structlr.inference.fused;
