package org.structlr.data;

import java.io.IOException;
import java.io.Reader;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.structlr.graph.FactorGraph;

/**
 * Reads a Markov network or a Bayesian network in the UAI inference-competition format:
 *
 * <pre>
 * MARKOV | BAYES
 * V                      number of variables
 * c_0 c_1 .. c_{V-1}     cardinality of each variable
 * F                      number of factors
 * k v_1 .. v_k           scope of each factor (F lines)
 * n t_0 .. t_{n-1}       each factor's table, in the order of the scopes, n = product of the
 *                        scope's cardinalities, row-major with the LAST scope variable fastest
 * </pre>
 *
 * Tokens are separated by any whitespace; line breaks carry no meaning (they are only used in
 * error messages). Tables hold non-negative potentials; the log-potentials are
 * {@code theta = log(table)}, a zero entry becoming minus infinity (a hard constraint). A BAYES
 * network's factors are its conditional probability tables (the last scope variable the child):
 * they are read as factors exactly like a MARKOV network's, so the energy of a labelling is its
 * log-probability (no normalisation is checked; the CPTs' products are the joint).
 *
 * <p>The result is a {@link FactorGraph} with a unary potential per variable, one edge per distinct
 * pair of variables that a two-variable factor touches (oriented from the smaller index to the
 * larger, whatever the scope order), and one region per distinct set of three or more variables that
 * a factor touches (its variables in increasing order, whatever the scope order; the table is
 * permuted to match). Factors over the same variables multiply (their logs add). Potentials are in
 * the engine layout of {@link org.structlr.inference.MessagePassing}: unary {@code [V, L]},
 * pairwise {@code [E, L*L]} flattened as {@code y_i * L + y_j} with {@code L} the largest
 * cardinality, and the regions' tables one after another ({@link FactorGraph#regionTableOffset}).
 * Labels a variable does not have (padding up to {@code L}) hold minus infinity.
 *
 * <p>A variable may have a single label (legal in the format): the engines need two, so the graph
 * gives it a second, impossible label; {@link Model#cardinality} keeps the file's count.
 *
 * <p>A factor with an empty scope is a constant; it changes neither marginals nor the MAP and is
 * checked, then dropped. Sizes are checked against {@link InputLimits#UAI_ENTRIES} before anything of
 * that size is allocated: the number of variables, each cardinality, each factor's table, the model
 * in the engines' layout and the file's tables together (the number of factors with them). Every problem is a {@link BadInputException} that names the file and, where it helps,
 * the line and factor.
 */
public final class UaiReader {
    private UaiReader() {}

    /** The network type the file declares. */
    public enum Network { MARKOV, BAYES }

    /** A parsed network; the arrays are the reader's own copies. */
    public static final class Model {
        private final Network network;
        private final FactorGraph graph;
        private final int[] cardinality;
        private final int maxLabels;
        private final double[] unary;
        private final double[] pairwise;
        private final double[] regions;

        private Model(Network network, FactorGraph graph, int[] cardinality, double[] unary, double[] pairwise, double[] regions) {
            this.network = network;
            this.graph = graph;
            this.cardinality = cardinality;
            this.maxLabels = graph.maxLabels();
            this.unary = unary;
            this.pairwise = pairwise;
            this.regions = regions;
        }

        /**
         * A model from potentials in the engine layout (copied): {@code unary [V*L]}, {@code pairwise
         * [E*L*L]}, {@code regions [graph.totalRegionEntries()]}; each variable's cardinality is its
         * label count in the graph. For writing models made in code ({@link UaiWriter}).
         */
        public static Model of(FactorGraph graph, double[] unary, double[] pairwise, double[] regions) {
            int L = graph.maxLabels();
            if (unary.length != graph.numVariables() * L || pairwise.length != graph.numEdges() * L * L
                    || regions.length != graph.totalRegionEntries()) {
                throw new IllegalArgumentException("potentials of " + unary.length + ", " + pairwise.length + " and " + regions.length
                        + " values for " + graph.numVariables() + " variables, " + graph.numEdges() + " edges, " + L
                        + " labels and " + graph.totalRegionEntries() + " region entries");
            }
            return new Model(Network.MARKOV, graph, graph.numLabels(), unary.clone(), pairwise.clone(), regions.clone());
        }

        /** MARKOV or BAYES, as the file said (a BAYES network's CPTs are its factors). */
        public Network network() { return network; }

        /**
         * The graph the engines run on. A variable with a single label in the file has two labels
         * here, the second impossible (minus infinity), because the engines need at least two.
         */
        public FactorGraph graph() { return graph; }

        /** The number of labels variable {@code i} has in the file (1 or more). */
        public int cardinality(int i) { return cardinality[i]; }

        /** Every variable's label count in the file (a copy). */
        public int[] cardinalities() { return cardinality.clone(); }

        public int numVariables() { return cardinality.length; }

        /**
         * The same model with variable {@code i} clamped to {@code observed[i]} wherever that is not
         * -1: its other labels get minus infinity (evidence). Fails, naming {@code source}, when the
         * evidence leaves a variable or a factor without a possible labelling.
         */
        public Model withEvidence(int[] observed, Path source) {
            if (observed.length != cardinality.length) {
                throw new IllegalArgumentException(observed.length + " observations for " + cardinality.length + " variables");
            }
            double[] u = unary.clone();
            for (int i = 0; i < observed.length; i++) {
                if (observed[i] < 0) continue;
                if (observed[i] >= cardinality[i]) throw new IllegalArgumentException("variable " + i + " has no label " + observed[i]);
                for (int y = 0; y < maxLabels; y++) if (y != observed[i]) u[i * maxLabels + y] = Double.NEGATIVE_INFINITY;
            }
            checkFeasible(source, graph, cardinality, u, pairwise, regions, "the evidence leaves ");
            return new Model(network, graph, cardinality, u, pairwise, regions);
        }

        /**
         * theta_i(y) + sum_e theta_e(y_i, y_j) + sum_r theta_r(y_r): the log-probability of {@code y}
         * up to log Z (minus infinity when infeasible).
         */
        public double logPotential(int[] y) {
            double s = 0;
            for (int i = 0; i < y.length; i++) s += unary(i, y[i]);
            for (int e = 0; e < graph.numEdges(); e++) s += pairwise(e, y[graph.edgeFrom(e)], y[graph.edgeTo(e)]);
            for (int r = 0; r < graph.numRegions(); r++) s += region(r, graph.regionEntry(r, y));
            return s;
        }

        /** L, the largest cardinality: the padded label count of the potentials. */
        public int maxLabels() { return maxLabels; }

        /** theta_i(y) (minus infinity for a zero potential or a label variable i does not have). */
        public double unary(int variable, int label) {
            return unary[variable * maxLabels + label];
        }

        /** theta_e(y_i, y_j) of edge e = (i, j) = (edgeFrom(e), edgeTo(e)), y_i of the first end. */
        public double pairwise(int edge, int labelFrom, int labelTo) {
            return pairwise[edge * maxLabels * maxLabels + labelFrom * maxLabels + labelTo];
        }

        /** theta_r at entry {@code entry} of region r's table ({@link FactorGraph#regionEntry}). */
        public double region(int r, int entry) {
            return regions[graph.regionTableOffset(r) + entry];
        }

        /** Unary potentials {@code [V, L]} in the given data type (a new array). */
        public INDArray unary(DataType dtype) {
            return Nd4j.create(unary, new long[] {graph.numVariables(), maxLabels}, DataType.DOUBLE).castTo(dtype);
        }

        /** Pairwise potentials {@code [E, L*L]} in the given data type (a new array). */
        public INDArray pairwise(DataType dtype) {
            if (graph.numEdges() == 0) return Nd4j.create(dtype, 0, (long) maxLabels * maxLabels);
            return Nd4j.create(pairwise, new long[] {graph.numEdges(), (long) maxLabels * maxLabels}, DataType.DOUBLE).castTo(dtype);
        }

        /** The regions' tables {@code [totalRegionEntries]} in the given data type (a new array). */
        public INDArray regions(DataType dtype) {
            if (regions.length == 0) return Nd4j.create(dtype, 0);
            return Nd4j.create(regions, new long[] {regions.length}, DataType.DOUBLE).castTo(dtype);
        }

        /** Copies of the flat potentials: unary {@code [V*L]}, pairwise {@code [E*L*L]}, regions. */
        public double[] unaryArray() { return unary.clone(); }
        public double[] pairwiseArray() { return pairwise.clone(); }
        public double[] regionArray() { return regions.clone(); }
    }

    /** Reads and validates {@code file}; every problem is a {@link BadInputException} naming it. */
    public static Model read(Path file) {
        return TextFiles.read(file, "a UAI file", UaiReader::parse);
    }

    /** Parses UAI text from {@code in}; {@code file} only names the source in error messages. */
    public static Model parse(Path file, Reader in) throws IOException {
        UaiTokens t = new UaiTokens(file, in);
        long maxE = InputLimits.UAI_ENTRIES.value();
        String hint = ": more than the limit of " + maxE + " entries (raise it with -D" + InputLimits.UAI_ENTRIES.property() + "=N)";
        String type = t.next(null);
        if (type == null) throw new BadInputException(file, "file is empty");
        Network network;
        if (type.equalsIgnoreCase("MARKOV")) network = Network.MARKOV;
        else if (type.equalsIgnoreCase("BAYES")) network = Network.BAYES;
        else throw t.error("expected the network type MARKOV or BAYES, got '" + UaiTokens.abbreviate(type) + "'");

        int n = t.nextInt("the number of variables", 0, Integer.MAX_VALUE);
        if (n == 0) throw t.error("the network has no variables");
        if (2L * n > maxE) throw t.error("the network declares " + n + " variables, each needing at least 2 entries" + hint);
        // Grown as the file gives them, so a header that only claims a size allocates nothing.
        int[] card = new int[Math.min(n, 1 << 16)];
        int maxL = 2;
        for (int i = 0; i < n; i++) {
            if (i == card.length) card = Arrays.copyOf(card, (int) Math.min(n, 2L * card.length));
            card[i] = t.nextInt("the cardinality of variable " + i, 1, Integer.MAX_VALUE);
            maxL = Math.max(maxL, card[i]);
            if ((long) n * maxL > maxE) {
                throw t.error("variable " + i + " has " + card[i] + " labels: " + n + " variables padded to " + maxL
                        + " labels need " + (long) n * maxL + " entries" + hint);
            }
        }
        // The engines need two labels per variable: a single-label variable gets an impossible second one.
        int[] graphCard = new int[n];
        for (int i = 0; i < n; i++) graphCard[i] = Math.max(2, card[i]);

        int f = t.nextInt("the number of factors", 0, Integer.MAX_VALUE);
        if (f > maxE) throw t.error("the network declares " + f + " factors, each with a table of at least 1 entry" + hint);
        List<int[]> scopes = new ArrayList<>();
        long fileEntries = 0;
        int[] seen = new int[n];
        Arrays.fill(seen, -1);
        for (int a = 0; a < f; a++) {
            int k = t.nextInt("the scope size of factor " + a, 0, Integer.MAX_VALUE);
            if (k > n) throw t.error("factor " + a + " has a scope of " + k + " variables but the network has only " + n);
            int[] sc = new int[k];
            long entries = 1;
            for (int s = 0; s < k; s++) {
                int v = t.nextIndex("variable " + (s + 1) + " of the scope of factor " + a);
                if (v < 0 || v >= n) throw t.error("factor " + a + " names variable " + v + ", outside 0.." + (n - 1));
                if (seen[v] == a) throw t.error("factor " + a + " names variable " + v + " twice");
                seen[v] = a;
                sc[s] = v;
                entries *= card[v];
                if (k >= 3 && entries > FactorGraph.MAX_REGION_ENTRIES && FactorGraph.MAX_REGION_ENTRIES <= maxE) {
                    throw t.error("factor " + a + " over " + k + " variables has a table of more than " + FactorGraph.MAX_REGION_ENTRIES
                            + " entries, the largest table a factor over 3 or more variables may have");
                }
                if (entries > maxE) throw t.error("factor " + a + " over " + k + " variables has a table of more than " + maxE + " entries" + hint.substring(hint.indexOf(" (")));
            }
            fileEntries += entries;
            if (fileEntries > maxE) throw t.error("the tables of factors 0.." + a + " have " + fileEntries + " entries" + hint);
            scopes.add(sc);
        }

        // Edges: one per distinct pair, oriented from the smaller variable index to the larger.
        // Regions: one per distinct set of 3+ variables, in increasing order.
        Map<Long, Integer> edgeOf = new HashMap<>();
        Map<List<Integer>, Integer> regionOf = new HashMap<>();
        List<int[]> regionScopes = new ArrayList<>();
        int[] factorIndex = new int[f];
        int ne = 0;
        long regionEntries = 0;
        for (int a = 0; a < f; a++) {
            int[] sc = scopes.get(a);
            if (sc.length == 2) {
                int i = Math.min(sc[0], sc[1]), j = Math.max(sc[0], sc[1]);
                Integer e = edgeOf.putIfAbsent((long) i * n + j, ne);
                factorIndex[a] = e == null ? ne++ : e;
            } else if (sc.length >= 3) {
                int[] sorted = sc.clone();
                Arrays.sort(sorted);
                List<Integer> key = new ArrayList<>(sorted.length);
                for (int v : sorted) key.add(v);
                Integer r = regionOf.putIfAbsent(key, regionScopes.size());
                if (r == null) {
                    factorIndex[a] = regionScopes.size();
                    regionScopes.add(sorted);
                    long entries = 1;
                    for (int v : sorted) entries *= graphCard[v];
                    regionEntries += entries;
                } else {
                    factorIndex[a] = r;
                }
            }
        }
        long engineEntries = (long) n * maxL + (long) ne * maxL * maxL + regionEntries;
        if (engineEntries > maxE || engineEntries > FactorGraph.MAX_TOTAL_REGION_ENTRIES) {
            throw new BadInputException(file, "the model needs " + engineEntries + " entries in the engines' layout (" + n + " variables and "
                    + ne + " pairs padded to " + maxL + " labels, " + regionScopes.size() + " regions of " + regionEntries
                    + " entries)" + hint);
        }
        int[] from = new int[ne], to = new int[ne];
        for (int a = 0; a < f; a++) {
            int[] sc = scopes.get(a);
            if (sc.length != 2) continue;
            from[factorIndex[a]] = Math.min(sc[0], sc[1]);
            to[factorIndex[a]] = Math.max(sc[0], sc[1]);
        }
        FactorGraph g;
        try {
            g = FactorGraph.builder(graphCard).edges(from, to, null).regions(regionScopes.toArray(new int[0][]), null).build();
        } catch (IllegalArgumentException e) {
            throw t.error(e.getMessage());
        }

        double[] unary = new double[n * maxL];
        double[] pair = new double[ne * maxL * maxL];
        double[] regions = new double[g.totalRegionEntries()];
        for (int i = 0; i < n; i++) Arrays.fill(unary, i * maxL + card[i], (i + 1) * maxL, Double.NEGATIVE_INFINITY);
        // Padding uses the file's cardinalities, so a single-label variable's padded label is impossible in every factor.
        for (int e = 0; e < ne; e++) {
            int li = card[from[e]], lj = card[to[e]];
            for (int yi = 0; yi < maxL; yi++) {
                for (int yj = 0; yj < maxL; yj++) {
                    if (yi >= li || yj >= lj) pair[(e * maxL + yi) * maxL + yj] = Double.NEGATIVE_INFINITY;
                }
            }
        }
        for (int r = 0; r < g.numRegions(); r++) {
            int off = g.regionTableOffset(r);
            for (int x = 0; x < g.regionEntries(r); x++) {
                for (int p = 0; p < g.regionSize(r); p++) {
                    if (g.regionLabel(r, p, x) >= card[g.regionVariable(r, p)]) {
                        regions[off + x] = Double.NEGATIVE_INFINITY;
                        break;
                    }
                }
            }
        }

        for (int a = 0; a < f; a++) {
            int[] sc = scopes.get(a);
            long expected = 1;
            for (int v : sc) expected *= card[v];
            int count = t.nextInt("the entry count of the table of factor " + a, 0, Integer.MAX_VALUE);
            if (count != expected) {
                StringBuilder dims = new StringBuilder();
                for (int v : sc) dims.append(dims.length() == 0 ? "" : "x").append(card[v]);
                throw t.error("the table of factor " + a + " has " + count + " entries but its scope ("
                        + (sc.length == 0 ? "empty" : dims) + ") needs " + expected);
            }
            // For a region: the region-table stride of each scope position, and the labels as an odometer.
            int[] stride = null, y = null;
            int r = -1, at = 0;
            if (sc.length >= 3) {
                r = factorIndex[a];
                stride = new int[sc.length];
                for (int s = 0; s < sc.length; s++) {
                    int p = Arrays.binarySearch(regionScopes.get(r), sc[s]);
                    stride[s] = g.regionStride(r, p);
                }
                y = new int[sc.length];
                at = g.regionTableOffset(r);
            }
            for (int k = 0; k < count; k++) {
                double p = t.nextDouble("entry " + k + " of the table of factor " + a);
                if (Double.isNaN(p)) throw t.error("entry " + k + " of the table of factor " + a + " is NaN");
                if (Double.isInfinite(p)) throw t.error("entry " + k + " of the table of factor " + a + " is infinite");
                if (p < 0) throw t.error("entry " + k + " of the table of factor " + a + " is negative (" + p + "); potentials must be at least 0");
                double logp = Math.log(p); // log(0) = -inf: a hard constraint
                if (sc.length == 1) {
                    unary[sc[0] * maxL + k] += logp;
                } else if (sc.length == 2) {
                    // Row-major, last scope variable fastest: k = y_first * card(second) + y_second.
                    int ya = k / card[sc[1]], yb = k % card[sc[1]];
                    int e = factorIndex[a];
                    int yi = sc[0] == from[e] ? ya : yb, yj = sc[0] == from[e] ? yb : ya;
                    pair[(e * maxL + yi) * maxL + yj] += logp;
                } else if (sc.length >= 3) {
                    int x = 0;
                    for (int s = 0; s < sc.length; s++) x += y[s] * stride[s];
                    regions[at + x] += logp;
                    for (int s = sc.length - 1; s >= 0 && ++y[s] == card[sc[s]]; s--) y[s] = 0; // next entry, last fastest
                } else if (p == 0) {
                    throw t.error("factor " + a + " (a constant) is zero: no configuration has positive probability");
                }
            }
        }
        String extra = t.next(null);
        if (extra != null) {
            throw t.error("unexpected '" + UaiTokens.abbreviate(extra) + "' after the table of the last factor (" + f
                    + " factors were declared; is the factor count wrong?)");
        }
        card = Arrays.copyOf(card, n);
        checkFeasible(file, g, card, unary, pair, regions, "");
        return new Model(network, g, card, unary, pair, regions);
    }

    /** A variable, edge or region with no possible labelling at all leaves nothing to infer. */
    private static void checkFeasible(Path file, FactorGraph g, int[] card, double[] unary, double[] pair, double[] regions, String cause) {
        int maxL = g.maxLabels();
        for (int i = 0; i < card.length; i++) {
            if (!anyFinite(unary, i * maxL, card[i])) {
                throw new BadInputException(file, cause.isEmpty()
                        ? "every label of variable " + i + " has potential 0: no configuration has positive probability"
                        : cause + "variable " + i + " no label of positive potential: no configuration has positive probability");
            }
        }
        for (int e = 0; e < g.numEdges(); e++) {
            int from = g.edgeFrom(e), to = g.edgeTo(e);
            boolean ok = false;
            for (int yi = 0; yi < card[from] && !ok; yi++) {
                if (unary[from * maxL + yi] == Double.NEGATIVE_INFINITY) continue;
                for (int yj = 0; yj < card[to] && !ok; yj++) {
                    ok = unary[to * maxL + yj] > Double.NEGATIVE_INFINITY && pair[(e * maxL + yi) * maxL + yj] > Double.NEGATIVE_INFINITY;
                }
            }
            if (!ok) {
                throw new BadInputException(file, (cause.isEmpty() ? "" : cause + "no possible pair of labels: ")
                        + "every entry of the factors over variables " + from + " and " + to
                        + " is 0 where both variables' own potentials are positive: no configuration has positive probability");
            }
        }
        for (int r = 0; r < g.numRegions(); r++) {
            int off = g.regionTableOffset(r);
            boolean ok = false;
            for (int x = 0; x < g.regionEntries(r) && !ok; x++) {
                if (regions[off + x] == Double.NEGATIVE_INFINITY) continue;
                ok = true;
                for (int p = 0; p < g.regionSize(r) && ok; p++) {
                    ok = unary[g.regionVariable(r, p) * maxL + g.regionLabel(r, p, x)] > Double.NEGATIVE_INFINITY;
                }
            }
            if (!ok) {
                throw new BadInputException(file, (cause.isEmpty() ? "" : cause + "no possible labelling: ")
                        + "every entry of the factors over variables " + Arrays.toString(g.regionScope(r))
                        + " is 0 where the variables' own potentials are positive: no configuration has positive probability");
            }
        }
    }

    private static boolean anyFinite(double[] a, int start, int len) {
        for (int k = start; k < start + len; k++) if (a[k] > Double.NEGATIVE_INFINITY) return true;
        return false;
    }
}
