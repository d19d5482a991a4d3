package org.structlr.data;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.StringWriter;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.structlr.graph.FactorGraph;

/**
 * Higher-order UAI models (factors over 3 and 4 variables, BAYES networks), writing them, and the
 * reader's limits. Every potential is checked against the file's own tables, evaluated here by
 * brute force from the factor lists the test wrote (scope order, last variable fastest).
 */
class UaiRegionsTest {
    @TempDir
    Path dir;

    /** A factor as written to the file: its scope in file order and its table (last scope variable fastest). */
    record Factor(int[] scope, double[] table) {
        double value(int[] y, int[] card) {
            int t = 0;
            for (int v : scope) t = t * card[v] + y[v];
            return table[t];
        }
    }

    static String uai(String type, int[] card, List<Factor> factors) {
        StringBuilder s = new StringBuilder(type).append('\n').append(card.length).append('\n');
        for (int c : card) s.append(c).append(' ');
        s.append('\n').append(factors.size()).append('\n');
        for (Factor f : factors) {
            s.append(f.scope.length);
            for (int v : f.scope) s.append(' ').append(v);
            s.append('\n');
        }
        for (Factor f : factors) {
            s.append('\n').append(f.table.length).append('\n');
            for (double x : f.table) s.append(' ').append(x);
            s.append('\n');
        }
        return s.toString();
    }

    /**
     * Random factors over {@code card}: scopes of 1 to 4 variables in random order (some sets repeated
     * in another order, so they multiply), tables with zeros (never on the all-zero labelling, so the
     * model stays feasible).
     */
    static List<Factor> randomFactors(int[] card, int count, Random rnd) {
        List<Factor> fs = new ArrayList<>();
        int n = card.length;
        for (int a = 0; a < count; a++) {
            int k = 1 + rnd.nextInt(4);
            int[] scope;
            if (a > 0 && rnd.nextInt(5) == 0 && fs.get(a - 1).scope.length >= 2) {
                scope = fs.get(a - 1).scope.clone(); // the same set, reversed
                for (int i = 0; i < scope.length / 2; i++) {
                    int x = scope[i];
                    scope[i] = scope[scope.length - 1 - i];
                    scope[scope.length - 1 - i] = x;
                }
            } else {
                List<Integer> all = new ArrayList<>();
                for (int v = 0; v < n; v++) all.add(v);
                java.util.Collections.shuffle(all, rnd);
                scope = all.subList(0, k).stream().mapToInt(Integer::intValue).toArray();
            }
            int size = 1;
            for (int v : scope) size *= card[v];
            double[] t = new double[size];
            for (int x = 0; x < size; x++) t[x] = x > 0 && rnd.nextDouble() < 0.25 ? 0 : 0.1 + rnd.nextDouble() * 3;
            fs.add(new Factor(scope, t));
        }
        return fs;
    }

    private Path write(String name, String text) throws IOException {
        Path p = dir.resolve(name);
        Files.writeString(p, text);
        return p;
    }

    /** Every labelling over the file's cardinalities, last variable fastest. */
    static List<int[]> labellings(int[] card) {
        List<int[]> out = new ArrayList<>();
        int[] y = new int[card.length];
        while (true) {
            out.add(y.clone());
            int i = y.length - 1;
            while (i >= 0 && ++y[i] == card[i]) y[i--] = 0;
            if (i < 0) return out;
        }
    }

    @Test
    void regionsOfThreeAndFourVariablesHoldTheProductOfTheirFactors() throws IOException {
        Random rnd = new Random(7);
        for (int trial = 0; trial < 20; trial++) {
            int[] card = {2, 3, 1, 2, 4, 2};
            List<Factor> fs = randomFactors(card, 9, rnd);
            UaiReader.Model m = UaiReader.read(write("r" + trial + ".uai", uai("MARKOV", card, fs)));
            FactorGraph g = m.graph();
            for (int r = 0; r < g.numRegions(); r++) {
                int[] sc = g.regionScope(r);
                assertTrue(sc.length >= 3, "pairs are edges");
                for (int p = 1; p < sc.length; p++) assertTrue(sc[p - 1] < sc[p], "region variables in increasing order");
            }
            int threes = 0;
            for (int[] y : labellings(card)) {
                double want = 0;
                for (Factor f : fs) want += Math.log(f.value(y, card));
                double got = m.logPotential(y);
                if (want == Double.NEGATIVE_INFINITY) assertEquals(want, got, "trial " + trial);
                else assertEquals(want, got, 1e-12, "trial " + trial + " labelling " + java.util.Arrays.toString(y));
            }
            for (Factor f : fs) if (f.scope.length >= 3) threes++;
            assertTrue(threes == 0 || g.numRegions() > 0);
            // the padded second label of the single-label variable 2 is impossible in every factor
            int[] y = new int[card.length];
            y[2] = 1;
            assertEquals(Double.NEGATIVE_INFINITY, m.logPotential(y));
        }
    }

    @Test
    void aFourVariableRegionIsPermutedIntoIncreasingOrder() throws IOException {
        // one factor over (3, 0, 2, 1) with cards (2, 3, 2, 2) for variables 0..3: entry t of the file's
        // table belongs to (y3, y0, y2, y1) = digits of t in the mixed radix (2, 2, 2, 3)
        int[] card = {2, 3, 2, 2};
        double[] t = new double[24];
        for (int x = 0; x < 24; x++) t[x] = x + 1;
        t[5] = 0;
        UaiReader.Model m = UaiReader.read(write("p.uai", uai("MARKOV", card, List.of(new Factor(new int[] {3, 0, 2, 1}, t)))));
        FactorGraph g = m.graph();
        assertEquals(1, g.numRegions());
        assertArrayEquals(new int[] {0, 1, 2, 3}, g.regionScope(0));
        for (int y3 = 0; y3 < 2; y3++) for (int y0 = 0; y0 < 2; y0++) for (int y2 = 0; y2 < 2; y2++) for (int y1 = 0; y1 < 3; y1++) {
            int file = ((y3 * 2 + y0) * 2 + y2) * 3 + y1;
            int region = ((y0 * 3 + y1) * 2 + y2) * 2 + y3;
            assertEquals(Math.log(t[file]), m.region(0, region), 1e-15);
        }
        assertEquals(Double.NEGATIVE_INFINITY, m.region(0, g.regionEntry(0, new int[] {0, 2, 1, 0})), "file entry 5 = (y3 0, y0 0, y2 1, y1 2) is zero");
    }

    @Test
    void bayesNetworksAreTheirCptFactors() throws IOException {
        // a -> c <- b, c -> d, with CPTs; the joint sums to 1 over all labellings
        int[] card = {2, 3, 2, 2};
        Random rnd = new Random(11);
        List<Factor> fs = new ArrayList<>();
        fs.add(new Factor(new int[] {0}, cpt(1, 2, rnd)));
        fs.add(new Factor(new int[] {1}, cpt(1, 3, rnd)));
        fs.add(new Factor(new int[] {0, 1, 2}, cpt(6, 2, rnd)));
        fs.add(new Factor(new int[] {2, 3}, cpt(2, 2, rnd)));
        UaiReader.Model m = UaiReader.read(write("b.uai", uai("BAYES", card, fs)));
        assertEquals(UaiReader.Network.BAYES, m.network());
        assertEquals(1, m.graph().numRegions());
        assertEquals(1, m.graph().numEdges());
        double z = 0;
        for (int[] y : labellings(card)) {
            double want = 1;
            for (Factor f : fs) want *= f.value(y, card);
            assertEquals(Math.log(want), m.logPotential(y), 1e-12);
            z += Math.exp(m.logPotential(y));
        }
        assertEquals(1.0, z, 1e-12, "the CPTs' product is a distribution");
    }

    /** {@code rows} conditional distributions over {@code labels} labels, one after another. */
    static double[] cpt(int rows, int labels, Random rnd) {
        double[] t = new double[rows * labels];
        for (int r = 0; r < rows; r++) {
            double s = 0;
            for (int y = 0; y < labels; y++) s += t[r * labels + y] = 0.05 + rnd.nextDouble();
            for (int y = 0; y < labels; y++) t[r * labels + y] /= s;
        }
        return t;
    }

    @Test
    void writtenModelsReadBackTheSame() throws IOException {
        Random rnd = new Random(13);
        for (int trial = 0; trial < 10; trial++) {
            int[] card = {2, 3, 1, 2, 4, 2};
            UaiReader.Model m = UaiReader.read(write("w" + trial + ".uai", uai("MARKOV", card, randomFactors(card, 8, rnd))));
            Path out = dir.resolve("out" + trial + ".uai");
            UaiWriter.write(m, out);
            UaiReader.Model back = UaiReader.read(out);
            assertSameModel(m, back);
        }
        // large potentials are written shifted: the same up to a constant per factor
        FactorGraph g = FactorGraph.builder(new int[] {2, 2, 2}).regions(new int[][] {{0, 1, 2}}, null).build();
        double[] reg = new double[8];
        for (int t = 0; t < 8; t++) reg[t] = 800 + t;
        reg[3] = Double.NEGATIVE_INFINITY;
        StringWriter w = new StringWriter();
        UaiWriter.write(UaiReader.Model.of(g, new double[6], new double[0], reg), w);
        UaiReader.Model back = UaiReader.parse(dir.resolve("x.uai"), new java.io.StringReader(w.toString()));
        for (int t = 0; t < 8; t++) {
            if (t == 3) assertEquals(Double.NEGATIVE_INFINITY, back.region(0, t));
            else assertEquals(reg[t] - 807, back.region(0, t), 1e-12);
        }
    }

    static void assertSameModel(UaiReader.Model a, UaiReader.Model b) {
        FactorGraph g = a.graph(), h = b.graph();
        assertArrayEquals(a.cardinalities(), b.cardinalities());
        assertArrayEquals(g.numLabels(), h.numLabels());
        assertEquals(g.numEdges(), h.numEdges());
        for (int e = 0; e < g.numEdges(); e++) {
            assertEquals(g.edgeFrom(e), h.edgeFrom(e));
            assertEquals(g.edgeTo(e), h.edgeTo(e));
        }
        assertEquals(g.numRegions(), h.numRegions());
        for (int r = 0; r < g.numRegions(); r++) assertArrayEquals(g.regionScope(r), h.regionScope(r));
        assertClose(a.unaryArray(), b.unaryArray());
        assertClose(a.pairwiseArray(), b.pairwiseArray());
        assertClose(a.regionArray(), b.regionArray());
    }

    static void assertClose(double[] a, double[] b) {
        assertEquals(a.length, b.length);
        for (int k = 0; k < a.length; k++) {
            if (a[k] == Double.NEGATIVE_INFINITY) assertEquals(a[k], b[k], "entry " + k);
            else assertEquals(a[k], b[k], 1e-12 * Math.max(1, Math.abs(a[k])), "entry " + k);
        }
    }

    @Test
    void evidenceThatEmptiesARegionIsRefused() throws IOException {
        // the region (0, 1, 2) allows only y0 = y1 = y2
        double[] t = new double[8];
        t[0] = 1;
        t[7] = 1;
        Path p = write("e.uai", uai("MARKOV", new int[] {2, 2, 2}, List.of(new Factor(new int[] {0, 1, 2}, t))));
        UaiReader.Model m = UaiReader.read(p);
        Path ev = dir.resolve("e.evid");
        m.withEvidence(new int[] {1, 1, -1}, ev); // consistent
        BadInputException e = assertThrows(BadInputException.class, () -> m.withEvidence(new int[] {0, 1, -1}, ev));
        assertTrue(e.getMessage().startsWith(ev + ": the evidence leaves no possible labelling: every entry of the factors over variables [0, 1, 2] is 0"), e.getMessage());
        // and a file whose region has no positive entry at all
        Path z = write("z.uai", uai("MARKOV", new int[] {2, 2, 2}, List.of(new Factor(new int[] {2, 1, 0}, new double[8]))));
        BadInputException f = assertThrows(BadInputException.class, () -> UaiReader.read(z));
        assertTrue(f.getMessage().contains("every entry of the factors over variables [0, 1, 2] is 0"), f.getMessage());
    }

    // ------------------------------------------------------------------ limits before allocation

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            variables bomb    | 'MARKOV 2000000000 2 2'                      | line 1: the network declares 2000000000 variables, each needing at least 2 entries: more than the limit of 16777216 entries (raise it with -Dstructlr.limit.uaiEntries=N)
            labels bomb       | 'MARKOV 2 2 2000000000'                      | line 1: variable 1 has 2000000000 labels: 2 variables padded to 2000000000 labels need 4000000000 entries
            factors bomb      | 'MARKOV 2 2 2 2000000000 1 0'                | line 1: the network declares 2000000000 factors
            table bomb        | 'MARKOV 3 1000 1000 1000 1 3 0 1 2'          | line 1: factor 0 over 3 variables has a table of more than 16777216 entries, the largest table a factor over 3 or more variables may have
            pair table bomb   | 'MARKOV 2 9000 9000 1 2 0 1'                 | line 1: factor 0 over 2 variables has a table of more than 16777216 entries (raise it with -Dstructlr.limit.uaiEntries=N)
            scope bomb        | 'MARKOV 2 2 2 1 2000000000 0 1'              | line 1: factor 0 has a scope of 2000000000 variables but the network has only 2
            padded pairs      | 'MARKOV 4 5000 2 2 2 2 2 1 2 2 2 3'          | the model needs 50020000 entries in the engines' layout
            """)
    void sizesAreRefusedBeforeAllocation(String name, String text, String problem) throws IOException {
        Path p = write("bomb.uai", text);
        com.sun.management.ThreadMXBean mx = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long before = mx.getCurrentThreadAllocatedBytes();
        BadInputException e = assertThrows(BadInputException.class, () -> UaiReader.read(p));
        long allocated = mx.getCurrentThreadAllocatedBytes() - before;
        assertTrue(e.getMessage().startsWith(p + ": " + problem), name + ": " + e.getMessage());
        assertTrue(allocated < 16L << 20, name + ": reading the header allocated " + allocated + " bytes");
    }

    @Test
    void longTokensAndLimitsRaisedOrLoweredByProperty() throws IOException {
        Path p = write("long.uai", "MARKOV 1 " + "1".repeat(5000));
        BadInputException e = assertThrows(BadInputException.class, () -> UaiReader.read(p));
        assertEquals(p + ": line 1: a token of more than 1000 characters ('11111111111111111111...', where the cardinality of variable 0"
                + " was expected; raise the limit with -Dstructlr.limit.tokenChars=N)", e.getMessage());
        Path ok = write("ok.uai", "MARKOV 3 2 2 2 1 3 0 1 2 8 1 2 3 4 5 6 7 8");
        assertEquals(1, UaiReader.read(ok).graph().numRegions());
        String property = InputLimits.UAI_ENTRIES.property();
        try {
            System.setProperty(property, "10");
            BadInputException small = assertThrows(BadInputException.class, () -> UaiReader.read(ok));
            assertEquals(ok + ": the model needs 14 entries in the engines' layout (3 variables and 0 pairs padded to 2 labels, 1 regions of 8"
                    + " entries): more than the limit of 10 entries (raise it with -Dstructlr.limit.uaiEntries=N)", small.getMessage());
            System.setProperty(property, "14");
            assertEquals(1, UaiReader.read(ok).graph().numRegions());
        } finally {
            System.clearProperty(property);
        }
    }
}
