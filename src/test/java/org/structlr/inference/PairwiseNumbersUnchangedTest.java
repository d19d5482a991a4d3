package org.structlr.inference;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Regions changed the graph, the engines and the decoder; on pairwise models every engine must still
 * give the numbers it gave before (issue 22): {@link PairwiseGolden} now against the file written by
 * the same code on main before regions existed. Labels must match exactly, numbers to float precision
 * (they matched bit for bit when the file was written).
 */
class PairwiseNumbersUnchangedTest {
    @Test
    void everyEngineGivesTheNumbersOfBeforeRegions() throws IOException {
        List<String> want = new ArrayList<>();
        try (InputStream in = getClass().getResourceAsStream("/golden/pairwise-engines.txt")) {
            for (String l : new String(in.readAllBytes(), StandardCharsets.UTF_8).split("\n")) if (!l.isBlank() && !l.startsWith("#")) want.add(l);
        }
        List<String> got = PairwiseGolden.lines();
        assertEquals(want.size(), got.size(), "lines");
        for (int k = 0; k < want.size(); k++) {
            String[] a = want.get(k).split(" "), b = got.get(k).split(" ");
            assertEquals(a.length, b.length, want.get(k) + " vs " + got.get(k));
            for (int t = 0; t < a.length; t++) {
                if (a[t].matches("-?[0-9.]+(E-?[0-9]+)?") && a[t].contains(".")) {
                    double x = Double.parseDouble(a[t]), y = Double.parseDouble(b[t]);
                    assertEquals(x, y, 1e-6 * Math.max(1, Math.abs(x)), "'" + got.get(k) + "' against '" + want.get(k) + "'");
                } else {
                    assertEquals(a[t], b[t], "'" + got.get(k) + "' against '" + want.get(k) + "'");
                }
            }
        }
    }
}
