package org.structlr.data;

import java.io.IOException;
import java.io.Reader;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.structlr.graph.FactorGraph;

/**
 * Reads a pairwise Markov network in the UAI inference-competition format:
 *
 * <pre>
 * MARKOV
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
 * {@code theta = log(table)}, a zero entry becoming minus infinity (a hard constraint).
 *
 * <p>The result is a {@link FactorGraph} with one edge per distinct pair of variables that a
 * pairwise factor touches (oriented from the smaller index to the larger, whatever the scope
 * order), and potentials in the engine layout of {@link org.structlr.inference.MessagePassing}:
 * unary {@code [V, L]} and pairwise {@code [E, L*L]} flattened as {@code y_i * L + y_j} with
 * {@code L} the largest cardinality. Factors over the same scope multiply (their logs add).
 * Labels a variable does not have (padding up to {@code L}) hold minus infinity.
 *
 * <p>A variable may have a single label (legal in the format): the engines need two, so the graph
 * gives it a second, impossible label; {@link Model#cardinality} keeps the file's count.
 *
 * <p>Only factors over one or two variables are supported. A factor with an empty scope is a
 * constant; it changes neither marginals nor the MAP and is checked, then dropped. Every problem
 * is a {@link BadInputException} that names the file and, where it helps, the line and factor.
 */
public final class UaiReader {
    private UaiReader() {}

    /** A parsed pairwise model; the arrays are the reader's own copies. */
    public static final class Model {
        private final FactorGraph graph;
        private final int[] cardinality;
        private final int maxLabels;
        private final double[] unary;
        private final double[] pairwise;

        Model(FactorGraph graph, int[] cardinality, int maxLabels, double[] unary, double[] pairwise) {
            this.graph = graph;
            this.cardinality = cardinality;
            this.maxLabels = maxLabels;
            this.unary = unary;
            this.pairwise = pairwise;
        }

        /**
         * The graph the engines run on. A variable with a single label in the file has two labels
         * here, the second impossible (minus infinity), because the engines need at least two.
         */
        public FactorGraph graph() { return graph; }

        /** The number of labels variable {@code i} has in the file (1 or more). */
        public int cardinality(int i) { return cardinality[i]; }

        public int numVariables() { return cardinality.length; }

        /**
         * The same model with variable {@code i} clamped to {@code observed[i]} wherever that is not
         * -1: its other labels get minus infinity (evidence). Fails, naming {@code source}, when the
         * evidence leaves a variable or an edge without a possible label.
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
            checkFeasible(source, graph, cardinality, maxLabels, u, pairwise, "the evidence leaves ");
            return new Model(graph, cardinality, maxLabels, u, pairwise);
        }

        /** theta_i(y) + sum_e theta_e(y_i, y_j): the log-probability of {@code y} up to log Z (minus infinity when infeasible). */
        public double logPotential(int[] y) {
            double s = 0;
            for (int i = 0; i < y.length; i++) s += unary(i, y[i]);
            for (int e = 0; e < graph.numEdges(); e++) s += pairwise(e, y[graph.edgeFrom(e)], y[graph.edgeTo(e)]);
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

        /** Unary potentials {@code [V, L]} in the given data type (a new array). */
        public INDArray unary(DataType dtype) {
            return Nd4j.create(unary, new long[] {graph.numVariables(), maxLabels}, DataType.DOUBLE).castTo(dtype);
        }

        /** Pairwise potentials {@code [E, L*L]} in the given data type (a new array). */
        public INDArray pairwise(DataType dtype) {
            return Nd4j.create(pairwise, new long[] {graph.numEdges(), (long) maxLabels * maxLabels}, DataType.DOUBLE).castTo(dtype);
        }
    }

    /** Reads and validates {@code file}; every problem is a {@link BadInputException} naming it. */
    public static Model read(Path file) {
        return TextFiles.read(file, "a UAI file", UaiReader::parse);
    }

    /** Parses UAI text from {@code in}; {@code file} only names the source in error messages. */
    public static Model parse(Path file, Reader in) throws IOException {
        Tokens t = new Tokens(file, in);
        String type = t.next(null);
        if (type == null) throw new BadInputException(file, "file is empty");
        if (!type.equalsIgnoreCase("MARKOV")) {
            if (type.equalsIgnoreCase("BAYES")) {
                throw t.error("network type BAYES is not supported; only MARKOV networks can be read");
            }
            throw t.error("expected the network type MARKOV, got '" + abbreviate(type) + "'");
        }
        int n = t.nextInt("the number of variables", 0, Integer.MAX_VALUE);
        if (n == 0) throw t.error("the network has no variables");
        int[] card = new int[n];
        int maxL = 0;
        for (int i = 0; i < n; i++) {
            card[i] = t.nextInt("the cardinality of variable " + i, 1, Integer.MAX_VALUE);
            maxL = Math.max(maxL, card[i]);
        }
        // The engines need two labels per variable: a single-label variable gets an impossible second one.
        int[] graphCard = new int[n];
        for (int i = 0; i < n; i++) graphCard[i] = Math.max(2, card[i]);
        maxL = Math.max(2, maxL);
        if (n > 0 && (long) n * maxL > Integer.MAX_VALUE / 2) {
            throw t.error(n + " variables of up to " + maxL + " labels are too many");
        }
        int f = t.nextInt("the number of factors", 0, Integer.MAX_VALUE);
        int[][] scope = new int[f][];
        for (int a = 0; a < f; a++) {
            int k = t.nextInt("the scope size of factor " + a, 0, Integer.MAX_VALUE);
            if (k > 2) {
                throw t.error("higher-order factor " + a + " over " + k + " variables is not supported (only factors over 1 or 2 variables)");
            }
            scope[a] = new int[k];
            for (int s = 0; s < k; s++) {
                int v = t.nextIndex("variable " + (s + 1) + " of the scope of factor " + a);
                if (v < 0 || v >= n) {
                    throw t.error("factor " + a + " names variable " + v + ", outside 0.." + (n - 1));
                }
                scope[a][s] = v;
            }
            if (k == 2 && scope[a][0] == scope[a][1]) {
                throw t.error("factor " + a + " names variable " + scope[a][0] + " twice");
            }
        }

        // Edges: one per distinct pair, oriented from the smaller variable index to the larger.
        Map<Long, Integer> edgeOf = new HashMap<>();
        int[] factorEdge = new int[f];
        int ne = 0;
        for (int a = 0; a < f; a++) {
            if (scope[a].length != 2) continue;
            int i = Math.min(scope[a][0], scope[a][1]), j = Math.max(scope[a][0], scope[a][1]);
            Integer e = edgeOf.putIfAbsent((long) i * n + j, ne);
            factorEdge[a] = e == null ? ne++ : e;
        }
        if ((long) ne * maxL * maxL > Integer.MAX_VALUE - 8) {
            throw t.error(ne + " edges of up to " + maxL + "x" + maxL + " labels are too many");
        }
        int[] from = new int[ne], to = new int[ne];
        for (int a = 0; a < f; a++) {
            if (scope[a].length != 2) continue;
            from[factorEdge[a]] = Math.min(scope[a][0], scope[a][1]);
            to[factorEdge[a]] = Math.max(scope[a][0], scope[a][1]);
        }

        double[] unary = new double[n * maxL];
        double[] pair = new double[ne * maxL * maxL];
        for (int i = 0; i < n; i++) {
            Arrays.fill(unary, i * maxL + card[i], (i + 1) * maxL, Double.NEGATIVE_INFINITY);
        }
        // (pairwise padding below uses card, so a single-label variable's padded label is impossible on its edges too)
        for (int e = 0; e < ne; e++) {
            int li = card[from[e]], lj = card[to[e]];
            for (int yi = 0; yi < maxL; yi++) {
                for (int yj = 0; yj < maxL; yj++) {
                    if (yi >= li || yj >= lj) pair[(e * maxL + yi) * maxL + yj] = Double.NEGATIVE_INFINITY;
                }
            }
        }

        for (int a = 0; a < f; a++) {
            int[] sc = scope[a];
            long expected = 1;
            for (int v : sc) expected *= card[v];
            int count = t.nextInt("the entry count of the table of factor " + a, 0, Integer.MAX_VALUE);
            if (count != expected) {
                StringBuilder dims = new StringBuilder();
                for (int v : sc) dims.append(dims.length() == 0 ? "" : "x").append(card[v]);
                throw t.error("the table of factor " + a + " has " + count + " entries but its scope ("
                        + (sc.length == 0 ? "empty" : dims) + ") needs " + expected);
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
                    int e = factorEdge[a];
                    int yi = sc[0] == from[e] ? ya : yb, yj = sc[0] == from[e] ? yb : ya;
                    pair[(e * maxL + yi) * maxL + yj] += logp;
                } else if (p == 0) {
                    throw t.error("factor " + a + " (a constant) is zero: no configuration has positive probability");
                }
            }
        }
        String extra = t.next(null);
        if (extra != null) {
            throw t.error("unexpected '" + abbreviate(extra) + "' after the table of the last factor (" + f
                    + " factors were declared; is the factor count wrong?)");
        }

        FactorGraph g = FactorGraph.builder(graphCard).edges(from, to, null).build();
        checkFeasible(file, g, card, maxL, unary, pair, "");
        return new Model(g, card, maxL, unary, pair);
    }

    /** A variable or edge with no possible label at all leaves nothing to infer. */
    private static void checkFeasible(Path file, FactorGraph g, int[] card, int maxL, double[] unary, double[] pair, String cause) {
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
    }

    private static boolean anyFinite(double[] a, int start, int len) {
        for (int k = start; k < start + len; k++) if (a[k] > Double.NEGATIVE_INFINITY) return true;
        return false;
    }

    private static String abbreviate(String s) {
        return s.length() <= 40 ? s : s.substring(0, 37) + "...";
    }

    private static final java.util.regex.Pattern NUMBER =
            java.util.regex.Pattern.compile("[+-]?(?i:nan|inf|infinity|(\\d+\\.?\\d*|\\.\\d+)(e[+-]?\\d+)?)");

    /** Whitespace-separated tokens with the line each starts on. */
    private static final class Tokens {
        private final Path file;
        private final Reader in;
        private final StringBuilder buf = new StringBuilder();
        private int line = 1;
        private int tokenLine = 1;
        private int pending = -2; // one char of look-ahead: -2 none

        Tokens(Path file, Reader in) {
            this.file = file;
            this.in = in;
        }

        private int read() throws IOException {
            if (pending != -2) {
                int c = pending;
                pending = -2;
                return c;
            }
            return in.read();
        }

        /** The next token, or null at the end (an error naming {@code what} when what is not null). */
        String next(String what) throws IOException {
            int c = read();
            while (c != -1 && Character.isWhitespace(c)) {
                if (c == '\n') line++;
                c = read();
            }
            if (c == -1) {
                if (what == null) return null;
                throw new BadInputException(file, "file ends early (truncated?) at line " + line + ": expected " + what);
            }
            tokenLine = line;
            buf.setLength(0);
            while (c != -1 && !Character.isWhitespace(c)) {
                if (buf.length() < 1000) buf.append((char) c);
                c = read();
            }
            pending = c;
            return buf.toString();
        }

        int nextInt(String what, int min, int max) throws IOException {
            String s = next(what);
            long v;
            try {
                v = Long.parseLong(s);
            } catch (NumberFormatException e) {
                throw error("expected " + what + " (an integer), got '" + abbreviate(s) + "'");
            }
            if (v < min || v > max) {
                throw error(what + " is " + v + (v < min ? "; it must be at least " + min : "; it must be at most " + max));
            }
            return (int) v;
        }

        /** A variable index: any integer, range-checked by the caller. */
        int nextIndex(String what) throws IOException {
            String s = next(what);
            try {
                long v = Long.parseLong(s);
                return v < Integer.MIN_VALUE ? Integer.MIN_VALUE : v > Integer.MAX_VALUE ? Integer.MAX_VALUE : (int) v;
            } catch (NumberFormatException e) {
                throw error("expected " + what + " (an integer), got '" + abbreviate(s) + "'");
            }
        }

        double nextDouble(String what) throws IOException {
            String s = next(what);
            // Plain decimal numbers only (and NaN/Infinity, so that they are named as such).
            if (!NUMBER.matcher(s).matches()) {
                throw error("expected " + what + " (a number), got '" + abbreviate(s) + "'");
            }
            String lower = s.toLowerCase();
            if (lower.endsWith("nan")) return Double.NaN;
            if (lower.endsWith("inf") || lower.endsWith("infinity")) {
                return s.startsWith("-") ? Double.NEGATIVE_INFINITY : Double.POSITIVE_INFINITY;
            }
            return Double.parseDouble(s);
        }

        BadInputException error(String problem) {
            return new BadInputException(file, "line " + tokenLine + ": " + problem);
        }
    }
}
