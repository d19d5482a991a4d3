package org.structlr.api;

import java.nio.file.Path;
import org.structlr.data.Example;
import org.structlr.data.ExampleIO;

/**
 * One example: a graph of V variables and E edges with features, and (for training) labels.
 * Made from arrays in memory ({@link #of}) or read from an {@code .npz} file ({@link #read}).
 */
public final class CrfExample {
    final Example example;

    CrfExample(Example example) {
        this.example = example;
    }

    /**
     * An example from row-major arrays: unary features {@code [V, unaryWidth]}, edges
     * {@code [i0, j0, i1, j1, ...]} and pairwise features {@code [E, pairWidth]}; {@code labels}
     * (one per variable, 0..L-1) may be null for an example to predict.
     */
    public static CrfExample of(float[] unary, int unaryWidth, int[] edges, float[] pairwise, int pairWidth, int[] labels) {
        return new CrfExample(Example.builder(unary, unaryWidth, edges, pairwise, pairWidth).labels(labels).build());
    }

    /** Reads one example from an {@code .npz} file (the format of docs/design.md §4: unary, edges, pairwise, labels, ...). */
    public static CrfExample read(Path npz) {
        return new CrfExample(ExampleIO.read(npz));
    }

    public int numVariables() { return example.numVariables(); }

    public int numEdges() { return example.numEdges(); }

    /** The true labels, or null when the example has none. */
    public int[] labels() { return example.hasLabels() ? example.labels() : null; }

    @Override
    public String toString() { return example.toString(); }
}
