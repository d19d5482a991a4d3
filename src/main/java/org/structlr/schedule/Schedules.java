package org.structlr.schedule;

import java.util.List;
import java.util.Locale;

/** The schedules by the names {@code --schedule} takes. */
public final class Schedules {
    public static final String PAPER = "paper";
    public static final String ADAPTIVE = "adaptive";
    public static final String EXTRAPOLATE = "extrapolate";
    public static final String ADAPTIVE_EXTRAPOLATE = "adaptive-extrapolate";

    public static final List<String> NAMES = List.of(PAPER, ADAPTIVE, EXTRAPOLATE, ADAPTIVE_EXTRAPOLATE);

    private Schedules() {}

    private static AdaptiveSchedule adaptive(int sweepsPerFit) {
        return new AdaptiveSchedule(5, Math.max(1, Math.min(sweepsPerFit, 10)), 20 * sweepsPerFit, 0.01);
    }

    /**
     * The schedule of that name; {@code sweepsPerFit} is the paper schedule's fixed count and the
     * adaptive schedule's minimum.
     *
     * @throws IllegalArgumentException for an unknown name, listing the known ones
     */
    public static Schedule create(String name, int sweepsPerFit) {
        switch (name.trim().toLowerCase(Locale.ROOT)) {
            case PAPER: return new PaperSchedule(sweepsPerFit);
            case ADAPTIVE: return adaptive(sweepsPerFit);
            case EXTRAPOLATE: return new ExtrapolatingSchedule(EXTRAPOLATE, new PaperSchedule(sweepsPerFit));
            case ADAPTIVE_EXTRAPOLATE: return new ExtrapolatingSchedule(ADAPTIVE_EXTRAPOLATE, adaptive(sweepsPerFit));
            default: throw new IllegalArgumentException("unknown schedule '" + name + "'; expected one of " + String.join(", ", NAMES));
        }
    }
}
