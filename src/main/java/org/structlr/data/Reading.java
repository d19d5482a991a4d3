package org.structlr.data;

import java.io.IOException;

/**
 * Reads an input so that running out of memory or stack <em>because of that input</em> is a bad
 * input naming the file (exit 2), like any other: a reader's own limits stop hostile sizes first,
 * but an input within every limit can still need more heap than the JVM was given, and an error
 * raised while reading it is about it.
 */
public final class Reading {
    private Reading() {}

    /** A read that may throw IOException. */
    @FunctionalInterface
    public interface Body<T> {
        T read() throws IOException;
    }

    /**
     * Runs {@code body}; an {@link OutOfMemoryError} or {@link StackOverflowError} it raises becomes
     * a {@link BadInputException} naming {@code file}.
     */
    public static <T> T guard(Object file, Body<T> body) throws IOException {
        try {
            return body.read();
        } catch (OutOfMemoryError e) {
            throw new BadInputException(file + ": needs more memory than this JVM has to read it (" + e.getMessage()
                    + "; max heap " + (Runtime.getRuntime().maxMemory() >> 20) + " MB, raise it with -Xmx)");
        } catch (StackOverflowError e) {
            throw new BadInputException(file + ": nested too deeply to read (stack overflow)");
        }
    }
}
