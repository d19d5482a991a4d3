package org.structlr.experiment;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.structlr.data.Dataset;
import org.structlr.data.DenoisingGenerator;
import org.structlr.learn.IterationRecord;
import org.structlr.learn.LearnListener;
import org.structlr.learn.LearnSettings;
import org.structlr.learn.Training;

class ScheduleComparisonTest {

    static IterationRecord rec(int it, double r, double testErr, double seconds) {
        return new IterationRecord(it, r, Double.NaN, testErr, seconds + 1, seconds);
    }

    /** The time to the reference's final objective is the first iteration at or below it, as a share of the reference's time. */
    @Test
    void tableGivesTheTimeToTheReferenceObjective() {
        ScheduleComparison.Run ref = new ScheduleComparison.Run("paper", List.of(rec(1, 0.9, 0.3, 1.0), rec(2, 0.5, 0.2, 4.0)));
        ScheduleComparison.Run fast = new ScheduleComparison.Run("extrapolate",
                List.of(rec(1, 0.6, 0.25, 0.5), rec(2, 0.45, 0.1, 1.0), rec(3, 0.3, 0.05, 1.5)));
        ScheduleComparison.Run slow = new ScheduleComparison.Run("adaptive", List.of(rec(1, 0.8, 0.3, 2.0), rec(2, 0.7, Double.NaN, 3.0)));
        assertEquals(1.0, fast.secondsToReach(0.5));
        assertTrue(Double.isNaN(slow.secondsToReach(0.5)));
        assertEquals(0.3, slow.finalTestError()); // the last evaluated one
        String table = ScheduleComparison.table(List.of(ref, fast, slow));
        assertTrue(table.contains("| paper | 2 | 4.0 | 0.500000 | 0.2000 | 4.0 | 1.00 |"), table);
        assertTrue(table.contains("| extrapolate | 3 | 1.5 | 0.300000 | 0.0500 | 1.0 | 0.25 |"), table);
        assertTrue(table.contains("| adaptive | 2 | 3.0 | 0.700000 | 0.3000 | not reached | - |"), table);
    }

    /** The untimed warm-up changes no number: every timed run equals a run of its own in a fresh learner. */
    @Test
    void warmUpLeavesTheRunsAsTheyWouldBeAlone(@TempDir Path tmp) throws IOException {
        Dataset data = new DenoisingGenerator().generate(2, 1, 16, 16, 5);
        LearnSettings s = new LearnSettings(3, 0.1, 4, 5, 1, 9);
        Experiment exp = new Experiment("denoise", data, s, 1);
        List<ScheduleComparison.Run> runs = ScheduleComparison.run(exp, "linear", "linear", List.of("paper", "extrapolate"), tmp,
                name -> LearnListener.NONE);
        for (ScheduleComparison.Run r : runs) {
            List<IterationRecord> alone = Training.train(data, "linear", "linear", s.withSchedule(r.schedule()), 1, LearnListener.NONE).curve();
            assertEquals(alone.size(), r.curve().size());
            for (int k = 0; k < alone.size(); k++) {
                assertEquals(alone.get(k).objective(), r.curve().get(k).objective(), 0.0, r.schedule() + " iteration " + (k + 1));
                assertEquals(alone.get(k).testError(), r.curve().get(k).testError(), 0.0, r.schedule() + " iteration " + (k + 1));
            }
        }
        for (String f : new String[] {"schedules.md", "schedules.csv", "time-to-objective.png", "time-to-error.png", "paper/curve.csv",
                "extrapolate/report.json"}) {
            assertTrue(Files.size(tmp.resolve(f)) > 0, f);
        }
        assertTrue(Files.readString(tmp.resolve("schedules.md")).contains("warm-up of 2 iterations"));
    }
}
