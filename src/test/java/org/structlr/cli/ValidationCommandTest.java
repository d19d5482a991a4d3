package org.structlr.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.structlr.data.Dataset;
import org.structlr.data.DenoisingGenerator;
import org.structlr.metrics.Evaluation;
import org.structlr.model.CrfModel;

/**
 * train --val-every K --patience P: a line per check, the checks in the report, the model of the
 * best check saved (its val mean IoU, measured again here, is the best the report lists), stopping
 * where patience says; and the option errors.
 */
class ValidationCommandTest {
    @TempDir
    static Path tmp;

    static Path data;

    @BeforeAll
    static void data() throws IOException {
        data = tmp.resolve("data");
        new DenoisingGenerator().generateTo(data, 4, 2, 14, 14, 5);
        Files.createDirectories(data.resolve("val"));
        Files.move(data.resolve("test/001.npz"), data.resolve("val/001.npz"));
    }

    static TrainPredictCommandTest.Run train(String... extra) {
        List<String> a = new ArrayList<>(List.of("train", "--data", data.toString(), "--iterations", "12", "--sweeps", "3",
                "--eval-sweeps", "3", "--quiet", "--threads", "1"));
        a.addAll(List.of(extra));
        return TrainPredictCommandTest.run(a.toArray(String[]::new));
    }

    @Test
    void keepsTheBestCheckedModelAndStopsOnPatience() throws IOException {
        Path model = tmp.resolve("model"), report = tmp.resolve("r.json");
        TrainPredictCommandTest.Run r = train("--val-every", "2", "--patience", "2", "--output", model.toString(), "--report", report.toString());
        assertEquals(0, r.code(), r.err());
        JsonNode checks = new ObjectMapper().readTree(report.toFile()).get("validation");
        assertTrue(checks.size() >= 1, r.out());
        // the checks: iterations 2, 4, ...; the first highest mean IoU is the best; patience 2 stops after two checks without a higher one
        double best = Double.NEGATIVE_INFINITY;
        int bestIt = -1, since = 0, expectedLast = 12;
        for (int k = 0; k < checks.size(); k++) {
            JsonNode c = checks.get(k);
            int it = c.get("iteration").asInt();
            assertEquals(Math.min(2 * (k + 1), 12), it);
            assertTrue(r.out().contains(String.format(java.util.Locale.ROOT, "val: iteration %d  pixel accuracy %.4f  mean IoU %.4f",
                    it, c.get("pixel_accuracy").asDouble(), c.get("mean_iou").asDouble())), r.out());
            boolean better = c.get("mean_iou").asDouble() > best;
            assertEquals(better, c.get("best").asBoolean(), "check " + it);
            if (better) {
                best = c.get("mean_iou").asDouble();
                bestIt = it;
                since = 0;
            } else if (++since == 2) {
                expectedLast = it;
                assertEquals(k, checks.size() - 1, "no check after patience ran out");
            }
        }
        assertTrue(expectedLast < 12, "the run must level off for this test to say anything: " + checks);
        assertEquals(expectedLast, checks.get(checks.size() - 1).get("iteration").asInt());
        CrfModel m = CrfModel.load(model);
        JsonNode v = new ObjectMapper().valueToTree(m.provenance().get("validation"));
        assertEquals(bestIt, v.get("keptIteration").asInt());
        assertEquals(expectedLast, v.get("lastIteration").asInt());
        assertEquals(expectedLast < 12, v.get("stoppedEarly").asBoolean());
        assertTrue(r.out().contains("validation: kept the functions of iteration " + bestIt), r.out());
        assertEquals(best, Evaluation.confusion(m, Dataset.load(data).val(), 500, 1e-5).meanIou(), 1e-3);
    }

    @Test
    void optionErrors() throws IOException {
        TrainPredictCommandTest.assertUsageError(train("--patience", "2"), "--patience", "--val-every");
        TrainPredictCommandTest.assertUsageError(train("--val-every", "-1"), "--val-every", "at least 0");
        TrainPredictCommandTest.assertUsageError(train("--val-every", "1", "--val-sweeps", "0"), "--val-sweeps", "at least 1");
        Path noVal = tmp.resolve("noval");
        new DenoisingGenerator().generateTo(noVal, 2, 1, 8, 8, 5);
        TrainPredictCommandTest.Run r = TrainPredictCommandTest.run("train", "--data", noVal.toString(), "--iterations", "2", "--quiet",
                "--threads", "1", "--val-every", "1");
        TrainPredictCommandTest.assertUsageError(r, noVal.toString(), "--val-every", "val examples");
    }
}
