package org.structlr.schedule;

/**
 * Passes messages after a fit for as long as passing pays: in chunks of {@code chunk} sweeps, until
 * the dual's decrease per sweep falls below {@code ratio} times the objective decrease of the fit
 * just made, with at least {@code minSweeps} and at most {@code maxSweeps} sweeps.
 *
 * <p>Why: a fit changes the potentials and the messages lag behind; the first sweeps after it
 * recover most of what the fit made possible and later ones recover little. While the next fit
 * would gain about as much as the last one did, a sweep that gains less than a small fraction of
 * that is better spent on the next fit; a sweep that still gains more is cheaper than a fit (one
 * sweep costs far less than an oracle call on the same rows). With messages settled late in
 * learning, the rule stops after {@code minSweeps}; right after large fits it passes longer.
 *
 * <p>Each chunk reads the dual once ({@link Schedule.Passing#dual()}, about one sweep's work).
 */
public record AdaptiveSchedule(int chunk, int minSweeps, int maxSweeps, double ratio) implements Schedule {

    public AdaptiveSchedule {
        if (chunk < 1 || minSweeps < 1 || maxSweeps < minSweeps || !(ratio > 0)) {
            throw new IllegalArgumentException("adaptive schedule: need chunk >= 1, 1 <= minSweeps <= maxSweeps, ratio > 0");
        }
    }

    @Override public String name() { return Schedules.ADAPTIVE; }

    @Override public boolean needsFitGain() { return true; }

    @Override
    public int passAfterFit(Passing engine, Fit fit) {
        engine.iterate(minSweeps);
        int done = minSweeps;
        // threshold per sweep: ratio * fit gain; a fit that gained nothing (or could not be measured) gets only minSweeps
        double threshold = ratio * fit.gain();
        if (!(threshold > 0)) return done;
        double before = engine.dual();
        while (done < maxSweeps) {
            int k = Math.min(chunk, maxSweeps - done);
            engine.iterate(k);
            done += k;
            double after = engine.dual();
            if ((before - after) / k < threshold) break;
            before = after;
        }
        return done;
    }
}
