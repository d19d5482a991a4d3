package org.structlr.learn;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import org.structlr.data.Example;

/**
 * Class weights and example weights of a training run (issue 21 item 3). They reach the oracles
 * as row weights of the biased logistic problems ({@link org.structlr.oracle.RowTargets}, T = w t),
 * so every function class that fits the weighted loss takes them (linear, const, mlp, cnn, fcn,
 * boost, and a user's class through {@code BiasedLogisticProblem.targets()}):
 * <pre>
 *   unary row of variable i in example k:     w_i = e_k c_{y_i}
 *   pairwise row of edge (i, j) in example k: w_a = e_k (c_{y_i} + c_{y_j}) / 2
 * </pre>
 * with e_k the example's weight and c_y the class weight of label y, scaled per problem to a mean
 * of 1. Message passing is unchanged. For the classes whose fit minimises the weighted mean loss
 * (linear, const, a user's class that reads {@code targets()}) an example weight is exactly that
 * many copies of the example (its engine's messages are the same for every copy, and a row of
 * weight k counts as k rows); the mini-batch classes (mlp, cnn, fcn) weight each row's gradient,
 * which equals copies in expectation per step, not in the number of steps; boost weights each row's
 * gradient and Hessian. A class weight scales the terms of that class's factors in the fits, which
 * is what class weighting means for a logistic loss. The objective the learner reports stays the
 * unweighted R.
 *
 * <p>{@code balanced}: c_y = N / (K N_y) over the N labelled training variables, K the classes
 * present and N_y those labelled y (scikit-learn's rule, so the total weight stays N); a class
 * with no training variable gets weight 1 (it has no rows).
 */
public final class RowWeights {
    /** No weights: every row has weight 1 (the problems are left as they are, the same bits as before). */
    public static final RowWeights NONE = new RowWeights(null, false, null);

    /** The {@code --class-weights} value that balances the classes. */
    public static final String BALANCED = "balanced";

    private final double[] classWeights;    // explicit class weights, or null
    private final boolean balanced;
    private final double[] exampleWeights;  // per training example (the data set's train order), or null

    private RowWeights(double[] classWeights, boolean balanced, double[] exampleWeights) {
        this.classWeights = classWeights;
        this.balanced = balanced;
        this.exampleWeights = exampleWeights;
    }

    /**
     * Class weights from {@code balanced} or a list {@code w0,w1,...} (one per label, finite and
     * {@code >= 0}, at least one positive); null or empty: none.
     *
     * @throws IllegalArgumentException naming the bad value
     */
    public static RowWeights classes(String spec) {
        if (spec == null || spec.isBlank()) return NONE;
        if (spec.trim().equals(BALANCED)) return new RowWeights(null, true, null);
        String[] parts = spec.split(",", -1);
        double[] w = new double[parts.length];
        boolean positive = false;
        for (int c = 0; c < parts.length; c++) {
            try {
                w[c] = Double.parseDouble(parts[c].trim());
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("'" + spec + "' is neither " + BALANCED + " nor a list of weights w0,w1,...: '" + parts[c] + "' is not a number");
            }
            if (!(w[c] >= 0) || !Double.isFinite(w[c])) {
                throw new IllegalArgumentException("the weight of class " + c + " is " + parts[c].trim() + "; class weights must be finite and >= 0");
            }
            positive |= w[c] > 0;
        }
        if (!positive) throw new IllegalArgumentException("every class weight in '" + spec + "' is 0: nothing would be learned");
        return new RowWeights(w, false, null);
    }

    /** Explicit class weights, one per label (checked as {@link #classes(String)}). */
    public static RowWeights classes(double... w) {
        StringBuilder s = new StringBuilder();
        for (double v : w) s.append(s.length() == 0 ? "" : ",").append(v);
        return classes(s.toString());
    }

    /**
     * These weights with example weights {@code w}, one per training example in the data set's
     * order (finite, {@code >= 0}); null: none.
     *
     * @throws IllegalArgumentException naming the first bad weight
     */
    public RowWeights withExamples(double[] w) {
        if (w == null) return new RowWeights(classWeights, balanced, null);
        for (int k = 0; k < w.length; k++) {
            if (!(w[k] >= 0) || !Double.isFinite(w[k])) throw new IllegalArgumentException("the weight of training example " + k + " is " + w[k]
                    + "; example weights must be finite and >= 0");
        }
        return new RowWeights(classWeights, balanced, w.clone());
    }

    /** Whether some row may have a weight other than 1. */
    public boolean any() {
        return classWeights != null || balanced || exampleWeights != null;
    }

    /** Whether class weights are given (balanced or a list). */
    public boolean hasClassWeights() {
        return classWeights != null || balanced;
    }

    /** Whether example weights are given. */
    public boolean hasExampleWeights() {
        return exampleWeights != null;
    }

    /**
     * Checks that a list of class weights has one weight per label.
     *
     * @throws IllegalArgumentException naming both counts
     */
    public void checkLabels(int numLabels) {
        if (classWeights != null && classWeights.length != numLabels) {
            throw new IllegalArgumentException(classWeights.length + " class weights for " + numLabels + " labels (give one weight per label)");
        }
    }

    /**
     * The class weights c_0..c_{L-1} for training labels {@code labels} (void skipped): the list, the
     * balanced weights, or all 1.
     *
     * @throws IllegalArgumentException when a list has not {@code numLabels} entries, or no labelled variable has a positive weight
     */
    public double[] classWeights(int[] labels, int numLabels) {
        double[] c = new double[numLabels];
        long[] count = new long[numLabels];
        long n = 0;
        for (int y : labels) {
            if (y == Example.VOID) continue;
            count[y]++;
            n++;
        }
        checkLabels(numLabels);
        if (classWeights != null) {
            c = classWeights.clone();
            boolean positive = false;
            for (int y = 0; y < numLabels; y++) positive |= count[y] > 0 && c[y] > 0;
            if (!positive) throw new IllegalArgumentException("every class present in the training labels has weight 0: nothing would be learned");
        } else if (balanced) {
            int present = 0;
            for (long k : count) if (k > 0) present++;
            for (int y = 0; y < numLabels; y++) c[y] = count[y] == 0 ? 1 : (double) n / ((double) present * count[y]);
        } else {
            Arrays.fill(c, 1);
        }
        return c;
    }

    /**
     * The weight of each training example ({@code numExamples} of them): the example weights, or all 1.
     *
     * @throws IllegalArgumentException when the example weights are not one per example
     */
    public double[] exampleWeights(int numExamples) {
        if (exampleWeights == null) {
            double[] w = new double[numExamples];
            Arrays.fill(w, 1);
            return w;
        }
        if (exampleWeights.length != numExamples) {
            throw new IllegalArgumentException(exampleWeights.length + " example weights for " + numExamples + " training examples");
        }
        return exampleWeights.clone();
    }

    /**
     * What a model records (model.json settings "weights"): the class weights as given and as used
     * ({@code classWeights}: balanced's values from the training labels), and the example weights.
     */
    public Map<String, Object> toMap(int[] labels, int numLabels) {
        Map<String, Object> m = new LinkedHashMap<>();
        if (hasClassWeights()) {
            m.put("classWeightsGiven", balanced ? BALANCED : toList(classWeights));
            m.put("classWeights", toList(classWeights(labels, numLabels)));
        }
        if (exampleWeights != null) m.put("exampleWeights", toList(exampleWeights));
        return m;
    }

    /**
     * The weights as given, what a checkpoint records to continue with the same weights
     * ({@link #ofGiven}): "classWeights" (balanced or the list) and "exampleWeights" (the list), where given.
     */
    public Map<String, Object> given() {
        Map<String, Object> m = new LinkedHashMap<>();
        if (hasClassWeights()) m.put("classWeights", balanced ? BALANCED : toList(classWeights));
        if (exampleWeights != null) m.put("exampleWeights", toList(exampleWeights));
        return m;
    }

    /**
     * The weights {@link #given()} wrote (a JSON object; missing or empty: {@link #NONE}).
     *
     * @throws IllegalArgumentException naming what is malformed
     */
    public static RowWeights ofGiven(com.fasterxml.jackson.databind.JsonNode m) {
        if (m == null || m.isMissingNode() || m.isNull()) return NONE;
        if (!m.isObject()) throw new IllegalArgumentException("\"weights\" must be an object");
        com.fasterxml.jackson.databind.JsonNode c = m.path("classWeights"), e = m.path("exampleWeights");
        RowWeights w;
        if (c.isMissingNode()) w = NONE;
        else if (c.isTextual() && c.asText().equals(BALANCED)) w = classes(BALANCED);
        else w = classes(numbers(c, "classWeights"));
        return e.isMissingNode() ? w : w.withExamples(numbers(e, "exampleWeights"));
    }

    private static double[] numbers(com.fasterxml.jackson.databind.JsonNode a, String what) {
        if (!a.isArray()) throw new IllegalArgumentException("\"" + what + "\" must be a list of numbers");
        double[] out = new double[a.size()];
        for (int k = 0; k < out.length; k++) {
            if (!a.get(k).isNumber()) throw new IllegalArgumentException("\"" + what + "\" entry " + k + " is not a number");
            out[k] = a.get(k).asDouble();
        }
        return out;
    }

    /** The same weights: the same class weights (or both balanced, or none) and the same example weights. */
    @Override
    public boolean equals(Object o) {
        return o instanceof RowWeights w && balanced == w.balanced && Arrays.equals(classWeights, w.classWeights)
                && Arrays.equals(exampleWeights, w.exampleWeights);
    }

    @Override
    public int hashCode() {
        return 31 * (31 * Arrays.hashCode(classWeights) + Boolean.hashCode(balanced)) + Arrays.hashCode(exampleWeights);
    }

    private static java.util.List<Double> toList(double[] a) {
        return Arrays.stream(a).boxed().toList();
    }

    @Override
    public String toString() {
        if (!any()) return "no weights";
        String c = balanced ? BALANCED : classWeights != null ? Arrays.toString(classWeights) : "none";
        return String.format(Locale.ROOT, "class weights %s, example weights %s", c, exampleWeights == null ? "none" : exampleWeights.length + " given");
    }
}
