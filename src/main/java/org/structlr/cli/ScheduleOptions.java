package org.structlr.cli;

import org.structlr.data.BadInputException;
import org.structlr.learn.LearnSettings;
import org.structlr.schedule.Schedules;
import picocli.CommandLine.Option;

/** {@code --schedule}: how much message passing follows each fit (train, demo, experiment). */
final class ScheduleOptions {
    @Option(names = "--schedule", defaultValue = Schedules.PAPER, paramLabel = "NAME",
            description = "Learning schedule: paper (fixed --sweeps after every fit, the paper's Alg. 1), adaptive "
                    + "(at least --sweeps, more while the dual still falls fast), extrapolate (the paper's iteration, then "
                    + "a Newton step along the last move of the linear/constant functions' parameters and the messages) "
                    + "or adaptive-extrapolate (both) (default: ${DEFAULT-VALUE}).")
    String schedule;

    /** {@code settings} with the chosen schedule; an unknown name is a usage error naming the option. */
    LearnSettings apply(LearnSettings settings) {
        try {
            return settings.withSchedule(schedule);
        } catch (IllegalArgumentException e) {
            throw new BadInputException("option '--schedule': " + e.getMessage());
        }
    }
}
