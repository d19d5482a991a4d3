package org.structlr.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.structlr.data.UaiReader;
import org.structlr.graph.FactorGraph;
import org.structlr.inference.ExactInference;

/** {@code infer} on UAI files with factors over 3 and 4 variables (MARKOV and BAYES), against enumeration. */
class InferRegionsTest {
    @TempDir
    Path dir;

    static final ObjectMapper OM = new ObjectMapper();

    /**
     * 7 variables (2, 3, 2, 2, 3, 2, 2 labels): factors over (0 1 2), (2 3 4 5) in scope order
     * (5 2 4 3), (5 6), unary tables on 0 and 4; an acyclic model, so the LP is tight. Some zeros.
     */
    static String model(long seed) {
        Random r = new Random(seed);
        int[] card = {2, 3, 2, 2, 3, 2, 2};
        int[][] scopes = {{0, 1, 2}, {5, 2, 4, 3}, {5, 6}, {0}, {4}};
        StringBuilder s = new StringBuilder("MARKOV\n7\n2 3 2 2 3 2 2\n5\n");
        for (int[] sc : scopes) {
            s.append(sc.length);
            for (int v : sc) s.append(' ').append(v);
            s.append('\n');
        }
        for (int[] sc : scopes) {
            int n = 1;
            for (int v : sc) n *= card[v];
            s.append('\n').append(n).append('\n');
            for (int k = 0; k < n; k++) s.append(' ').append(k > 0 && r.nextDouble() < 0.2 ? 0 : 0.1 + 3 * r.nextDouble());
            s.append('\n');
        }
        return s.toString();
    }

    @Test
    void decodesTheExactMapOfAHigherOrderModel() throws IOException {
        for (long seed = 1; seed <= 3; seed++) {
            Path in = dir.resolve("m" + seed + ".uai");
            Files.writeString(in, model(seed));
            UaiReader.Model m = UaiReader.read(in);
            FactorGraph g = m.graph();
            double[][] u = m.unary(org.nd4j.linalg.api.buffer.DataType.DOUBLE).toDoubleMatrix();
            double[][] p = new double[g.numEdges()][];
            for (int e = 0; e < p.length; e++) p[e] = m.pairwise(org.nd4j.linalg.api.buffer.DataType.DOUBLE).getRow(e).toDoubleVector();
            ExactInference.Result exact = ExactInference.solve(g, u, p, m.regionArray(), 1.0);
            InferCommandTest.Run run = InferCommandTest.run("infer", in.toString(), "--eps", "0.01", "--decode", "argmax");
            assertEquals(0, run.code(), run.err());
            JsonNode j = OM.readTree(run.out());
            assertEquals(exact.mapScore(), j.get("energy").asDouble(), 1e-9, "seed " + seed);
            assertTrue(j.get("converged").asBoolean());
            // the dual bounds the MAP from above (Theorem 1's excess is at most eps * sum log |labels|)
            assertTrue(j.get("dual").asDouble() >= exact.mapScore() - 1e-9);
            assertEquals(3, j.get("marginals").get(1).size());
        }
    }

    @Test
    void bayesNetworkMarginalsAndMapResultFile() throws IOException {
        // a -> c <- b: CPTs P(a), P(b), P(c | a, b) over a triple
        String text = """
                BAYES
                3
                2 2 2
                3
                1 0
                1 1
                3 0 1 2

                2 0.3 0.7
                2 0.6 0.4
                8 0.9 0.1 0.2 0.8 0.25 0.75 0.05 0.95
                """;
        Path in = dir.resolve("b.uai");
        Files.writeString(in, text);
        Path out = dir.resolve("b.map");
        InferCommandTest.Run run = InferCommandTest.run("infer", in.toString(), "--format", "uai-map", "--output", out.toString(), "--eps", "0.01");
        assertEquals(0, run.code(), run.err());
        // the most probable joint: enumerate by hand. a=1 (0.7), b=0 (0.6), c=1 (0.75): 0.315; a=1,b=1,c=1: 0.7*0.4*0.95 = 0.266
        assertEquals("MAP\n3 1 0 1\n", Files.readString(out));
    }

    /** A frustrated binary grid (spin glass) in UAI text. */
    static String spinGlass(int h, int w, long seed) {
        Random r = new Random(seed);
        StringBuilder sc = new StringBuilder(), tb = new StringBuilder();
        int f = 0;
        for (int i = 0; i < h; i++) {
            for (int j = 0; j < w; j++) {
                int v = i * w + j;
                for (int[] d : new int[][] {{0, 1}, {1, 0}}) {
                    if (i + d[0] >= h || j + d[1] >= w) continue;
                    int u = (i + d[0]) * w + j + d[1];
                    double c = Math.exp(r.nextGaussian());
                    sc.append("2 ").append(v).append(' ').append(u).append('\n');
                    tb.append("4 ").append(c).append(' ').append(1 / c).append(' ').append(1 / c).append(' ').append(c).append('\n');
                    f++;
                }
            }
        }
        return "MARKOV\n" + h * w + "\n" + "2 ".repeat(h * w) + "\n" + f + "\n" + sc + tb;
    }

    @Test
    void timeLimitStopsEarlyWithValidLabelsAndTheBoundIsAboveTheEnergy() throws IOException {
        Path in = dir.resolve("glass.uai");
        Files.writeString(in, spinGlass(40, 40, 3));
        InferCommandTest.Run run = InferCommandTest.run("infer", in.toString(), "--time-limit", "0.001", "--iterations", "100000", "--tolerance", "0");
        assertEquals(0, run.code(), run.err());
        JsonNode j = OM.readTree(run.out());
        assertTrue(j.get("iterations").asInt() < 100000, "stopped at the deadline, not after all sweeps: " + j.get("iterations"));
        assertEquals(1600, j.get("labels").size());
        assertTrue(j.get("feasible").asBoolean());
        assertTrue(j.get("bound").asDouble() >= j.get("energy").asDouble(), "the bound is above the energy");
        assertEquals("search", j.get("decoder").asText());
        InferCommandTest.Run bad = InferCommandTest.run("infer", in.toString(), "--time-limit", "0");
        assertEquals(Main.EXIT_USAGE, bad.code());
        assertTrue(bad.err().contains("--time-limit must be a number of seconds greater than 0, got 0.0"), bad.err());
    }

    @Test
    void aTreeIsSolvedWithACertificate() throws IOException {
        Path in = dir.resolve("m.uai");
        Files.writeString(in, model(4));
        InferCommandTest.Run run = InferCommandTest.run("infer", in.toString());
        assertEquals(0, run.code(), run.err());
        JsonNode j = OM.readTree(run.out());
        assertTrue(j.get("certified").asBoolean(), "energy " + j.get("energy") + " bound " + j.get("bound"));
        assertEquals(j.get("bound").asDouble(), j.get("energy").asDouble(), 1e-6);
        assertTrue(j.get("stages").size() >= 2, "the search's stages are reported");
    }
}
