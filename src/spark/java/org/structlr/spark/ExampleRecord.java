package org.structlr.spark;

import java.io.Serializable;
import java.nio.file.Path;
import org.structlr.data.Example;

/**
 * One example as plain arrays, the form Spark serialises into partitions ({@link Example} holds a
 * {@link Path}, which is not serialisable). {@link #example()} rebuilds the same example.
 */
record ExampleRecord(String source, float[] unary, int unaryDim, int[] edges, float[] pairwise, int pairDim,
                     int[] labels, int numLabels, int[] shape, int[] edgeType) implements Serializable {

    static ExampleRecord of(Example e) {
        return of(e, e.source().map(Path::toString).orElse(null));
    }

    /** The record of {@code e}, named {@code source} (the URI an executor read it from). */
    static ExampleRecord of(Example e, String source) {
        int[] edgeType = e.edgeTypes().orElse(null);
        return new ExampleRecord(source, e.unary(), e.unaryDim(), e.edges(), e.pairwise(), e.pairDim(),
                e.hasLabels() ? e.labels() : null, e.numLabels().orElse(0), e.shape().orElse(null), edgeType);
    }

    Example example() {
        Example.Builder b = Example.builder(unary, unaryDim, edges, pairwise, pairDim);
        if (source != null) {
            try {
                b.source(Path.of(source));                 // a URI (hdfs://...) where this file system allows it as a name
            } catch (java.nio.file.InvalidPathException e) {
                // a name for messages only: an example without one is still the same example
            }
        }
        if (labels != null) b.labels(labels);
        if (numLabels > 0) b.numLabels(numLabels);
        if (shape != null) b.shape(shape[0], shape[1]);
        if (edgeType != null) b.edgeType(edgeType);
        return b.build();
    }
}
