package org.structlr.data;

import java.io.BufferedReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;

/** Opens a text input file (UAI models, evidence) with one clear error for each way it can fail. */
final class TextFiles {
    private TextFiles() {}

    /** What a file's content is turned into; {@code file} names the source in error messages. */
    interface Parser<T> {
        T parse(Path file, BufferedReader in) throws IOException;
    }

    /** Parses {@code file}; a folder, a missing or unreadable file is a {@link BadInputException} naming it. */
    static <T> T read(Path file, String kind, Parser<T> parser) {
        if (Files.isDirectory(file)) throw new BadInputException(file, "is a directory, not " + kind);
        try (BufferedReader in = Files.newBufferedReader(file, StandardCharsets.ISO_8859_1)) {
            return parser.parse(file, in);
        } catch (NoSuchFileException e) {
            throw new BadInputException(file, "file not found", e);
        } catch (AccessDeniedException e) {
            throw new BadInputException(file, "cannot be read (permission denied)", e);
        } catch (IOException e) {
            throw new BadInputException(file, "cannot be read: " + e.getMessage(), e);
        }
    }
}
