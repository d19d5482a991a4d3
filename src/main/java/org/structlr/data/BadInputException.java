package org.structlr.data;

import java.nio.file.Path;

/**
 * Input a user gave us is wrong: a missing or malformed file, a wrong shape, a value out of range.
 * The message names the file (when there is one) and the problem; the CLI prints it alone and exits 2.
 */
public class BadInputException extends RuntimeException {
    public BadInputException(String message) {
        super(message);
    }

    public BadInputException(Path file, String problem) {
        super(file + ": " + problem);
    }

    public BadInputException(Path file, String problem, Throwable cause) {
        super(file + ": " + problem, cause);
    }
}
