package org.structlr.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.structlr.data.DenoisingGenerator;
import org.structlr.learn.LearnListener;
import org.structlr.learn.LearnSettings;
import org.structlr.learn.Training;

/** structlr export: the happy path and bad input (exit 2, the path named, nothing written). */
class ExportCommandTest {
    @TempDir
    static Path shared;

    @TempDir
    Path tmp;

    static Path model;

    record Run(int code, String out, String err) {}

    static Run run(String... args) {
        StringWriter out = new StringWriter(), err = new StringWriter();
        int code = Main.execute(new PrintWriter(out, true), new PrintWriter(err, true), args);
        return new Run(code, out.toString(), err.toString());
    }

    @BeforeAll
    static void trainOnce() throws IOException {
        model = shared.resolve("model");
        Training.train(new DenoisingGenerator().generate(2, 2, 12, 12, 4), "linear", "const",
                new LearnSettings(2, 0.1, 3, 3, 4), 1, LearnListener.NONE).model().save(model);
    }

    static List<Path> listing(Path dir) throws IOException {
        try (Stream<Path> s = Files.list(dir)) {
            return s.sorted().toList();
        }
    }

    @Test
    void exportsEveryFactorType() throws IOException {
        Path out = tmp.resolve("export");
        Run r = run("export", "--model", model.toString(), "--output", out.toString(), "--threads", "1", "--graph", "grid");
        assertEquals(0, r.code(), r.err());
        JsonNode m = new ObjectMapper().readTree(out.resolve("manifest.json").toFile());
        assertEquals("structlr-export", m.path("format").asText());
        assertEquals("grid4", m.path("graph").path("kind").asText());
        JsonNode types = m.path("factorTypes");
        assertEquals(3, types.size());
        assertEquals("linear", types.get(0).path("kind").asText());
        assertEquals("constant", types.get(1).path("kind").asText());
        for (JsonNode t : types) assertTrue(Files.isRegularFile(out.resolve(t.path("file").asText())), t.toString());
        assertEquals(List.of(out.resolve("manifest.json"), out.resolve("pair-0.zip"), out.resolve("pair-1.zip"), out.resolve("unary.zip")),
                listing(out));
        // running again replaces the earlier export
        assertEquals(0, run("export", "--model", model.toString(), "--output", out.toString(), "--quiet").code());
        assertEquals(List.of(out), listing(tmp));
    }

    @Test
    void missingModelFolder() throws IOException {
        Path missing = tmp.resolve("no-model");
        Path out = tmp.resolve("export");
        Run r = run("export", "--model", missing.toString(), "--output", out.toString());
        assertEquals(2, r.code(), r.err());
        assertTrue(r.err().contains(missing.toString()), r.err());
        assertFalse(Files.exists(out));
        assertEquals(List.of(), listing(tmp));
    }

    @Test
    void unwritableOutput() throws IOException {
        Path file = tmp.resolve("a-file");
        Files.writeString(file, "x");
        Path out = file.resolve("export");
        Run r = run("export", "--model", model.toString(), "--output", out.toString());
        assertEquals(2, r.code(), r.err());
        assertTrue(r.err().contains(out.toString()), r.err());
        assertEquals(List.of(file), listing(tmp));
        assertEquals("x", Files.readString(file));
    }

    @Test
    void foreignOutputFolderIsKept() throws IOException {
        Path out = tmp.resolve("photos");
        Files.createDirectories(out);
        Files.writeString(out.resolve("a.txt"), "mine");
        Run r = run("export", "--model", model.toString(), "--output", out.toString());
        assertEquals(2, r.code(), r.err());
        assertTrue(r.err().contains("not replacing"), r.err());
        assertEquals(List.of(out.resolve("a.txt")), listing(out));
        assertEquals(List.of(out), listing(tmp));
    }

    @Test
    void badGraphOption() {
        Run r = run("export", "--model", model.toString(), "--output", tmp.resolve("e").toString(), "--graph", "torus");
        assertEquals(2, r.code(), r.err());
        assertTrue(r.err().contains("--graph"), r.err());
        assertFalse(Files.exists(tmp.resolve("e")));
    }
}
