package org.structlr.inference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.structlr.graph.Coloring;
import org.structlr.graph.FactorGraph;
import org.structlr.graph.Grids;
import org.structlr.inference.TestEngines.Engine;
import org.structlr.inference.TestEngines.Problem;

/**
 * The engines against the shared float64 Python reference (docs/design.md §2): the 4x4 grid, 3 labels,
 * eps 0.1 problem of {@code smoothed_mp.py}, written to {@code reference/grid4x4.json} by
 * {@code reference/make_reference.py} (no Python at test time).
 */
public class ReferenceAgreementTest {

    public static JsonNode reference() {
        try (InputStream in = ReferenceAgreementTest.class.getResourceAsStream("/reference/grid4x4.json")) {
            if (in == null) throw new IllegalStateException("missing test resource /reference/grid4x4.json");
            return new ObjectMapper().readTree(in);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    public static double[][] matrix(JsonNode n) {
        double[][] m = new double[n.size()][];
        for (int r = 0; r < m.length; r++) {
            m[r] = new double[n.get(r).size()];
            for (int c = 0; c < m[r].length; c++) m[r][c] = n.get(r).get(c).asDouble();
        }
        return m;
    }

    public static Stream<Arguments> cases() {
        JsonNode ref = reference();
        int h = ref.get("height").asInt(), w = ref.get("width").asInt(), l = ref.get("labels").asInt();
        double[][] u = matrix(ref.get("unary")), p = matrix(ref.get("pairwise"));
        FactorGraph grid = Grids.grid(h, w, l, false);
        int[][] edges = new int[ref.get("edges").size()][];
        for (int a = 0; a < edges.length; a++) {
            edges[a] = new int[] {ref.get("edges").get(a).get(0).asInt(), ref.get("edges").get(a).get(1).asInt()};
            assertEquals(grid.edgeFrom(a), edges[a][0], "edge order of Grids.grid vs the reference");
            assertEquals(grid.edgeTo(a), edges[a][1], "edge order of Grids.grid vs the reference");
        }
        FactorGraph general = FactorGraph.of(h * w, l, edges);
        List<Problem> problems = List.of(
                new Problem("reference grid", grid, Grids.checkerboard(h, w), u, p, new int[] {1, h, w}),
                new Problem("reference as general graph, greedy colouring", general, Coloring.greedy(general), u, p, null));
        return TestEngines.pairs(problems);
    }

    @ParameterizedTest(name = "{0} on {1}")
    @MethodSource("cases")
    void convergedDualAndPrimalMatchThePythonReference(Engine engine, Problem p) {
        JsonNode ref = reference();
        double eps = ref.get("eps").asDouble();
        try (MessagePassing mp = engine.open(p, eps)) {
            assertTrue(MessagePassingTest.converge(mp, 1e-10, 5000), "not converged, gap " + mp.gap());
            assertEquals(ref.get("dual").asDouble(), mp.dual(), 1e-6, "converged dual");
            assertEquals(ref.get("primal").asDouble(), mp.primal(), 1e-6, "converged primal");
            double excess = mp.dual() - ref.get("lp").asDouble();
            double bound = ref.get("bound").asDouble();
            assertEquals(BruteForce.theorem1Bound(p.graph(), eps), bound, 1e-9, "Theorem-1 bound");
            assertTrue(excess >= 0 && excess <= bound, "dual - LP = " + excess + ", bound " + bound);
        }
    }
}
