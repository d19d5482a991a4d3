package org.structlr.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class InferCommandTest {
    @TempDir
    Path dir;

    /** What a run printed and returned. */
    record Run(int code, String out, String err) {}

    static Run run(String... args) {
        StringWriter out = new StringWriter(), err = new StringWriter();
        int code = Main.execute(new PrintWriter(out, true), new PrintWriter(err, true), args);
        return new Run(code, out.toString(), err.toString());
    }

    /** A chain 0-1-..-(n-1) with cardinalities card, unary tables u[i] and pair tables p[i] over (i, i+1). */
    static String chainUai(int[] card, double[][] u, double[][] p, boolean reverseOddScopes) {
        int n = card.length;
        StringBuilder s = new StringBuilder("MARKOV\n").append(n).append('\n');
        for (int c : card) s.append(c).append(' ');
        s.append('\n').append(2 * n - 1).append('\n');
        for (int i = 0; i < n; i++) s.append("1 ").append(i).append('\n');
        for (int i = 0; i + 1 < n; i++) {
            boolean rev = reverseOddScopes && i % 2 == 1;
            s.append("2 ").append(rev ? (i + 1) + " " + i : i + " " + (i + 1)).append('\n');
        }
        for (int i = 0; i < n; i++) {
            s.append('\n').append(u[i].length).append('\n');
            for (double v : u[i]) s.append(' ').append(v);
            s.append('\n');
        }
        for (int i = 0; i + 1 < n; i++) {
            boolean rev = reverseOddScopes && i % 2 == 1;
            s.append('\n').append(p[i].length).append('\n');
            // p[i] is indexed y_i * card[i+1] + y_{i+1}; a reversed scope lists y_{i+1} slowest.
            for (int a = 0; a < (rev ? card[i + 1] : card[i]); a++) {
                for (int b = 0; b < (rev ? card[i] : card[i + 1]); b++) {
                    double v = rev ? p[i][b * card[i + 1] + a] : p[i][a * card[i + 1] + b];
                    s.append(' ').append(v);
                }
                s.append('\n');
            }
        }
        return s.toString();
    }

    /** Log-score of an assignment of the chain. */
    static double score(int[] y, int[] card, double[][] u, double[][] p) {
        double s = 0;
        for (int i = 0; i < y.length; i++) s += Math.log(u[i][y[i]]);
        for (int i = 0; i + 1 < y.length; i++) s += Math.log(p[i][y[i] * card[i + 1] + y[i + 1]]);
        return s;
    }

    @Test
    void chainMarginalsSumToOneAndLabelsAreTheExactMap() throws IOException {
        int[] card = {2, 3, 2, 3, 2};
        Random rnd = new Random(7);
        int n = card.length;
        double[][] u = new double[n][], p = new double[n - 1][];
        for (int i = 0; i < n; i++) {
            u[i] = rnd.doubles(card[i], 0.05, 1.0).toArray();
        }
        for (int i = 0; i + 1 < n; i++) {
            p[i] = rnd.doubles((long) card[i] * card[i + 1], 0.05, 1.0).toArray();
        }
        // Exact MAP and runner-up by enumeration.
        int total = 1;
        for (int c : card) total *= c;
        double best = Double.NEGATIVE_INFINITY, second = Double.NEGATIVE_INFINITY;
        int[] map = null;
        for (int k = 0; k < total; k++) {
            int[] y = new int[n];
            for (int i = n - 1, r = k; i >= 0; i--) {
                y[i] = r % card[i];
                r /= card[i];
            }
            double s = score(y, card, u, p);
            if (s > best) {
                second = best;
                best = s;
                map = y;
            } else if (s > second) {
                second = s;
            }
        }
        assertTrue(best - second > 0.1, "test problem needs a clear MAP margin, got " + (best - second));

        Path in = dir.resolve("chain.uai");
        Files.writeString(in, chainUai(card, u, p, true));
        Path out = dir.resolve("result.json");
        Run r = run("infer", in.toString(), "--eps", "0.002", "--iterations", "2000", "--output", out.toString());
        assertEquals(0, r.code(), r.err());
        assertEquals("", r.out(), "with --output nothing goes to standard output");

        JsonNode json = new ObjectMapper().readTree(out.toFile());
        for (String key : List.of("dual", "primal", "gap", "iterations", "labels", "marginals")) {
            assertTrue(json.has(key), "missing " + key + " in " + json);
        }
        JsonNode marg = json.get("marginals");
        assertEquals(n, marg.size());
        for (int i = 0; i < n; i++) {
            assertEquals(card[i], marg.get(i).size(), "variable " + i + " has its own label count");
            double sum = 0;
            for (JsonNode b : marg.get(i)) {
                assertTrue(b.isNumber() && b.asDouble() >= 0, b.toString());
                sum += b.asDouble();
            }
            assertEquals(1.0, sum, 1e-6, "marginals of variable " + i);
        }
        int[] labels = new int[n];
        for (int i = 0; i < n; i++) labels[i] = json.get("labels").get(i).asInt();
        assertArrayEquals(map, labels);
        assertTrue(json.get("gap").asDouble() >= -1e-6);
        assertTrue(json.get("dual").asDouble() >= json.get("primal").asDouble() - 1e-6);
        assertEquals(List.of("result.json", "chain.uai").stream().sorted().toList(), listDir(), "no temporary files left");
    }

    @Test
    void standardOutputWhenNoOutputFile() throws IOException {
        Path in = dir.resolve("pair.uai");
        Files.writeString(in, "MARKOV 2 2 2 1 2 0 1 4 1 2 3 4");
        Run r = run("infer", in.toString(), "--iterations", "50");
        assertEquals(0, r.code(), r.err());
        JsonNode json = new ObjectMapper().readTree(r.out());
        assertEquals(2, json.get("marginals").size());
        // Exactly: p(y0=1) = (3 + 4) / 10 at eps = 1 would hold; at eps 0.1 y0=1, y1=1 dominates.
        assertEquals(1, json.get("labels").get(0).asInt());
        assertEquals(1, json.get("labels").get(1).asInt());
    }

    @Test
    void zeroEntryIsAHardConstraintWithoutNaN() throws IOException {
        // Variable 0 can never take label 0; pair (y0=1, y1=1) is forbidden.
        Path in = dir.resolve("zero.uai");
        Files.writeString(in, "MARKOV\n2\n2 2\n2\n1 0\n2 0 1\n2 0.0 1.0\n4 1 1 1 0\n");
        Path out = dir.resolve("zero.json");
        Run r = run("infer", in.toString(), "--output", out.toString());
        assertEquals(0, r.code(), r.err());
        String text = Files.readString(out);
        assertFalse(text.contains("NaN") || text.contains("Infinity") || text.contains("null"), text);
        JsonNode json = new ObjectMapper().readTree(text);
        assertEquals(0.0, json.get("marginals").get(0).get(0).asDouble(), 1e-12);
        assertEquals(1.0, json.get("marginals").get(1).get(0).asDouble(), 1e-6, "y0 = 1 forces y1 = 0");
        assertEquals(1, json.get("labels").get(0).asInt());
        assertEquals(0, json.get("labels").get(1).asInt());
    }

    @Test
    void outputReplacesAnOldFileAtomically() throws IOException {
        Path in = dir.resolve("pair.uai");
        Files.writeString(in, "MARKOV 2 2 2 1 2 0 1 4 1 2 3 4");
        Path out = dir.resolve("out.json");
        Files.writeString(out, "old");
        assertEquals(0, run("infer", in.toString(), "--output", out.toString()).code());
        assertTrue(Files.readString(out).contains("marginals"));
        assertEquals(List.of("out.json", "pair.uai"), listDir());
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            empty          | ''                                | file is empty
            header bomb    | 'MARKOV 2000000000 2'             | line 1: the network declares 2000000000 variables, each needing at least 2 entries: more than the limit of 16777216 entries (raise it with -Dstructlr.limit.uaiEntries=N)
            truncated      | 'MARKOV 2 2 2 1 2 0 1 4 1 1 1'    | file ends early
            count mismatch | 'MARKOV 2 2 2 1 2 0 1 3 1 1 1'    | has 3 entries but its scope (2x2) needs 4
            index range    | 'MARKOV 2 2 2 1 2 0 2 4 1 1 1 1'  | names variable 2, outside 0..1
            zero region    | 'MARKOV 3 2 2 2 1 3 0 1 2 8 0 0 0 0 0 0 0 0' | every entry of the factors over variables [0, 1, 2] is 0
            negative entry | 'MARKOV 1 2 1 1 0 2 0.5 -0.5'     | is negative
            nan entry      | 'MARKOV 1 2 1 1 0 2 NaN 0.5'      | is NaN
            """)
    void badFileExitsTwoNamingFileAndProblem(String name, String text, String problem) throws IOException {
        Path in = dir.resolve("bad.uai");
        Files.writeString(in, text);
        Path out = dir.resolve("out.json");
        Run r = run("infer", in.toString(), "--output", out.toString());
        assertEquals(Main.EXIT_USAGE, r.code(), name + ": " + r.err());
        assertTrue(r.err().startsWith("error: " + in + ": "), r.err());
        assertTrue(r.err().contains(problem), name + ": " + r.err());
        assertFalse(Files.exists(out), "no output file");
        assertEquals(List.of("bad.uai"), listDir(), "no temporary file either");
    }

    @Test
    void missingFileExitsTwo() throws IOException {
        Path in = dir.resolve("missing.uai");
        Path out = dir.resolve("out.json");
        Run r = run("infer", in.toString(), "--output", out.toString());
        assertEquals(Main.EXIT_USAGE, r.code());
        assertEquals("error: " + in + ": file not found", r.err().strip());
        assertEquals(List.of(), listDir());
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            unknown option | --frobnicate | Unknown option: '--frobnicate'
            eps zero       | --eps=0      | --eps must be a finite number greater than 0, got 0.0
            eps negative   | --eps=-1     | --eps must be a finite number greater than 0, got -1.0
            eps text       | --eps=abc    | 'abc' is not a double
            iterations     | --iterations=-1 | --iterations must be at least 0, got -1
            tolerance      | --tolerance=-1  | --tolerance must be at least 0, got -1.0
            engine         | --engine=magic  | Invalid value for option '--engine'
            """)
    void badOptionExitsTwo(String name, String option, String problem) throws IOException {
        Path in = dir.resolve("pair.uai");
        Files.writeString(in, "MARKOV 2 2 2 1 2 0 1 4 1 2 3 4");
        Path out = dir.resolve("out.json");
        Run r = run("infer", in.toString(), option, "--output", out.toString());
        assertEquals(Main.EXIT_USAGE, r.code(), name + ": " + r.err());
        assertTrue(r.err().startsWith("error: "), r.err());
        assertTrue(r.err().contains(problem), name + ": " + r.err());
        assertFalse(Files.exists(out));
        assertEquals(List.of("pair.uai"), listDir());
    }

    @Test
    void missingOutputFolderExitsTwoBeforeWork() throws IOException {
        Path in = dir.resolve("pair.uai");
        Files.writeString(in, "MARKOV 2 2 2 1 2 0 1 4 1 2 3 4");
        Path out = dir.resolve("no/such/folder/out.json");
        Run r = run("infer", in.toString(), "--output", out.toString());
        assertEquals(Main.EXIT_USAGE, r.code());
        assertTrue(r.err().contains("does not exist"), r.err());
    }

    @Test
    void loopEngineAgreesWithGraphEngine() throws IOException {
        Path in = dir.resolve("cycle.uai");
        // A 3-cycle with 2, 3 and 2 labels and a hard zero.
        Files.writeString(in, "MARKOV 3 2 3 2 4 1 0 2 0 1 2 1 2 2 2 0 "
                + "2 0.3 0.7 6 1 2 3 4 5 6 6 0.5 1 2 0 1 1 4 2 1 1 3");
        ObjectMapper om = new ObjectMapper();
        Run g = run("infer", in.toString(), "--engine", "graph", "--iterations", "300", "--tolerance", "0");
        Run l = run("infer", in.toString(), "--engine", "loop", "--iterations", "300", "--tolerance", "0");
        assertEquals(0, g.code(), g.err());
        assertEquals(0, l.code(), l.err());
        JsonNode jg = om.readTree(g.out()), jl = om.readTree(l.out());
        assertEquals(jg.get("labels"), jl.get("labels"));
        assertEquals(jg.get("dual").asDouble(), jl.get("dual").asDouble(), 1e-8);
        for (int i = 0; i < 3; i++) {
            for (int y = 0; y < jg.get("marginals").get(i).size(); y++) {
                assertEquals(jg.get("marginals").get(i).get(y).asDouble(), jl.get("marginals").get(i).get(y).asDouble(), 1e-8);
            }
        }
    }

    @Test
    void autoEngineIsTheLoopEngineUpToTheThreshold() {
        org.structlr.graph.FactorGraph small = org.structlr.graph.Grids.grid(2, 2, 2, false);
        assertEquals(InferCommand.Engine.loop, InferCommand.chooseEngine(InferCommand.Engine.auto, small));
        // 1,000 x 1,000 grid with 2 labels: 1,998,000 edges x 4 entries, above the threshold
        org.structlr.graph.FactorGraph big = org.structlr.graph.Grids.grid(1000, 1000, 2, false);
        assertEquals(InferCommand.Engine.graph, InferCommand.chooseEngine(InferCommand.Engine.auto, big));
        assertEquals(InferCommand.Engine.graph, InferCommand.chooseEngine(InferCommand.Engine.graph, small));
    }

    @Test
    void helpShowsDefaults() {
        Run r = run("infer", "--help");
        assertEquals(0, r.code());
        assertTrue(r.out().contains("default: 0.1"), r.out());
        assertTrue(r.out().contains("default: 1000"), r.out());
        assertTrue(r.out().contains("default: 1e-6") || r.out().contains("default: 1.0E-6"), r.out());
        assertTrue(r.out().contains("default: auto"), r.out());
        assertTrue(r.out().contains("default: search"), r.out());
        assertTrue(r.out().contains("default: json"), r.out());
    }

    private List<String> listDir() throws IOException {
        try (Stream<Path> s = Files.list(dir)) {
            return s.map(p -> p.getFileName().toString()).sorted().collect(Collectors.toList());
        }
    }
}
