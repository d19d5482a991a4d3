package org.structlr.data;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class UaiEvidenceTest {
    @TempDir
    Path dir;

    static final int[] CARD = {2, 3, 1, 4};

    private Path write(String name, String text) throws IOException {
        Path p = dir.resolve(name);
        Files.writeString(p, text);
        return p;
    }

    @Test
    void oneLine2014Form() throws IOException {
        assertArrayEquals(new int[] {-1, 2, -1, 3}, UaiEvidence.read(write("a.evid", "2 1 2 3 3\n"), CARD));
        assertArrayEquals(new int[] {-1, -1, -1, -1}, UaiEvidence.read(write("b.evid", "0"), CARD));
        // a 2014 line broken over lines is still the 2014 form: 1 + 2n tokens
        assertArrayEquals(new int[] {1, -1, -1, -1}, UaiEvidence.read(write("c.evid", "1\n0 1\n"), CARD));
    }

    @Test
    void olderFormWithSampleCount() throws IOException {
        assertArrayEquals(new int[] {-1, 2, -1, 3}, UaiEvidence.read(write("a.evid", "1\n2 1 2 3 3\n"), CARD));
        assertArrayEquals(new int[] {-1, -1, -1, -1}, UaiEvidence.read(write("b.evid", "1\n0\n"), CARD));
        assertArrayEquals(new int[] {0, -1, 0, -1}, UaiEvidence.read(write("c.evid", "1\n 2 0 0 2 0\n"), CARD));
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            empty            | ''                   | file is empty
            not a number     | '1 x 0'              | line 1: expected the variable of observation 1 (an integer), got 'x'
            variable range   | '1 4 0'              | line 1: observation 1 names variable 4, outside 0..3
            negative var     | '1 -1 0'             | line 1: observation 1 names variable -1, outside 0..3
            value range      | '2 0 1 1 3'          | line 1: observation 2 gives variable 1 label 3, outside 0..2
            single label     | '1 2 1'              | line 1: observation 1 gives variable 2 label 1, outside 0..0
            truncated        | '1\\n3 0 1 1 2'       | file ends early (truncated?) at line 2: expected the variable of observation 3
            truncated 2014   | '2 0 1 1'            | file ends early (truncated?) at line 1: expected the label of observation 2
            too many         | '1 0 1 1 1 7'        | line 1: unexpected '1' after 1 observations
            conflict         | '2 0 1 0 0'          | line 1: variable 0 is observed twice, with labels 1 and 0
            samples          | '2\\n1 0 1\\n1 0 0'   | line 1: 2 evidence samples; infer takes one
            more than model  | '5 0 0 1 0 2 0 3 0 0 0' | line 1: 5 observed variables, but the model has only 4
            value line 3     | '1\\n2 0 1\\n1 9'      | line 3: observation 2 gives variable 1 label 9, outside 0..2
            """)
    void badEvidenceNamesFileLineAndProblem(String name, String text, String problem) throws IOException {
        Path p = write("bad.evid", text.replace("\\n", "\n"));
        BadInputException e = assertThrows(BadInputException.class, () -> UaiEvidence.read(p, CARD));
        assertTrue(e.getMessage().startsWith(p + ": "), e.getMessage());
        assertTrue(e.getMessage().contains(problem), name + ": " + e.getMessage());
    }

    @Test
    void missingFile() {
        Path p = dir.resolve("nope.evid");
        BadInputException e = assertThrows(BadInputException.class, () -> UaiEvidence.read(p, CARD));
        assertTrue(e.getMessage().equals(p + ": file not found"), e.getMessage());
    }

    @Test
    void endlessFilesCostNoMoreThanTheirValidPrefix() throws IOException {
        // 2 million tokens on one line, and one token of 10 million characters
        Path many = write("many.evid", "1 0 1" + " 1 1".repeat(1_000_000));
        Path longTok = write("long.evid", "1 " + "7".repeat(10_000_000));
        com.sun.management.ThreadMXBean mx = (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
        long before = mx.getCurrentThreadAllocatedBytes();
        BadInputException a = assertThrows(BadInputException.class, () -> UaiEvidence.read(many, CARD));
        BadInputException b = assertThrows(BadInputException.class, () -> UaiEvidence.read(longTok, CARD));
        long allocated = mx.getCurrentThreadAllocatedBytes() - before;
        assertTrue(a.getMessage().equals(many + ": line 1: unexpected '1' after 1 observations (is the count wrong?)"), a.getMessage());
        assertTrue(b.getMessage().startsWith(longTok + ": line 1: a token of more than 1000 characters"), b.getMessage());
        assertTrue(allocated < 8L << 20, "reading allocated " + allocated + " bytes");
    }
}
