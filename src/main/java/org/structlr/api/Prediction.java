package org.structlr.api;

/**
 * What a {@link Crf} predicts for one example: the labels (argmax of the beliefs) and the
 * marginals {@code [V][L]} (beliefs of the entropy-smoothed LP relaxation, docs/design.md §1), and,
 * when the example has labels, the fraction of its labelled variables predicted wrong (variables
 * labelled -1, "void", are not counted).
 * <pre>{@code
 *   CrfData data = CrfData.denoising(2, 2, 16, 1);
 *   Prediction p = CrfTrainer.builder().iterations(2).build().train(data).predict(data.test().get(0));
 *   System.out.printf("pixel 0: label %d, P(label 1) %.3f; error %.4f%n", p.labels()[0], p.marginals()[0][1], p.error());
 * }</pre>
 */
public record Prediction(int[] labels, float[][] marginals, double error) {
    /** Whether {@link #error()} is known (the example had labels). */
    public boolean hasError() { return !Double.isNaN(error); }
}
