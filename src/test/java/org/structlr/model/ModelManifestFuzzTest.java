package org.structlr.model;

import com.code_intelligence.jazzer.junit.FuzzTest;
import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
import org.structlr.data.BadInputException;

/**
 * Fuzzing model.json (Jazzer): the JSON parser with the manifest's settings, then every field check
 * ({@link ManifestFields}) and the folder confinement ({@link CrfModel#inside}). The checksum gate is
 * left out on purpose: a manifest re-signed by an attacker passes it, so what follows must hold on
 * its own. Anything but the reader's own errors is a finding.
 */
class ModelManifestFuzzTest {
    private static final Path DIR = Path.of("fuzzed-model");

    @FuzzTest(maxDuration = "5s")
    void manifest(byte[] data) throws Exception {
        JsonNode m;
        try {
            m = CrfModel.JSON.readTree(data);
        } catch (java.io.IOException expected) {
            // the loader's "unreadable model manifest" (exit 2): Jackson's own errors, and also
            // java.io.CharConversionException for bytes it takes for UTF-32 (found by fuzzing; the
            // input is kept as a seed: crash-4886dd37...)
            return;
        }
        if (m == null || !m.isObject()) return;
        try {
            ManifestFields f = ManifestFields.check(DIR.resolve(CrfModel.MANIFEST), m);
            for (String folder : f.pairFolders()) {
                Path p = CrfModel.inside(DIR, folder, DIR.resolve(CrfModel.MANIFEST));
                if (!p.normalize().startsWith(DIR.toAbsolutePath().normalize())) throw new AssertionError("escaped: " + folder + " -> " + p);
            }
        } catch (BadInputException expected) {
            if (!expected.getMessage().startsWith(DIR.resolve(CrfModel.MANIFEST) + ": ")) throw new AssertionError(expected.getMessage());
        }
    }
}
