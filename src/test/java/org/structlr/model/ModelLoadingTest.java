package org.structlr.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.structlr.cli.Main;
import org.structlr.data.BadInputException;
import org.structlr.data.DenoisingGenerator;

/**
 * A model folder is loaded only as structlr wrote it, also when whoever changed it recomputed every
 * checksum (the manifest has no key): fields in range and consistent with the functions, folders
 * inside the model folder.
 */
class ModelLoadingTest {
    @TempDir
    static Path tmp;
    static Path model;

    @BeforeAll
    static void train() throws IOException {
        Path data = tmp.resolve("data");
        new DenoisingGenerator().generateTo(data, 2, 1, 6, 6, 3);
        model = tmp.resolve("model");
        int code = Main.execute("train", "--data", data.toString(), "--iterations", "1", "--sweeps", "3", "--eval-sweeps", "3",
                "--quiet", "--threads", "1", "--output", model.toString());
        assertEquals(0, code);
    }

    /** A copy of the model with its manifest changed and every checksum recomputed, as an attacker would. */
    static Path tampered(String name, Consumer<ObjectNode> change) throws IOException {
        Path dir = tmp.resolve(name);
        try (Stream<Path> s = Files.walk(model)) {
            for (Path p : s.toList()) Files.copy(p, dir.resolve(model.relativize(p).toString()));
        }
        return resign(dir, change);
    }

    static Path resign(Path dir, Consumer<ObjectNode> change) throws IOException {
        return ModelManifests.rewrite(dir, change);
    }

    static void refused(Path dir, String... parts) {
        BadInputException e = assertThrows(BadInputException.class, () -> CrfModel.load(dir));
        assertTrue(e.getMessage().startsWith(dir.resolve(CrfModel.MANIFEST) + ": "), e.getMessage());
        for (String p : parts) assertTrue(e.getMessage().contains(p), "'" + p + "' in: " + e.getMessage());
    }

    @Test
    void theResignedCopyOfAnUnchangedModelLoads() throws IOException {
        assertEquals(2, CrfModel.load(tampered("same", m -> { })).numLabels(), "the tampering helper itself keeps a model loadable");
    }

    @Test
    void everyFieldIsChecked() throws IOException {
        refused(tampered("labels-neg", m -> m.put("numLabels", -1)), "numLabels must be in 2..4096, got -1");
        refused(tampered("labels-big", m -> m.put("numLabels", 1_000_000)), "numLabels of 1000000 labels exceeds the limit of 4096");
        refused(tampered("labels-text", m -> m.put("numLabels", "2")), "numLabels must be an integer");
        refused(tampered("labels-3", m -> m.put("numLabels", 3)), "the unary function has 2 outputs but numLabels 3 needs 3");
        refused(tampered("eps-zero", m -> m.put("eps", 0.0)), "eps must be a positive finite number, got 0.0");
        refused(tampered("eps-text", m -> m.put("eps", "0.1")), "eps must be a positive finite number");
        refused(tampered("eps-inf", m -> m.put("eps", Double.POSITIVE_INFINITY)), "eps must be a positive finite number");
        refused(tampered("features", m -> m.put("unaryFeatures", 0)), "unaryFeatures must be in 1..");
        refused(tampered("features-wrong", m -> m.put("unaryFeatures", 5)), "the unary function reads 2 features but the manifest says 5");
        refused(tampered("types-none", m -> m.putArray("pairTypes")), "pairTypes must be a non-empty list");
        refused(tampered("settings", m -> m.put("settings", "x")), "settings must be an object");
        refused(tampered("types-many", m -> {
            var a = m.putArray("pairTypes");
            for (int t = 0; t < 5000; t++) a.addObject().put("name", "t" + t).put("folder", "pair-0");
        }), "pairTypes of 5000 edge types exceeds the limit of 4096");
    }

    @Test
    void foldersStayInsideTheModelFolder() throws IOException {
        // a function saved somewhere else, which no checksum of the model covers
        Path outside = tmp.resolve("elsewhere");
        Files.createDirectories(outside);
        try (Stream<Path> s = Files.walk(model.resolve("pair-0"))) {
            for (Path p : s.toList()) Files.copy(p, outside.resolve(model.resolve("pair-0").relativize(p).toString()), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        }
        refused(tampered("dotdot", m -> ((ObjectNode) m.path("pairTypes").get(0)).put("folder", "../elsewhere")), "folder '../elsewhere' leads outside the model folder");
        refused(tampered("absolute", m -> ((ObjectNode) m.path("pairTypes").get(0)).put("folder", outside.toString())), "is not a relative path inside the model folder");
        // a link inside the folder to a folder outside it
        Path linked = tmp.resolve("linked");
        tampered("linked", m -> { });
        Files.createSymbolicLink(linked.resolve("escape"), outside);
        refused(resign(linked, m -> ((ObjectNode) m.path("pairTypes").get(0)).put("folder", "escape")), "leads outside the model folder (through a link)");
        JsonNode ok = CrfModel.JSON.readTree(model.resolve(CrfModel.MANIFEST).toFile());
        assertEquals("pair-0", ok.path("pairTypes").get(0).path("folder").asText());
    }
}
