package org.structlr.notebooks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Every public type of the API ({@code org.structlr.api}) shows a runnable example in its javadoc,
 * a {@code <pre>{@code ...}</pre>} block, and every such block runs: through JShell, as a
 * notebook cell ({@link NotebookRunner}), with the API, {@code java.nio.file.Path} and
 * {@code java.util.*} imported. So the examples a user copies keep compiling and running.
 */
class ApiExamplesTest {
    private static final Path API = Path.of(System.getProperty("basedir", ".")).resolve("src/main/java/org/structlr/api");
    private static final Pattern BLOCK = Pattern.compile("<pre>\\{@code\\n(.*?)\\n\\s*\\*\\s*}</pre>", Pattern.DOTALL);
    private static final Pattern PUBLIC_TYPE = Pattern.compile("^public (final )?(class|interface|record|enum) (\\w+)", Pattern.MULTILINE);
    static final String IMPORTS = "import org.structlr.api.*;\nimport java.nio.file.Path;\nimport java.util.*;";

    /** The javadoc example blocks of one source file, with the leading {@code " * "} of each line taken off. */
    static List<String> examples(String source) {
        List<String> out = new ArrayList<>();
        Matcher m = BLOCK.matcher(source);
        while (m.find()) {
            StringBuilder b = new StringBuilder();
            for (String line : m.group(1).split("\n")) b.append(line.replaceFirst("^\\s*\\* ?", "")).append('\n');
            out.add(b.toString().replace("&#64;", "@"));
        }
        return out;
    }

    /** Public top-level type name -> its examples. */
    static Map<String, List<String>> apiExamples() throws IOException {
        Map<String, List<String>> out = new LinkedHashMap<>();
        try (Stream<Path> s = Files.list(API)) {
            for (Path f : s.filter(p -> p.toString().endsWith(".java") && !p.endsWith("package-info.java")).sorted().toList()) {
                String src = Files.readString(f);
                Matcher t = PUBLIC_TYPE.matcher(src);
                if (t.find()) out.put(t.group(3), examples(src));
            }
        }
        return out;
    }

    @Test
    void everyPublicTypeHasAnExampleAndEveryExampleRuns() throws IOException {
        Map<String, List<String>> all = apiExamples();
        assertTrue(all.keySet().containsAll(List.of("Crf", "CrfData", "CrfExample", "CrfImages", "CrfServer", "CrfTrainer", "Prediction",
                "TrainingListener", "TrainingReport")), all.keySet().toString());
        List<String> cells = new ArrayList<>();
        cells.add(IMPORTS);
        for (Map.Entry<String, List<String>> e : all.entrySet()) {
            assertFalse(e.getValue().isEmpty(), e.getKey() + ".java: its javadoc has no <pre>{@code ...}</pre> example");
            for (String ex : e.getValue()) cells.add("// " + e.getKey() + "\n" + ex);
        }
        Set<Path> before = examplesFolders();
        try (NotebookRunner r = new NotebookRunner("api javadoc")) {
            Map<Integer, NotebookRunner.CellOutput> shown;
            try {
                shown = r.runAll(NotebookRunner.cells(notebook(cells)), new ArrayList<>());
            } finally {
                for (Path p : examplesFolders()) if (!before.contains(p)) NotebookRunner.deleteTree(p);
            }
            assertEquals(cells.size(), shown.size());
            // the image example's comment says what it prints
            String images = shown.values().stream().map(NotebookRunner.CellOutput::stdout).filter(o -> o.contains("pixels")).findFirst().orElse("");
            assertEquals("[15, 20], 300 pixels\n", images);
        }
    }

    @Test
    void aBrokenExampleFails() throws IOException {
        String src = "/**\n * <pre>{@code\n *   CrfData data = CrfData.denoising(2, 2, 16, 1);\n *   data.noSuchMethod();\n * }</pre>\n */\npublic final class X {}\n";
        List<String> ex = examples(src);
        assertEquals(List.of("  CrfData data = CrfData.denoising(2, 2, 16, 1);\n  data.noSuchMethod();\n"), ex);
        try (NotebookRunner r = new NotebookRunner("broken javadoc")) {
            var f = assertThrows(NotebookRunner.CellFailure.class, () -> r.runAll(NotebookRunner.cells(notebook(List.of(IMPORTS, ex.get(0))))));
            assertTrue(f.getMessage().contains("noSuchMethod"), f.getMessage());
        }
    }

    /** The temporary folders the examples write into ({@code Files.createTempDirectory("structlr-NAME-")}), to delete after the run. */
    private static Set<Path> examplesFolders() throws IOException {
        Path tmp = Path.of(System.getProperty("java.io.tmpdir"));
        try (Stream<Path> s = Files.list(tmp)) {
            return s.filter(p -> p.getFileName().toString().matches("structlr-(model|data|images|served|checkpoints)-\\d+")).collect(Collectors.toSet());
        }
    }

    /** Code cells as a notebook (a markdown cell first, as the runner's numbering expects). */
    private static com.fasterxml.jackson.databind.JsonNode notebook(List<String> code) throws IOException {
        var json = new com.fasterxml.jackson.databind.ObjectMapper();
        var nb = json.createObjectNode();
        var cells = nb.putArray("cells");
        cells.addObject().put("cell_type", "markdown").put("source", "api examples").putObject("metadata");
        for (String c : code) {
            var cell = cells.addObject();
            cell.put("cell_type", "code").put("source", c).putObject("metadata");
            cell.putArray("outputs");
        }
        return nb;
    }
}
