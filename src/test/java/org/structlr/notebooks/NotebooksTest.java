package org.structlr.notebooks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.awt.image.BufferedImage;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/**
 * Every notebook in {@code notebooks/} is valid nbformat 4 JSON for the IJava kernel, and every code
 * cell runs, in order, through JShell in this JVM (see {@link NotebookRunner} for the cells it
 * skips). A self-check makes sure that broken cells are reported.
 */
class NotebooksTest {
    private static final Path DIR = Path.of(System.getProperty("basedir", ".")).resolve("notebooks");
    private static final List<String> EXPECTED = List.of("01-denoising.ipynb", "02-your-own-data.ipynb", "03-new-oracle.ipynb", "04-deep-network.ipynb");

    static List<Path> notebooks() throws IOException {
        try (Stream<Path> s = Files.list(DIR)) {
            return s.filter(p -> p.getFileName().toString().endsWith(".ipynb")).sorted().toList();
        }
    }

    @Test
    void notebooksAreValidNbformat4ForIJava() throws IOException {
        List<Path> nbs = notebooks();
        for (String name : EXPECTED) assertTrue(nbs.contains(DIR.resolve(name)), "missing notebook " + name);
        for (Path nb : nbs) {
            JsonNode json = NotebookRunner.read(nb);
            List<String> problems = NotebookRunner.formatProblems(json);
            assertTrue(problems.isEmpty(), nb.getFileName() + ": " + problems);
            List<NotebookRunner.Cell> cells = NotebookRunner.cells(json);
            assertFalse(cells.isEmpty(), nb.getFileName() + " has no cells");
            NotebookRunner.Cell first = cells.get(0);
            assertEquals("markdown", first.type(), nb.getFileName() + ": the first cell documents the set-up");
            assertTrue(first.source().contains("%jars"), nb.getFileName() + ": the first cell explains how to put structlr on the class path");
            for (NotebookRunner.Cell c : cells) {
                if (!c.type().equals("code")) continue;
                boolean magic = c.source().lines().anyMatch(l -> l.strip().startsWith("%"));
                if (magic) {
                    assertTrue(c.tags().contains(NotebookRunner.SKIP_TAG),
                            nb.getFileName() + ", cell " + c.number() + ": an IJava magic belongs in a cell tagged " + NotebookRunner.SKIP_TAG);
                }
            }
        }
    }

    @TestFactory
    Stream<DynamicTest> everyCodeCellRuns() throws IOException {
        return notebooks().stream().map(nb -> DynamicTest.dynamicTest(nb.getFileName().toString(), () -> {
            JsonNode json = NotebookRunner.read(nb);
            List<NotebookRunner.Cell> cells = NotebookRunner.cells(json);
            Map<Integer, NotebookRunner.CellOutput> shown = assertTimeoutPreemptively(Duration.ofSeconds(180), () -> {
                try (NotebookRunner r = new NotebookRunner(nb.getFileName().toString())) {
                    try {
                        List<String> skipped = new ArrayList<>();
                        Map<Integer, NotebookRunner.CellOutput> out = r.runAll(cells, skipped);
                        System.out.println(nb.getFileName() + ": skipped " + skipped);
                        return out;
                    } finally {
                        NotebookOutputs.cleanUp(r.valueOf("work"));
                    }
                }
            }, nb.getFileName() + " took too long");
            // the stored outputs are this run's (up to numbers and temporary paths): scripts/notebooks regenerates them
            for (NotebookRunner.Cell c : cells) {
                if (!c.type().equals("code")) continue;
                JsonNode stored = json.path("cells").get(c.number() - 1).path("outputs");
                NotebookRunner.CellOutput now = shown.get(c.number());
                List<String> want = now == null ? List.of() : NotebookOutputs.comparable(now);
                assertEquals(want, NotebookOutputs.comparable(stored), nb.getFileName() + ", cell " + c.number()
                        + ": stored outputs differ from a new run; regenerate them with scripts/notebooks");
                String numbers = NotebookOutputs.numbersDiffer(c.tags(), NotebookOutputs.numbers(stored),
                        now == null ? List.of() : NotebookOutputs.numbers(NotebookOutputs.outputs(now, 1)));
                assertNull(numbers, nb.getFileName() + ", cell " + c.number() + ": " + numbers);
            }
        }));
    }

    @Test
    void notebooksAreStoredWithOutputsInJupytersLayout() throws IOException {
        int images = 0;
        for (Path nb : notebooks()) {
            JsonNode json = NotebookRunner.read(nb);
            assertEquals(NotebookOutputs.utf8(nb), NotebookOutputs.jupyterJson(json), nb.getFileName() + " is not in Jupyter's layout");
            int withOutput = 0;
            for (JsonNode c : json.path("cells")) {
                if (!c.path("cell_type").asText().equals("code")) continue;
                if (c.path("outputs").size() > 0) withOutput++;
                for (JsonNode o : c.path("outputs")) {
                    String png = o.path("data").path("image/png").asText(null);
                    if (png == null) continue;
                    BufferedImage im = ImageIO.read(new ByteArrayInputStream(Base64.getDecoder().decode(png)));
                    assertNotNull(im, nb.getFileName() + ": a stored image/png that does not decode");
                    images++;
                }
            }
            assertTrue(withOutput >= 3, nb.getFileName() + " is stored without outputs");
        }
        assertTrue(images >= 3, "the plots are stored as PNG images: " + images);
    }

    @Test
    void outputsAreCapturedAsIJavaShowsThem() throws IOException {
        List<NotebookRunner.Cell> cells = fake(
                "System.out.println(\"one\");\nSystem.out.print(\"two\")",
                "int x = 20;\nx + 22",
                "int y = 5;",
                "var im = new java.awt.image.BufferedImage(3, 2, java.awt.image.BufferedImage.TYPE_INT_RGB);\nim");
        try (NotebookRunner r = new NotebookRunner("outputs.ipynb")) {
            Map<Integer, NotebookRunner.CellOutput> shown = r.runAll(cells, new ArrayList<>());
            assertEquals(new NotebookRunner.CellOutput("one\ntwo", null, null), shown.get(2));
            assertEquals(new NotebookRunner.CellOutput("", "42", null), shown.get(3));
            assertEquals(new NotebookRunner.CellOutput("", null, null), shown.get(4));
            NotebookRunner.CellOutput img = shown.get(5);
            assertEquals("", img.stdout());
            assertNull(img.result());
            BufferedImage im = ImageIO.read(new ByteArrayInputStream(Base64.getDecoder().decode(img.png())));
            assertEquals(3, im.getWidth());
            assertEquals(2, im.getHeight());
            // what the stored-output check compares: numbers and temporary paths masked, words not
            String tmp = System.getProperty("java.io.tmpdir").replaceAll("/$", "");
            assertEquals(NotebookOutputs.comparable(new NotebookRunner.CellOutput("error 0.1234 in 1.5 s, " + tmp + "/structlr-a1/x\n", "3", null)),
                    NotebookOutputs.comparable(new NotebookRunner.CellOutput("error 0.1301 in 12.25 s, " + tmp + "/structlr-b22/x\n", "4", null)));
            // tagged cells compare their numbers too: exactly, or within a tolerance
            assertNull(NotebookOutputs.numbersDiffer(List.of(), List.of(1.0), List.of(2.0)));
            assertNull(NotebookOutputs.numbersDiffer(List.of(NotebookOutputs.CLOSE), List.of(0.1234, 40.0), List.of(0.1301, 41.0)));
            assertNotNull(NotebookOutputs.numbersDiffer(List.of(NotebookOutputs.CLOSE), List.of(0.1234), List.of(0.2234)));
            assertNotNull(NotebookOutputs.numbersDiffer(List.of(NotebookOutputs.EXACT), List.of(24.0), List.of(25.0)));
            assertNotNull(NotebookOutputs.numbersDiffer(List.of(NotebookOutputs.EXACT), List.of(24.0), List.of(24.0, 1.0)));
            assertEquals(List.of(0.25, 3.0), NotebookOutputs.numbers(NotebookOutputs.outputs(
                    new NotebookRunner.CellOutput("error 0.25 after 3 iterations in " + tmp + "/structlr-9/x\n", null, null), 1)));
            assertNotEquals(NotebookOutputs.comparable(new NotebookRunner.CellOutput("test error 0.1\n", null, null)),
                    NotebookOutputs.comparable(new NotebookRunner.CellOutput("train error 0.1\n", null, null)));
            assertNotEquals(NotebookOutputs.comparable(new NotebookRunner.CellOutput("", "3", null)),
                    NotebookOutputs.comparable(new NotebookRunner.CellOutput("", null, "iVBOR")));
            JsonNode out = NotebookOutputs.outputs(shown.get(2), 1);
            assertEquals("[{\"name\":\"stdout\",\"output_type\":\"stream\",\"text\":[\"one\\n\",\"two\"]}]", out.toString());
        }
    }

    // ----------------------------------------------------------------------------------------------
    // self-check: the runner must be able to fail

    private static final ObjectMapper JSON = new ObjectMapper();

    private static List<NotebookRunner.Cell> fake(String... codeCells) throws IOException {
        StringBuilder b = new StringBuilder("{\"nbformat\":4,\"nbformat_minor\":5,\"metadata\":{\"kernelspec\":"
                + "{\"name\":\"java\",\"language\":\"java\",\"display_name\":\"Java\"}},\"cells\":[");
        b.append("{\"id\":\"m\",\"cell_type\":\"markdown\",\"metadata\":{},\"source\":\"# set-up: %jars\"}");
        for (int i = 0; i < codeCells.length; i++) {
            String tags = codeCells[i].startsWith("%") ? "{\"tags\":[\"skip-test\"]}" : "{}";
            b.append(",{\"id\":\"c").append(i).append("\",\"cell_type\":\"code\",\"metadata\":").append(tags)
                    .append(",\"execution_count\":null,\"outputs\":[],\"source\":").append(JSON.writeValueAsString(codeCells[i])).append("}");
        }
        JsonNode nb = JSON.readTree(b.append("]}").toString());
        assertEquals(List.of(), NotebookRunner.formatProblems(nb));
        return NotebookRunner.cells(nb);
    }

    /** One JShell for all the broken notebooks (a fresh one per case costs a second each). */
    private NotebookRunner shared;

    private NotebookRunner.CellFailure failure(String... codeCells) throws IOException {
        List<NotebookRunner.Cell> cells = fake(codeCells);
        return assertThrows(NotebookRunner.CellFailure.class, () -> shared.runAll(cells));
    }

    @Test
    void brokenCellsAreReported() throws IOException {
        try (NotebookRunner r = new NotebookRunner("broken.ipynb")) {
            shared = r;
            brokenCases();
        }
    }

    private void brokenCases() throws IOException {
        // a type error in the third cell (cells count from 1, the markdown cell included)
        NotebookRunner.CellFailure f = failure("int a = 1;", "String s = \"x\";\nint b = s;");
        assertEquals(3, f.cell);
        assertTrue(f.getMessage().startsWith("broken.ipynb, cell 3: "), f.getMessage());
        assertTrue(f.getMessage().contains("incompatible types"), f.getMessage());

        // an exception thrown while evaluating
        f = failure("var xs = new java.util.ArrayList<Integer>();", "xs.get(3)");
        assertEquals(3, f.cell);
        assertTrue(f.getMessage().contains("IndexOutOfBoundsException"), f.getMessage());

        // an undefined name, and a class that uses one
        assertTrue(failure("undefinedMethod(1);").getMessage().contains("cannot find symbol"));
        assertTrue(failure("class A { B b; }").getMessage().contains("undefined"));
        assertTrue(failure("int f() { return g(); }", "f()").getMessage().contains("undefined method g()"));
        // a syntax error, and a cell that never ends
        assertEquals(2, failure("int x = ;").cell);
        assertTrue(failure("void f() {").getMessage().contains("incomplete"));
        // a magic is not Java: it fails unless the cell is tagged skip-test
        assertEquals(2, failure("int ok = 1;\n%jars target/structlr.jar").cell);
    }

    @Test
    void cellsRunInOrderAndSkipRulesHold() throws IOException {
        List<NotebookRunner.Cell> cells = fake(
                "%jars ../target/structlr.jar",
                "// skip-test\nthrow new IllegalStateException(\"must be skipped\");",
                "int n = org.structlr.data.Dataset.class.getSimpleName().length();",
                "import java.util.*;\nList<Integer> xs = new ArrayList<>();\nfor (int i = 0; i < n; i++) xs.add(i)",
                "int total = xs.stream().mapToInt(Integer::intValue).sum();",
                "int twice() { return once() * 2; }\nint once() { return total; }\nint both = twice();");
        try (NotebookRunner r = new NotebookRunner("fine.ipynb")) {
            List<String> skipped = r.runAll(cells);
            assertEquals(2, skipped.size(), skipped.toString());
            assertTrue(skipped.get(1).contains("skip-test"), skipped.toString());
            assertEquals("21", r.valueOf("total"));   // 0 + 1 + ... + 6 ("Dataset" has 7 letters)
            assertNotNull(r.valueOf("xs"));
            assertEquals("42", r.valueOf("both"));   // a forward reference inside one cell resolves
        }
    }

    @Test
    void formatProblemsAreFound() throws IOException {
        JsonNode bad = JSON.readTree("{\"nbformat\":3,\"nbformat_minor\":0,\"metadata\":{\"kernelspec\":{\"name\":\"python3\","
                + "\"language\":\"python\",\"display_name\":\"Python 3\"}},\"cells\":[{\"cell_type\":\"code\",\"metadata\":{},\"source\":\"x\"},"
                + "{\"cell_type\":\"heading\",\"metadata\":{},\"source\":\"\"}]}");
        List<String> p = NotebookRunner.formatProblems(bad);
        assertTrue(p.stream().anyMatch(s -> s.contains("nbformat must be")), p.toString());
        assertTrue(p.stream().anyMatch(s -> s.contains("kernelspec.name")), p.toString());
        assertTrue(p.stream().anyMatch(s -> s.contains("outputs")), p.toString());
        assertTrue(p.stream().anyMatch(s -> s.contains("cell_type")), p.toString());
    }
}
