/**
 * DL4J network function classes on per-factor features: {@code mlp} (one hidden layer) and
 * {@code cnn} (k x k RGB patches), and what every DL4J-backed class shares: the biased loss as a DL4J
 * loss ({@link org.structlr.oracle.nn.BiasedSoftmaxLoss}: labels [one-hot | b]), the network score
 * base class, reading network zips ({@link org.structlr.oracle.nn.NetworkFiles}), private copies of networks
 * with their updater state ({@link org.structlr.oracle.nn.NetworkCopies}, the fcn class's too), saving and export as
 * plain DL4J networks ({@link org.structlr.oracle.nn.NetworkExport}).
 */
package org.structlr.oracle.nn;
