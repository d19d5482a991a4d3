package org.structlr.learn;

import org.structlr.data.BadInputException;

/**
 * A state the learner will not continue (its oracles ran with other settings, its region functions
 * do not fit the run). The learner does not know where the state came from; whoever loaded it
 * names the checkpoint folder in the one error line ({@link #naming}).
 */
public final class ResumeRefusedException extends BadInputException {
    public ResumeRefusedException(String problem) {
        super("cannot resume: " + problem);
    }

    /** The same refusal as one error naming {@code checkpoint}: {@code CHECKPOINT: cannot resume: ...}. */
    public BadInputException naming(Object checkpoint) {
        return new BadInputException(checkpoint + ": " + getMessage());
    }
}
