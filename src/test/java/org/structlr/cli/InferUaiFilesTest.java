package org.structlr.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** infer on the UAI files real users have: evidence, repeated and reversed scopes, single-label variables, result formats. */
class InferUaiFilesTest {
    @TempDir
    Path dir;

    static final ObjectMapper OM = new ObjectMapper();

    /** Variables 0..4 with a single-label variable 2, a cycle 0-1-2-3-4-0 and a chord 1-3. */
    static final int[] CARD = {2, 3, 1, 2, 3};
    static final int[][] EDGES = {{0, 1}, {1, 2}, {2, 3}, {3, 4}, {4, 0}, {1, 3}};

    /** The evidence of the tests: variable 1 = 2, variable 4 = 0. */
    static final int[] CLAMP = {-1, 2, -1, -1, 0};

    /**
     * Random positive tables with some zeros (hard constraints), never on the labelling (0, 0, 0, 0, 0)
     * nor on an observed label, so the model stays feasible with and without the evidence.
     */
    record Tables(double[][] unary, double[][] pair) {
        static Tables random(long seed) {
            Random r = new Random(seed);
            double[][] u = new double[CARD.length][];
            for (int i = 0; i < CARD.length; i++) {
                u[i] = new double[CARD[i]];
                for (int y = 0; y < CARD[i]; y++) u[i][y] = y > 0 && y != CLAMP[i] && r.nextDouble() < 0.2 ? 0 : 0.2 + r.nextDouble();
            }
            double[][] p = new double[EDGES.length][];
            for (int e = 0; e < EDGES.length; e++) {
                int a = CARD[EDGES[e][0]], b = CARD[EDGES[e][1]];
                p[e] = new double[a * b];
                for (int k = 0; k < a * b; k++) {
                    int yi = k / b, yj = k % b;
                    boolean free = k > 0 && yi != CLAMP[EDGES[e][0]] && yj != CLAMP[EDGES[e][1]];
                    p[e][k] = free && r.nextDouble() < 0.2 ? 0 : 0.2 + 2 * r.nextDouble();
                }
            }
            return new Tables(u, p);
        }
    }

    /**
     * The model with one factor per scope (merged), or with every factor split in two factors
     * whose product is the original, the second pairwise one listing its scope in reverse order
     * (j, i); {@code clamp[i] >= 0} substitutes evidence into the unary tables (zero elsewhere).
     */
    static String uai(Tables t, boolean split, int[] clamp) {
        List<String> scopes = new ArrayList<>();
        List<double[]> tables = new ArrayList<>();
        Random r = new Random(99);
        for (int i = 0; i < CARD.length; i++) {
            double[] u = t.unary()[i].clone();
            if (clamp != null && clamp[i] >= 0) for (int y = 0; y < u.length; y++) if (y != clamp[i]) u[y] = 0;
            if (!split) {
                scopes.add("1 " + i);
                tables.add(u);
            } else {
                double[] a = new double[u.length], b = new double[u.length];
                for (int y = 0; y < u.length; y++) {
                    a[y] = 0.5 + r.nextDouble();
                    b[y] = u[y] / a[y];
                }
                scopes.add("1 " + i);
                tables.add(a);
                scopes.add("1 " + i);
                tables.add(b);
            }
        }
        for (int e = 0; e < EDGES.length; e++) {
            int i = EDGES[e][0], j = EDGES[e][1];
            double[] p = t.pair()[e];
            if (!split) {
                scopes.add("2 " + i + " " + j);
                tables.add(p);
            } else {
                double[] a = new double[p.length], bT = new double[p.length];
                for (int yi = 0; yi < CARD[i]; yi++) {
                    for (int yj = 0; yj < CARD[j]; yj++) {
                        double f = 0.5 + r.nextDouble();
                        a[yi * CARD[j] + yj] = f;
                        bT[yj * CARD[i] + yi] = p[yi * CARD[j] + yj] / f; // scope (j, i): y_j slowest
                    }
                }
                scopes.add("2 " + i + " " + j);
                tables.add(a);
                scopes.add("2 " + j + " " + i);
                tables.add(bT);
            }
        }
        StringBuilder s = new StringBuilder("MARKOV\n").append(CARD.length).append('\n');
        for (int c : CARD) s.append(c).append(' ');
        s.append('\n').append(scopes.size()).append('\n');
        for (String sc : scopes) s.append(sc).append('\n');
        for (double[] tab : tables) {
            s.append('\n').append(tab.length).append('\n');
            for (double v : tab) s.append(' ').append(v);
            s.append('\n');
        }
        return s.toString();
    }

    static JsonNode infer(String... args) throws IOException {
        InferCommandTest.Run r = InferCommandTest.run(args);
        assertEquals(0, r.code(), r.err());
        assertFalse(r.err().contains("SLF4J"), r.err());
        return OM.readTree(r.out());
    }

    static void assertSameMarginals(JsonNode a, JsonNode b, double tol) {
        assertEquals(a.get("marginals").size(), b.get("marginals").size());
        for (int i = 0; i < a.get("marginals").size(); i++) {
            JsonNode ma = a.get("marginals").get(i), mb = b.get("marginals").get(i);
            assertEquals(ma.size(), mb.size(), "label count of variable " + i);
            for (int y = 0; y < ma.size(); y++) assertEquals(ma.get(y).asDouble(), mb.get(y).asDouble(), tol, "b_" + i + "(" + y + ")");
        }
    }

    @ParameterizedTest(name = "{0} evidence, engine {1}")
    @CsvSource({"2014, loop", "older, loop", "2014, graph"})
    void evidenceAndSplitScopesEqualSubstitutedMergedModel(String form, String engine) throws IOException {
        Tables t = Tables.random(11);
        int[] clamp = CLAMP;
        Path split = Files.writeString(dir.resolve("split.uai"), uai(t, true, null));
        Path merged = Files.writeString(dir.resolve("merged.uai"), uai(t, false, clamp));
        String ev = "2 4 0 1 2";
        Path evid = Files.writeString(dir.resolve("split.uai.evid"), form.equals("2014") ? ev + "\n" : "1\n" + ev + "\n");
        String[] common = {"--iterations", "400", "--tolerance", "0", "--eps", "0.2", "--engine", engine};
        JsonNode a = infer(concat(new String[] {"infer", split.toString(), "--evidence", evid.toString()}, common));
        JsonNode b = infer(concat(new String[] {"infer", merged.toString()}, common));
        assertSameMarginals(a, b, 1e-9);
        assertEquals(a.get("dual").asDouble(), b.get("dual").asDouble(), 1e-9);
        assertEquals(a.get("labels"), b.get("labels"));
        assertEquals(a.get("energy").asDouble(), b.get("energy").asDouble(), 1e-9);
        // the evidence is clamped: observed labels have marginal 1 and are the decoded labels
        assertEquals(1.0, a.get("marginals").get(1).get(2).asDouble(), 0);
        assertEquals(1.0, a.get("marginals").get(4).get(0).asDouble(), 0);
        assertEquals(2, a.get("labels").get(1).asInt());
        assertEquals(0, a.get("labels").get(4).asInt());
        // and the evidence really changed something
        JsonNode free = infer(concat(new String[] {"infer", split.toString()}, common));
        assertTrue(Math.abs(free.get("marginals").get(1).get(2).asDouble() - 1) > 1e-3, free.toString());
    }

    @Test
    void singleLabelVariableEqualsTwoLabelsWithAnImpossibleOne() throws IOException {
        Tables t = Tables.random(5);
        Path one = Files.writeString(dir.resolve("one.uai"), uai(t, false, null));
        // the same model with variable 2 given a second label of potential 0 everywhere
        String two = uai(t, false, null);
        JsonNode a = infer("infer", one.toString(), "--iterations", "300", "--tolerance", "0", "--engine", "loop");
        assertEquals(1, a.get("marginals").get(2).size());
        assertEquals(1.0, a.get("marginals").get(2).get(0).asDouble(), 0);
        assertEquals(0, a.get("labels").get(2).asInt());
        Path p2 = Files.writeString(dir.resolve("two.uai"), widenVariable2(two));
        JsonNode b = infer("infer", p2.toString(), "--iterations", "300", "--tolerance", "0", "--engine", "loop");
        for (int i : new int[] {0, 1, 3, 4}) {
            for (int y = 0; y < CARD[i]; y++) {
                assertEquals(b.get("marginals").get(i).get(y).asDouble(), a.get("marginals").get(i).get(y).asDouble(), 1e-12);
            }
        }
        assertEquals(b.get("dual").asDouble(), a.get("dual").asDouble(), 1e-12);
    }

    /** Rewrites a merged file so variable 2 has 2 labels, the second of potential 0 in every table. */
    static String widenVariable2(String text) {
        String[] tok = text.trim().split("\\s+");
        // header: MARKOV n c0..c4 F, then F scopes
        List<String> out = new ArrayList<>();
        int k = 0;
        out.add(tok[k++]);
        int n = Integer.parseInt(tok[k++]);
        out.add(Integer.toString(n));
        int[] card = new int[n];
        for (int i = 0; i < n; i++) {
            card[i] = Integer.parseInt(tok[k++]);
            out.add(Integer.toString(i == 2 ? 2 : card[i]));
        }
        int f = Integer.parseInt(tok[k++]);
        out.add(Integer.toString(f));
        int[][] sc = new int[f][];
        for (int a = 0; a < f; a++) {
            int s = Integer.parseInt(tok[k++]);
            out.add(Integer.toString(s));
            sc[a] = new int[s];
            for (int q = 0; q < s; q++) {
                sc[a][q] = Integer.parseInt(tok[k++]);
                out.add(Integer.toString(sc[a][q]));
            }
        }
        for (int a = 0; a < f; a++) {
            int cnt = Integer.parseInt(tok[k++]);
            double[] tab = new double[cnt];
            for (int q = 0; q < cnt; q++) tab[q] = Double.parseDouble(tok[k++]);
            int[] oldDims = new int[sc[a].length], newDims = new int[sc[a].length];
            for (int q = 0; q < sc[a].length; q++) {
                oldDims[q] = card[sc[a][q]];
                newDims[q] = sc[a][q] == 2 ? 2 : card[sc[a][q]];
            }
            int newCount = 1;
            for (int d : newDims) newCount *= d;
            out.add(Integer.toString(newCount));
            for (int idx = 0; idx < newCount; idx++) {
                // decode idx in newDims (last fastest); a label 1 of variable 2 gets 0
                int rem = idx, oldIdx = 0, mult = 1;
                boolean padded = false;
                int[] lab = new int[newDims.length];
                for (int q = newDims.length - 1; q >= 0; q--) {
                    lab[q] = rem % newDims[q];
                    rem /= newDims[q];
                }
                for (int q = newDims.length - 1; q >= 0; q--) {
                    if (lab[q] >= oldDims[q]) padded = true;
                    oldIdx += (lab[q] < oldDims[q] ? lab[q] : 0) * mult;
                    mult *= oldDims[q];
                }
                out.add(padded ? "0" : Double.toString(tab[oldIdx]));
            }
        }
        return String.join(" ", out);
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"loop", "graph"})
    void resultFormatsParseBackToTheJson(String engine) throws IOException {
        Path m = Files.writeString(dir.resolve("m.uai"), uai(Tables.random(3), true, null));
        String[] common = {"--iterations", "200", "--tolerance", "0", "--engine", engine};
        JsonNode j = infer(concat(new String[] {"infer", m.toString()}, common));
        Path mar = dir.resolve("m.uai.MAR"), map = dir.resolve("m.uai.MAP");
        infer(concat(new String[] {"infer", m.toString(), "--format", "uai-mar", "--output", mar.toString()}, common));
        InferCommandTest.Run r = InferCommandTest.run(concat(new String[] {"infer", m.toString(), "--format", "uai-map", "--output", map.toString()}, common));
        assertEquals(0, r.code(), r.err());
        List<String> marLines = Files.readAllLines(mar);
        assertEquals(2, marLines.size());
        assertEquals("MAR", marLines.get(0));
        String[] tok = marLines.get(1).trim().split(" ");
        int k = 0;
        assertEquals(CARD.length, Integer.parseInt(tok[k++]));
        for (int i = 0; i < CARD.length; i++) {
            assertEquals(CARD[i], Integer.parseInt(tok[k++]));
            for (int y = 0; y < CARD[i]; y++) assertEquals(j.get("marginals").get(i).get(y).asDouble(), Double.parseDouble(tok[k++]), 0);
        }
        assertEquals(tok.length, k);
        List<String> mapLines = Files.readAllLines(map);
        assertEquals(List.of("MAP", CARD.length + " " + joinLabels(j.get("labels"))), mapLines);
    }

    @Test
    void badFormatAndEvidenceExitTwoWithoutOutput() throws IOException {
        Path m = Files.writeString(dir.resolve("m.uai"), uai(Tables.random(3), false, null));
        Path out = dir.resolve("out.txt");
        InferCommandTest.Run r = InferCommandTest.run("infer", m.toString(), "--format", "csv", "--output", out.toString());
        assertEquals(Main.EXIT_USAGE, r.code());
        assertTrue(r.err().contains("'csv' is not one of json, uai-mar, uai-map"), r.err());
        Path ev = Files.writeString(dir.resolve("bad.evid"), "1 1 3\n");
        r = InferCommandTest.run("infer", m.toString(), "--evidence", ev.toString(), "--output", out.toString());
        assertEquals(Main.EXIT_USAGE, r.code());
        assertEquals("error: " + ev + ": line 1: observation 1 gives variable 1 label 3, outside 0..2", r.err().strip());
        // evidence that contradicts a hard zero of the model
        Path imp = Files.writeString(dir.resolve("imp.uai"), "MARKOV 2 2 2 1 2 0 1 4 1 0 0 1");
        Path ev2 = Files.writeString(dir.resolve("imp.evid"), "2 0 0 1 1");
        r = InferCommandTest.run("infer", imp.toString(), "--evidence", ev2.toString(), "--output", out.toString());
        assertEquals(Main.EXIT_USAGE, r.code());
        assertTrue(r.err().startsWith("error: " + ev2 + ": the evidence leaves no possible pair of labels"), r.err());
        assertFalse(Files.exists(out));
    }

    private static String joinLabels(JsonNode labels) {
        StringBuilder s = new StringBuilder();
        for (JsonNode y : labels) s.append(s.length() == 0 ? "" : " ").append(y.asInt());
        return s.toString();
    }

    private static String[] concat(String[] a, String[] b) {
        String[] r = java.util.Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, r, a.length, b.length);
        return r;
    }
}
