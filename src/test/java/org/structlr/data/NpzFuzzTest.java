package org.structlr.data;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Fuzzing the .npz / .npy readers (Jazzer). Whatever the bytes, reading must end in the reader's
 * own error (a {@link BadInputException} naming the file, or for a bare .npy an
 * {@link Npz.NpyFormatException}): any other exception, an Error, a hang or a crash is a finding.
 * In a plain {@code mvn test} each target replays its seeds (src/test/resources/org/structlr/data/
 * NpzFuzzTestInputs/TARGET) and every finding kept there; {@code scripts/fuzz} fuzzes.
 */
class NpzFuzzTest {
    private static final Path FILE;

    static {
        try {
            FILE = Files.createTempFile("structlr-fuzz", ".npz");
            FILE.toFile().deleteOnExit();
        } catch (IOException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** A whole example file: the zip, every .npy in it and the example's checks (ExampleIO.read). */
    @FuzzTest(maxDuration = "5s")
    void example(byte[] data) throws IOException {
        Files.write(FILE, data);
        try {
            ExampleIO.read(FILE);
        } catch (BadInputException expected) {
            if (!expected.getMessage().startsWith(FILE + ": ")) throw new AssertionError("does not name the file: " + expected.getMessage());
        }
    }

    /** One .npy byte string (header parser, dtypes, shapes, Fortran order). */
    @FuzzTest(maxDuration = "5s")
    void npy(byte[] data) {
        try {
            Npz.parseNpy(data);
        } catch (Npz.NpyFormatException expected) {
            // the reader's own error
        }
    }
}
