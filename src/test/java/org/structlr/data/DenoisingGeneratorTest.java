package org.structlr.data;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.structlr.graph.FactorGraph;
import org.structlr.graph.Grids;

class DenoisingGeneratorTest {
    @TempDir
    Path tmp;

    private static final DenoisingGenerator GEN = new DenoisingGenerator();

    @Test
    void paperSizedDataIsWellFormed() {
        Dataset d = GEN.generate(16, 16, 100, 100, 1L);
        assertEquals(16, d.train().size());
        assertEquals(16, d.test().size());
        assertEquals(2, d.numLabels());
        assertEquals(2, d.unaryDim());
        assertEquals(2, d.pairDim());
        assertEquals(2, d.numPairTypes());

        double sameFraction = 0, n = 0;
        for (Example ex : d.all()) {
            assertEquals(10000, ex.numVariables());
            assertEquals(2 * 100 * 99, ex.numEdges());
            assertArrayEquals(new int[] {100, 100}, ex.shape().orElseThrow());
            assertEquals(2, ex.numLabels().getAsInt());
            int ones = 0;
            for (int y : ex.labels()) ones += y;
            assertTrue(ones > 0 && ones < 10000, "both labels occur");
            assertEquals(5000, ones, "threshold at the median splits the image in halves");
            int same = 0;
            for (int e = 0; e < ex.numEdges(); e++) if (ex.label(ex.edgeFrom(e)) == ex.label(ex.edgeTo(e))) same++;
            double frac = same / (double) ex.numEdges();
            assertTrue(frac > 0.9, "labels are spatially smooth: equal-label neighbour fraction " + frac);
            sameFraction += frac;
            n++;
        }
        assertTrue(sameFraction / n > 0.95, "mean equal-label neighbour fraction " + sameFraction / n);
    }

    @Test
    void deterministicForASeed() {
        Dataset a = GEN.generate(2, 2, 20, 30, 42L), b = GEN.generate(2, 2, 20, 30, 42L), c = GEN.generate(2, 2, 20, 30, 43L);
        assertEquals(a.train(), b.train());
        assertEquals(a.test(), b.test());
        assertNotEquals(a.train().get(0), c.train().get(0));
        assertNotEquals(a.train().get(0), a.train().get(1));
        // training images do not depend on the number of test images
        assertEquals(a.train(), GEN.generate(2, 5, 20, 30, 42L).train());
    }

    @Test
    void featureDistributionsFollowThePaper() {
        Dataset d = GEN.generate(4, 0, 100, 100, 7L);
        double[] uSum = new double[2], uMin = {1, 1}, uMax = {0, 0};
        long[] uN = new long[2];
        double[] pSum = new double[2], pMin = {1, 1}, pMax = {0, 0};
        long[] pN = new long[2];
        for (Example ex : d.train()) {
            for (int i = 0; i < ex.numVariables(); i++) {
                assertEquals(1f, ex.unary(i, 0), "constant first column");
                int y = ex.label(i);
                double phi = ex.unary(i, 1);
                uSum[y] += phi;
                uN[y]++;
                uMin[y] = Math.min(uMin[y], phi);
                uMax[y] = Math.max(uMax[y], phi);
            }
            for (int e = 0; e < ex.numEdges(); e++) {
                assertEquals(1f, ex.pairwise(e, 0), "constant first column");
                int s = ex.label(ex.edgeFrom(e)) == ex.label(ex.edgeTo(e)) ? 0 : 1;
                double phi = ex.pairwise(e, 1);
                pSum[s] += phi;
                pN[s]++;
                pMin[s] = Math.min(pMin[s], phi);
                pMax[s] = Math.max(pMax[s], phi);
            }
        }
        assertEquals(0.45, uSum[0] / uN[0], 0.01, "y=0: U[0, 0.9]");
        assertEquals(0.55, uSum[1] / uN[1], 0.01, "y=1: U[0.1, 1]");
        assertTrue(uMin[0] >= 0 && uMax[0] <= 0.9 && uMax[0] > 0.89);
        assertTrue(uMin[1] >= 0.1 && uMin[1] < 0.11 && uMax[1] <= 1);
        assertEquals(0.4, pSum[0] / pN[0], 0.01, "equal labels: U[0, 0.8]");
        assertEquals(0.6, pSum[1] / pN[1], 0.03, "different labels: U[0.2, 1]");
        assertTrue(pMax[0] <= 0.8 && pMin[1] >= 0.2 && pMax[1] <= 1);
    }

    @Test
    void gridOrderAndGraphMatchGrids() {
        Example ex = GEN.generate(1, 0, 4, 5, 1L).train().get(0);
        FactorGraph g = ex.graph(2, List.of("horizontal", "vertical"));
        FactorGraph ref = Grids.grid(4, 5, 2, true);
        assertEquals(ref.numEdges(), g.numEdges());
        for (int e = 0; e < g.numEdges(); e++) {
            assertEquals(ref.edgeFrom(e), g.edgeFrom(e));
            assertEquals(ref.edgeTo(e), g.edgeTo(e));
            assertEquals(ref.edgeType(e), g.edgeType(e));
        }
        Example untyped = new DenoisingGenerator(10, false).generate(1, 0, 4, 5, 1L).train().get(0);
        assertTrue(untyped.edgeTypes().isEmpty());
    }

    @Test
    void blurAndThreshold() {
        // a constant image stays constant with the reflect boundary (no darkening at the border)
        double[] ones = new double[6 * 7];
        java.util.Arrays.fill(ones, 0.3);
        for (double v : DenoisingGenerator.blur(ones, 6, 7, 10)) assertEquals(0.3, v, 1e-12);
        // reflect about the pixel edge: d c b a | a b c d | d c b a, repeated
        assertEquals(0, DenoisingGenerator.reflect(-1, 4));
        assertEquals(3, DenoisingGenerator.reflect(-4, 4));
        assertEquals(3, DenoisingGenerator.reflect(4, 4));
        assertEquals(0, DenoisingGenerator.reflect(7, 4));
        assertEquals(0, DenoisingGenerator.reflect(8, 4));
        assertEquals(2, DenoisingGenerator.reflect(-35, 4));
        // a point spreads symmetrically and keeps its mass away from the border
        double[] dot = new double[81 * 81];
        dot[40 * 81 + 40] = 1;
        double[] b = DenoisingGenerator.blur(dot, 81, 81, 3);
        double sum = 0;
        for (double v : b) sum += v;
        assertEquals(1, sum, 1e-9);
        assertEquals(b[40 * 81 + 43], b[43 * 81 + 40], 1e-15);
        assertEquals(Math.exp(-0.5), b[40 * 81 + 43] / b[40 * 81 + 40], 1e-9);
        assertArrayEquals(new int[] {0, 1, 1, 0}, DenoisingGenerator.aboveMedian(new double[] {0.1, 0.9, 0.5, 0.2}));
        assertArrayEquals(new int[] {0, 0, 1}, DenoisingGenerator.aboveMedian(new double[] {0.1, 0.5, 0.9}));
        // ties at the median are broken by index, so exactly floor(V/2) ones remain
        assertArrayEquals(new int[] {0, 0, 1, 1}, DenoisingGenerator.aboveMedian(new double[] {0.5, 0.5, 0.5, 0.5}));
        assertArrayEquals(new int[] {0, 0, 0, 1, 1}, DenoisingGenerator.aboveMedian(new double[] {0.1, 0.5, 0.5, 0.5, 0.9}));
    }

    @Test
    void writtenFolderReadsBack() throws IOException {
        Path dir = tmp.resolve("denoise");
        Dataset d = GEN.generateTo(dir, 3, 2, 12, 10, 5L);
        Dataset back = Dataset.load(dir);
        assertEquals(d.train(), back.train());
        assertEquals(d.test(), back.test());
        assertTrue(java.nio.file.Files.isRegularFile(dir.resolve("train/002.npz")));
        assertTrue(java.nio.file.Files.isRegularFile(dir.resolve("test/001.npz")));
    }
}
