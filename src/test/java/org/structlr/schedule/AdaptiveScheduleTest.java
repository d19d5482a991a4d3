package org.structlr.schedule;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

class AdaptiveScheduleTest {

    /** An engine whose dual after n sweeps is dualAfter[n]: the stopping rule sees exactly these numbers. */
    static final class ScriptedEngine implements Schedule.Passing {
        final double[] dualAfter;
        int sweeps;

        ScriptedEngine(double... dualAfter) { this.dualAfter = dualAfter; }

        @Override public void iterate(int n) { sweeps += n; }
        @Override public double dual() { return dualAfter[Math.min(sweeps, dualAfter.length - 1)]; }
    }

    /** Dual falling by 10 per sweep for the first 6 sweeps, then by 0.5, then by 0.01. */
    static double[] script() {
        double[] d = new double[100];
        d[0] = 1000;
        for (int n = 1; n < d.length; n++) d[n] = d[n - 1] - (n <= 6 ? 10 : n <= 12 ? 0.5 : 0.01);
        return d;
    }

    @Test
    void passesWhileTheDualFallsFasterThanTheThreshold() {
        // chunks of 2 after 2 sweeps; threshold per sweep 0.1 * gain 20 = 2: sweeps 3-6 fall 10 each (go on),
        // sweeps 7-8 fall 0.5 each (stop): 8 sweeps
        AdaptiveSchedule s = new AdaptiveSchedule(2, 2, 50, 0.1);
        ScriptedEngine e = new ScriptedEngine(script());
        assertEquals(8, s.passAfterFit(e, new Schedule.Fit(1, false, 20)));
        assertEquals(8, e.sweeps);
    }

    @Test
    void smallerFitGainMeansLongerPassing() {
        // threshold 0.1 * 4 = 0.4 per sweep: 0.5 still pays, 0.01 does not: stops after the chunk of sweeps 13-14
        AdaptiveSchedule s = new AdaptiveSchedule(2, 2, 50, 0.1);
        assertEquals(14, s.passAfterFit(new ScriptedEngine(script()), new Schedule.Fit(1, true, 4)));
    }

    @Test
    void boundedByMaxSweepsAndMinSweeps() {
        AdaptiveSchedule s = new AdaptiveSchedule(4, 3, 9, 1e-9);
        assertEquals(9, s.passAfterFit(new ScriptedEngine(script()), new Schedule.Fit(1, false, 20)));
        // a fit that gained nothing (or NaN) gets the minimum only
        assertEquals(3, s.passAfterFit(new ScriptedEngine(script()), new Schedule.Fit(1, false, 0)));
        assertEquals(3, s.passAfterFit(new ScriptedEngine(script()), new Schedule.Fit(1, false, Double.NaN)));
    }

    @Test
    void unknownNamesAreRefusedWithTheKnownOnes() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Schedules.create("fastest", 25));
        assertEquals("unknown schedule 'fastest'; expected one of " + String.join(", ", Schedules.NAMES), e.getMessage());
        assertEquals(25, ((PaperSchedule) Schedules.create("paper", 25)).sweepsPerFit());
    }
}
