package org.structlr.data;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Fuzzing the UAI readers (Jazzer): whatever the bytes, reading a model or an evidence file must end
 * in a {@link BadInputException} naming the file, within the reader's limits; any other exception,
 * an Error, a hang or a crash is a finding. A model that reads must also write and read back
 * ({@link UaiWriter}) to the same graph. In a plain {@code mvn test} each target replays its seeds
 * (src/test/resources/org/structlr/data/UaiFuzzTestInputs/TARGET); {@code scripts/fuzz} fuzzes.
 */
class UaiFuzzTest {
    private static final Path FILE, EVID, BACK;

    static {
        try {
            FILE = Files.createTempFile("structlr-fuzz", ".uai");
            EVID = Files.createTempFile("structlr-fuzz", ".evid");
            BACK = Files.createTempFile("structlr-fuzz-back", ".uai");
            FILE.toFile().deleteOnExit();
            EVID.toFile().deleteOnExit();
            BACK.toFile().deleteOnExit();
        } catch (IOException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** A model file: MARKOV or BAYES, factors of any size, every limit. */
    @FuzzTest(maxDuration = "5s")
    void model(byte[] data) throws IOException {
        Files.write(FILE, data);
        UaiReader.Model m;
        try {
            m = UaiReader.read(FILE);
        } catch (BadInputException expected) {
            if (!expected.getMessage().startsWith(FILE + ": ")) throw new AssertionError("does not name the file: " + expected.getMessage());
            return;
        }
        UaiWriter.write(m, BACK);
        UaiReader.Model back = UaiReader.read(BACK);
        if (back.graph().numRegions() != m.graph().numRegions() || back.graph().numEdges() != m.graph().numEdges()) {
            throw new AssertionError("a written model reads back with another graph");
        }
    }

    /** An evidence file for a model of 4 variables with 2, 3, 1 and 4 labels. */
    @FuzzTest(maxDuration = "5s")
    void evidence(byte[] data) throws IOException {
        Files.write(EVID, data);
        try {
            UaiEvidence.read(EVID, new int[] {2, 3, 1, 4});
        } catch (BadInputException expected) {
            if (!expected.getMessage().startsWith(EVID + ": ")) throw new AssertionError("does not name the file: " + expected.getMessage());
        }
    }
}
