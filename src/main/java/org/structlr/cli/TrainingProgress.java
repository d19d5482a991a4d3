package org.structlr.cli;

import java.util.Locale;
import me.tongfei.progressbar.ConsoleProgressBarConsumer;
import me.tongfei.progressbar.ProgressBar;
import me.tongfei.progressbar.ProgressBarBuilder;
import me.tongfei.progressbar.ProgressBarStyle;
import org.structlr.learn.IterationRecord;
import org.structlr.learn.LearnListener;

/** A progress bar with time left, and one line per iteration (objective, errors) on stderr. */
final class TrainingProgress implements LearnListener, AutoCloseable {
    private final ProgressBar bar;

    TrainingProgress(String task, int total, boolean quiet) {
        bar = quiet ? null : new ProgressBarBuilder().setTaskName(task).setInitialMax(total)
                .setStyle(ProgressBarStyle.ASCII).setUpdateIntervalMillis(500)
                .setConsumer(new ConsoleProgressBarConsumer(System.err, 160)).showSpeed().build();
    }

    /** Marks {@code done} iterations as already done (a resumed run). */
    void skip(int done) {
        if (bar != null) bar.stepTo(done);
    }

    /** The numbers of the latest evaluated iteration. */
    @Override
    public void onIteration(IterationRecord r, int totalIterations) {
        if (bar == null) return;
        bar.setExtraMessage(String.format(Locale.ROOT, " it %d: R=%.4f train=%.4f test=%.4f", r.iteration(), r.objective(), r.trainError(), r.testError()));
    }

    @Override
    public void onProgress(int iteration, int totalIterations) {
        if (bar != null) bar.step();
    }

    @Override
    public void close() {
        if (bar != null) bar.close();
    }
}
