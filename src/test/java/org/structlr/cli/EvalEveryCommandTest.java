package org.structlr.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.structlr.data.DenoisingGenerator;

/** {@code --eval-every}: which iterations get a curve row in report.json and curve.csv, and bad values. */
class EvalEveryCommandTest {
    @TempDir
    Path tmp;

    @Test
    void curveRowsAtTheFirstEveryKthAndLastIteration() throws Exception {
        Path data = tmp.resolve("data");
        new DenoisingGenerator().generateTo(data, 2, 2, 10, 10, 5);
        Path report = tmp.resolve("r.json"), csv = tmp.resolve("c.csv");
        TrainPredictCommandTest.Run r = TrainPredictCommandTest.run("train", "--data", data.toString(), "--iterations", "7", "--eval-every", "3",
                "--sweeps", "2", "--eval-sweeps", "2", "--quiet", "--threads", "1", "--report", report.toString(), "--csv", csv.toString());
        assertEquals(0, r.code(), r.err());
        JsonNode root = new ObjectMapper().readTree(report.toFile());
        List<Integer> its = new ArrayList<>();
        for (JsonNode row : root.get("iterations")) {
            its.add(row.get("iteration").asInt());
            assertTrue(row.get("objective").isNumber() && row.get("test_error").isNumber(), "every row is evaluated: " + row);
        }
        assertEquals(List.of(1, 3, 6, 7), its);
        assertEquals(root.get("iterations").get(3).get("test_error").asDouble(), root.get("final").get("test_error").asDouble(), 0.0);
        assertEquals(3, root.get("settings").get("evalEvery").asInt());
        List<String> lines = Files.readAllLines(csv);
        assertEquals(5, lines.size(), String.join("\n", lines));
        assertEquals(List.of("1", "3", "6", "7"), lines.subList(1, 5).stream().map(l -> l.split(",")[0]).toList());
        assertFalse(String.join("", lines).contains("NaN"), "no row without numbers");
        assertTrue(r.out().contains("final: iteration 7"), r.out());
    }

    @Test
    void zeroIsAUsageError() {
        TrainPredictCommandTest.Run r = TrainPredictCommandTest.run("train", "--data", tmp.toString(), "--eval-every", "0", "--quiet");
        assertEquals(2, r.code());
        assertTrue(r.err().contains("--eval-every") && r.err().contains("at least 1"), r.err());
    }
}
