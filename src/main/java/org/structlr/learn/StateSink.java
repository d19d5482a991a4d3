package org.structlr.learn;

import java.io.IOException;

/** Receives the learner's whole state at iteration boundaries: checkpoints. */
public interface StateSink {
    /** Whether the state after {@code iteration} of {@code total} iterations is wanted (building it copies every message). */
    boolean wants(int iteration, int total);

    void accept(LearnerState state) throws IOException;

    StateSink NONE = new StateSink() {
        @Override public boolean wants(int iteration, int total) { return false; }
        @Override public void accept(LearnerState state) {}
    };
}
