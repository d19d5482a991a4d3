/**
 * The fused CPU engine for batches of grids (images of any sizes):
 * {@link org.structlr.inference.fused.FusedGridMessagePassing}. One Vector API pass per colour over
 * structure-of-arrays float planes ({@code FusedGridLayout}, {@code FusedGridKernel}, {@code LaneMath}),
 * strips of rows in cache order, a block of strips per thread ({@code FusedRowSchedule}), threads from
 * a pool that spins briefly, then parks ({@code SweepPool}).
 * Needs {@code --add-modules jdk.incubator.vector}; {@code inference.engines.Engines} falls back to the
 * ND4J engines without it.
 */
package org.structlr.inference.fused;
