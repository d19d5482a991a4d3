package org.structlr.inference;

import java.util.Arrays;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.structlr.graph.FactorGraph;

/**
 * Exact inference by enumerating every joint labelling, for tiny graphs (tests, checks of the
 * engines). Scores are {@code F(y) = sum_i theta_i(y_i) + sum_a theta_a(y_i, y_j) + sum_r theta_r(y_r)}.
 *
 * <p>Potentials follow the {@link MessagePassing} conventions, as {@code double[][]} (or
 * {@link INDArray}, converted): unary {@code [V][L]} and pairwise {@code [E][L*L]} with edge (i, j)
 * flattened as {@code y_i * L + y_j}, {@code L = graph.maxLabels()}. Only the labels each variable
 * has are enumerated; region tables are flat, region r's from
 * {@link FactorGraph#regionTableOffset}(r) (their variables' own label counts, no padding). Only the labels each variable
 * has are enumerated ({@code 0 <= y_i < graph.numLabels(i)}); entries of other labels are ignored.
 * Minus infinity is a hard constraint (a labelling with a minus infinity term has probability 0);
 * NaN and plus infinity are refused. At most {@link #MAX_LABELINGS} joint labellings.
 */
public final class ExactInference {
    /** The largest number of joint labellings that is enumerated (2^22). */
    public static final long MAX_LABELINGS = 1L << 22;

    private ExactInference() {}

    /**
     * What enumeration found.
     *
     * @param map            the labelling of largest score (the first in lexicographic order, variable 0 most significant, on ties)
     * @param mapScore       its score F(map)
     * @param temperature    T of the Gibbs distribution p(y) proportional to exp(F(y) / T)
     * @param logPartition   log sum_y exp(F(y) / T) (natural log, no factor T)
     * @param unaryMarginals {@code [V][L]} p(y_i = y), 0 on labels the variable does not have
     * @param pairMarginals  {@code [E][L*L]} p(y_i, y_j) at {@code y_i * L + y_j}
     * @param regionMarginals p(y_r) in the regions' flat layout
     */
    public record Result(int[] map, double mapScore, double temperature, double logPartition,
                         double[][] unaryMarginals, double[][] pairMarginals, double[] regionMarginals) {}

    /** The number of joint labellings of {@code g} (saturates at {@code Long.MAX_VALUE}). */
    public static long numLabelings(FactorGraph g) {
        long n = 1;
        for (int i = 0; i < g.numVariables(); i++) {
            if (n > Long.MAX_VALUE / g.numLabels(i)) return Long.MAX_VALUE;
            n *= g.numLabels(i);
        }
        return n;
    }

    public static Result solve(FactorGraph g, INDArray unary, INDArray pairwise, double temperature) {
        return solve(g, unary.castTo(DataType.DOUBLE).toDoubleMatrix(),
                g.numEdges() == 0 ? new double[0][] : pairwise.castTo(DataType.DOUBLE).toDoubleMatrix(), temperature);
    }

    /** MAP, log-partition and marginals at temperature {@code temperature} (> 0), by enumeration, for a graph without regions. */
    public static Result solve(FactorGraph g, double[][] unary, double[][] pairwise, double temperature) {
        return solve(g, unary, pairwise, new double[g.totalRegionEntries()], temperature);
    }

    /** MAP, log-partition and marginals at temperature {@code temperature} (> 0), by enumeration; {@code regions} the flat tables. */
    public static Result solve(FactorGraph g, double[][] unary, double[][] pairwise, double[] regions, double temperature) {
        if (!(temperature > 0) || Double.isInfinite(temperature)) {
            throw new IllegalArgumentException("temperature must be positive and finite, got " + temperature);
        }
        check(g, unary, pairwise);
        if (regions.length != g.totalRegionEntries()) {
            throw new IllegalArgumentException("region potentials have " + regions.length + " entries for " + g.totalRegionEntries());
        }
        for (int k = 0; k < regions.length; k++) checkValue(regions[k], "region", 0, k);
        int n = g.numVariables(), E = g.numEdges(), L = g.maxLabels();
        long count = numLabelings(g);
        if (count > MAX_LABELINGS) {
            throw new IllegalArgumentException("exact inference would enumerate " + (count == Long.MAX_VALUE ? "more than 2^63" : count)
                    + " joint labellings; at most " + MAX_LABELINGS + " (2^22) are allowed");
        }
        // pass 1: the MAP labelling and its score
        int[] y = new int[n];
        int[] best = null;
        double bestScore = Double.NEGATIVE_INFINITY;
        do {
            double s = score(g, unary, pairwise, regions, y);
            if (s > bestScore) {
                bestScore = s;
                best = y.clone();
            }
        } while (next(g, y));
        if (best == null) {
            throw new IllegalArgumentException("every labelling has score -inf: the hard constraints cannot all be satisfied");
        }
        // pass 2: sum of exp((F(y) - F(map)) / T), accumulated into the marginals as well
        double[][] mu = new double[n][L];
        double[][] mp = new double[E][L * L];
        double[] mr = new double[regions.length];
        double z = 0;
        Arrays.fill(y, 0);
        do {
            double s = score(g, unary, pairwise, regions, y);
            if (s == Double.NEGATIVE_INFINITY) continue;
            double w = Math.exp((s - bestScore) / temperature);
            z += w;
            for (int i = 0; i < n; i++) mu[i][y[i]] += w;
            for (int e = 0; e < E; e++) mp[e][y[g.edgeFrom(e)] * L + y[g.edgeTo(e)]] += w;
            for (int r = 0; r < g.numRegions(); r++) mr[g.regionTableOffset(r) + g.regionEntry(r, y)] += w;
        } while (next(g, y));
        for (double[] row : mu) for (int k = 0; k < row.length; k++) row[k] /= z;
        for (double[] row : mp) for (int k = 0; k < row.length; k++) row[k] /= z;
        for (int k = 0; k < mr.length; k++) mr[k] /= z;
        double logZ = bestScore / temperature + Math.log(z);
        return new Result(best, bestScore, temperature, logZ, mu, mp, mr);
    }

    /** F(y) = sum_i theta_i(y_i) + sum_a theta_a(y_i, y_j); minus infinity for a forbidden labelling. */
    public static double score(FactorGraph g, double[][] unary, double[][] pairwise, int[] y) {
        return score(g, unary, pairwise, new double[g.totalRegionEntries()], y);
    }

    /** F(y) = sum_i theta_i(y_i) + sum_a theta_a(y_i, y_j) + sum_r theta_r(y_r); minus infinity for a forbidden labelling. */
    public static double score(FactorGraph g, double[][] unary, double[][] pairwise, double[] regions, int[] y) {
        int L = g.maxLabels();
        double s = 0;
        for (int i = 0; i < g.numVariables(); i++) s += unary[i][y[i]];
        for (int e = 0; e < g.numEdges(); e++) s += pairwise[e][y[g.edgeFrom(e)] * L + y[g.edgeTo(e)]];
        for (int r = 0; r < g.numRegions(); r++) s += regions[g.regionTableOffset(r) + g.regionEntry(r, y)];
        return s;
    }

    /** Advances {@code y} to the next labelling in lexicographic order (last variable fastest); false after the last. */
    private static boolean next(FactorGraph g, int[] y) {
        for (int i = y.length - 1; i >= 0; i--) {
            if (++y[i] < g.numLabels(i)) return true;
            y[i] = 0;
        }
        return false;
    }

    private static void check(FactorGraph g, double[][] unary, double[][] pairwise) {
        int n = g.numVariables(), E = g.numEdges(), L = g.maxLabels();
        if (unary.length != n) throw new IllegalArgumentException("unary potentials have " + unary.length + " rows for " + n + " variables");
        if (pairwise.length != E) throw new IllegalArgumentException("pairwise potentials have " + pairwise.length + " rows for " + E + " edges");
        for (int i = 0; i < n; i++) {
            if (unary[i].length != L) throw new IllegalArgumentException("unary row " + i + " has " + unary[i].length + " entries, expected " + L);
            for (int y = 0; y < g.numLabels(i); y++) checkValue(unary[i][y], "unary", i, y);
        }
        for (int e = 0; e < E; e++) {
            if (pairwise[e].length != L * L) throw new IllegalArgumentException("pairwise row " + e + " has " + pairwise[e].length + " entries, expected " + L * L);
            for (int yi = 0; yi < g.numLabels(g.edgeFrom(e)); yi++) {
                for (int yj = 0; yj < g.numLabels(g.edgeTo(e)); yj++) checkValue(pairwise[e][yi * L + yj], "pairwise", e, yi * L + yj);
            }
        }
    }

    private static void checkValue(double x, String what, int row, int col) {
        if (Double.isNaN(x) || x == Double.POSITIVE_INFINITY) {
            throw new IllegalArgumentException(what + " potential [" + row + ", " + col + "] is " + x + "; only finite values and -inf are allowed");
        }
    }
}
