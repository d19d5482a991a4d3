package org.structlr.data;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.structlr.graph.FactorGraph;

class UaiReaderTest {
    @TempDir
    Path dir;

    /**
     * Three variables (2, 2, 3 labels), a unary factor on 0, a pairwise factor on (0, 1), a
     * pairwise factor with REVERSED scope (2, 1), and a second factor on (1, 0) that multiplies
     * into the first edge.
     */
    static final String SMALL = """
            MARKOV
            3
            2 2 3
            5
            1 0
            2 0 1
            2 2 1
            2 1 0
            1 2

            2
             0.25 0.75

            4
             1.0 2.0
             3.0 4.0

            6
             0.1 0.2
             0.3 0.4
             0.5 0.0

            4 2.0 1.0 1.0 1.0
            3 1 1 2
            """;

    private Path write(String name, String text) throws IOException {
        Path p = dir.resolve(name);
        Files.writeString(p, text);
        return p;
    }

    @Test
    void parsesSmallNetwork() throws IOException {
        UaiReader.Model m = UaiReader.read(write("small.uai", SMALL));
        FactorGraph g = m.graph();
        assertEquals(3, g.numVariables());
        assertEquals(2, g.numLabels(0));
        assertEquals(2, g.numLabels(1));
        assertEquals(3, g.numLabels(2));
        assertEquals(3, m.maxLabels());
        assertEquals(2, g.numEdges(), "(0,1) twice and (2,1) give two edges");
        assertEquals(0, g.edgeFrom(0));
        assertEquals(1, g.edgeTo(0));
        assertEquals(1, g.edgeFrom(1), "the reversed scope (2, 1) becomes edge (1, 2)");
        assertEquals(2, g.edgeTo(1));

        // Unary: log of the table entries; the padding label 2 of a binary variable is impossible.
        assertEquals(Math.log(0.25), m.unary(0, 0), 1e-15);
        assertEquals(Math.log(0.75), m.unary(0, 1), 1e-15);
        assertEquals(Double.NEGATIVE_INFINITY, m.unary(0, 2));
        assertEquals(0.0, m.unary(1, 0), 0.0, "no unary factor: potential 1, log 0");
        assertEquals(Math.log(2.0), m.unary(2, 2), 1e-15);

        // Edge (0,1): factor "2 0 1" table [y0][y1] = 1 2 / 3 4, times factor "2 1 0" with
        // table [y1][y0] = 2 1 / 1 1, i.e. (y0=0, y1=0) gets 2, (y0=1, y1=0) gets 1, (y0=0, y1=1) 1.
        assertEquals(Math.log(1.0 * 2.0), m.pairwise(0, 0, 0), 1e-15);
        assertEquals(Math.log(2.0 * 1.0), m.pairwise(0, 0, 1), 1e-15);
        assertEquals(Math.log(3.0 * 1.0), m.pairwise(0, 1, 0), 1e-15);
        assertEquals(Math.log(4.0 * 1.0), m.pairwise(0, 1, 1), 1e-15);

        // Edge (1,2) from scope (2,1): table index = y2 * 2 + y1, so theta(y1, y2) = log t[y2 * 2 + y1].
        assertEquals(Math.log(0.2), m.pairwise(1, 1, 0), 1e-15, "y1=1, y2=0 is entry 1");
        assertEquals(Math.log(0.3), m.pairwise(1, 0, 1), 1e-15, "y1=0, y2=1 is entry 2");
        assertEquals(Math.log(0.5), m.pairwise(1, 0, 2), 1e-15, "y1=0, y2=2 is entry 4");
        assertEquals(Double.NEGATIVE_INFINITY, m.pairwise(1, 1, 2), "a zero entry is a hard constraint");
        assertEquals(Double.NEGATIVE_INFINITY, m.pairwise(0, 2, 0), "padding label of variable 0");
    }

    @Test
    void potentialArraysHaveEngineLayout() throws IOException {
        UaiReader.Model m = UaiReader.read(write("small.uai", SMALL));
        var u = m.unary(org.nd4j.linalg.api.buffer.DataType.DOUBLE);
        var p = m.pairwise(org.nd4j.linalg.api.buffer.DataType.FLOAT);
        assertEquals(3, u.size(0));
        assertEquals(3, u.size(1));
        assertEquals(2, p.size(0));
        assertEquals(9, p.size(1));
        assertEquals(Math.log(0.75), u.getDouble(0, 1), 1e-15);
        // edge 1 = (1, 2), y1 = 0, y2 = 2 -> column 0 * 3 + 2
        assertEquals(Math.log(0.5), p.getDouble(1, 2), 1e-6);
    }

    @Test
    void singleLabelVariableGetsAnImpossibleSecondLabel() throws IOException {
        // variable 0 has one label; the pair factor (1, 0) is 2x1
        UaiReader.Model m = UaiReader.read(write("one.uai", "MARKOV 2 1 2 2 1 0 2 1 0 1 0.5 2 3 4"));
        assertEquals(1, m.cardinality(0));
        assertEquals(2, m.cardinality(1));
        assertEquals(2, m.graph().numLabels(0));
        assertEquals(Math.log(0.5), m.unary(0, 0), 1e-15);
        assertEquals(Double.NEGATIVE_INFINITY, m.unary(0, 1));
        // edge (0, 1): theta(y0 = 0, y1) = log 3, log 4; y0 = 1 impossible
        assertEquals(Math.log(3), m.pairwise(0, 0, 0), 1e-15);
        assertEquals(Math.log(4), m.pairwise(0, 0, 1), 1e-15);
        assertEquals(Double.NEGATIVE_INFINITY, m.pairwise(0, 1, 0));
        assertEquals(Math.log(0.5) + Math.log(4), m.logPotential(new int[] {0, 1}), 1e-15);
    }

    @Test
    void freeFormWhitespaceIsAccepted() throws IOException {
        UaiReader.Model m = UaiReader.read(write("flat.uai", "markov 2 2 2 1 2 1 0 4 1 2 3 4"));
        assertEquals(1, m.graph().numEdges());
        assertEquals(0, m.graph().edgeFrom(0));
        // scope (1, 0): index = y1 * 2 + y0, so theta(y0=1, y1=0) = log t[1] = log 2
        assertEquals(Math.log(2.0), m.pairwise(0, 1, 0), 1e-15);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            empty             | ''                                           | file is empty
            blank             | '   \\n  '                                    | file is empty
            other type        | 'GRAPH 1 2 0'                                | expected the network type MARKOV or BAYES, got 'GRAPH'
            truncated header  | 'MARKOV 2 2'                                 | file ends early
            truncated table   | 'MARKOV 2 2 2 1 2 0 1 4 1 1 1'               | file ends early
            count mismatch    | 'MARKOV 2 2 2 1 2 0 1 3 1 1 1'               | has 3 entries but its scope (2x2) needs 4
            factor count      | 'MARKOV 1 2 1 1 0 2 1 1 2 1 1'               | after the table of the last factor
            index range       | 'MARKOV 2 2 2 1 2 0 2 4 1 1 1 1'             | names variable 2, outside 0..1
            negative index    | 'MARKOV 2 2 2 1 1 -1 2 1 1'                  | names variable -1, outside 0..1
            region repeated   | 'MARKOV 3 2 2 2 1 3 0 1 0'                   | factor 0 names variable 0 twice
            region truncated  | 'MARKOV 3 2 2 2 1 3 0 1 2 8 1 1 1'           | file ends early (truncated?) at line 1: expected entry 3 of the table of factor 0
            region count      | 'MARKOV 3 2 2 2 1 3 0 1 2 4 1 1 1 1'         | the table of factor 0 has 4 entries but its scope (2x2x2) needs 8
            negative entry    | 'MARKOV 1 2 1 1 0 2 0.5 -0.5'                | entry 1 of the table of factor 0 is negative
            nan entry         | 'MARKOV 1 2 1 1 0 2 NaN 0.5'                 | entry 0 of the table of factor 0 is NaN
            infinite entry    | 'MARKOV 1 2 1 1 0 2 inf 0.5'                 | entry 0 of the table of factor 0 is infinite
            non-numeric entry | 'MARKOV 1 2 1 1 0 2 0.5 abc'                 | got 'abc'
            non-numeric count | 'MARKOV x'                                   | expected the number of variables (an integer), got 'x'
            repeated variable | 'MARKOV 2 2 2 1 2 1 1 4 1 1 1 1'             | names variable 1 twice
            all zero          | 'MARKOV 1 2 1 1 0 2 0 0'                     | no configuration has positive probability
            no variables      | 'MARKOV 0 0'                                 | no variables
            """)
    void badInputNamesFileAndProblem(String name, String text, String problem) throws IOException {
        Path p = write("bad.uai", text.replace("\\n", "\n"));
        BadInputException e = assertThrows(BadInputException.class, () -> UaiReader.read(p));
        assertTrue(e.getMessage().startsWith(p.toString() + ": "), e.getMessage());
        assertTrue(e.getMessage().contains(problem), name + ": " + e.getMessage());
    }

    @Test
    void lineNumberIsReported() throws IOException {
        Path p = write("lines.uai", "MARKOV\n1\n2\n1\n1 0\n2\n0.5 oops\n");
        BadInputException e = assertThrows(BadInputException.class, () -> UaiReader.read(p));
        assertTrue(e.getMessage().contains("line 7"), e.getMessage());
    }

    @Test
    void missingFileAndDirectory() {
        Path missing = dir.resolve("nope.uai");
        BadInputException e = assertThrows(BadInputException.class, () -> UaiReader.read(missing));
        assertEquals(missing + ": file not found", e.getMessage());
        BadInputException d = assertThrows(BadInputException.class, () -> UaiReader.read(dir));
        assertTrue(d.getMessage().contains("is a directory"), d.getMessage());
    }
}
