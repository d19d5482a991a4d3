package org.structlr.api;

import java.nio.file.Path;
import org.structlr.data.Example;
import org.structlr.data.ExampleIO;

/**
 * One example: a graph of V variables and E edges with features, and (for training) labels.
 * Made from arrays in memory ({@link #of}), read from an {@code .npz} file ({@link #read}), or from
 * an image and its mask ({@link CrfImages}).
 * <pre>{@code
 *   // a chain of 3 variables: unary features [3, 2], edges 0-1 and 1-2 with one feature each, labels
 *   CrfExample ex = CrfExample.of(new float[] {1, 0.2f, 1, 0.9f, 1, 0.8f}, 2, new int[] {0, 1, 1, 2},
 *           new float[] {1, 1}, 1, new int[] {0, 1, 1});
 *   System.out.println(ex.numVariables() + " variables, " + ex.numEdges() + " edges, labels " + java.util.Arrays.toString(ex.labels()));
 * }</pre>
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

    /** Unary features per variable. */
    public int unaryWidth() { return example.unaryDim(); }

    /** The unary features, row-major {@code [V, unaryWidth]} (a copy). */
    public float[] unary() { return example.unary(); }

    /** {@code [height, width]} of an image example (variables are its pixels, row-major), or null. */
    public int[] shape() { return example.shape().orElse(null); }

    /** The true labels, or null when the example has none. */
    public int[] labels() { return example.hasLabels() ? example.labels() : null; }

    @Override
    public String toString() { return example.toString(); }
}
