/**
 * {@link org.structlr.inference.engines.Engines}: the one place that knows which inference engines exist
 * and picks one for a graph (fused grids on the CPU with the Vector API, the loop engine for small
 * graphs, the ND4J engines otherwise and on CUDA), or the one a user names.
 */
package org.structlr.inference.engines;
