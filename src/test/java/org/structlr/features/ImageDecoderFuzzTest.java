package org.structlr.features;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.structlr.data.BadInputException;

/**
 * Fuzzing the image decoder (Jazzer): any bytes decode or end in a {@link BadInputException}
 * naming the file; anything else is a finding. The pixel limit is lowered to 4 M while fuzzing so
 * that headers declaring large images are refused quickly (the check is the same at any value).
 */
class ImageDecoderFuzzTest {
    private static final Path NAME = Path.of("fuzzed.jpg");

    @BeforeAll
    static void smallLimit() {
        System.setProperty("structlr.limit.imagePixels", "4000000");
    }

    @AfterAll
    static void defaultLimit() {
        System.clearProperty("structlr.limit.imagePixels");
    }

    @FuzzTest(maxDuration = "5s")
    void decode(byte[] data) {
        try {
            ImageDecoder.Decoded d = ImageDecoder.decode(NAME, data, 3);
            if (d.planes().length != 3 || d.planes()[0].length != d.height() * d.width()) throw new AssertionError("inconsistent result");
        } catch (BadInputException expected) {
            if (!expected.getMessage().startsWith(NAME + ": ")) throw new AssertionError("does not name the file: " + expected.getMessage());
        }
    }
}
