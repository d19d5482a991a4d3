package org.structlr.api;

/**
 * What a {@link Crf} predicts for one example: the labels (argmax of the beliefs) and the
 * marginals {@code [V][L]} (beliefs of the entropy-smoothed LP relaxation, docs/design.md §1), and,
 * when the example has labels, the fraction of its labelled variables predicted wrong (variables
 * labelled -1, "void", are not counted).
 */
public record Prediction(int[] labels, float[][] marginals, double error) {
    /** Whether {@link #error()} is known (the example had labels). */
    public boolean hasError() { return !Double.isNaN(error); }
}
