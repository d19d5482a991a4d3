/**
 * The ND4J engines, the path that runs on CUDA: {@link org.structlr.inference.nd4j.GridMessagePassing}
 * for batches of grids (label planes as contiguous arrays, checkerboard colours, padded layouts for
 * ragged batches) and {@link org.structlr.inference.nd4j.GraphMessagePassing} for any graph (batched
 * by colour class). Both compute in the data type they are given (float or double).
 */
package org.structlr.inference.nd4j;
