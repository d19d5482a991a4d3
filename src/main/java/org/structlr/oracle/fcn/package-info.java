/**
 * The {@code fcn} function class: fully convolutional DL4J ComputationGraphs over whole images
 * (a unary network scoring every pixel, a pairwise network scoring every edge of the grid), fitted
 * with descent steps on the biased loss; the built-in network or a user's own DL4J network file
 * ({@link org.structlr.oracle.fcn.OwnNetwork}); data-parallel averaging for Spark.
 */
package org.structlr.oracle.fcn;
