package org.structlr.notebooks;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.File;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import jdk.jshell.Diag;
import jdk.jshell.EvalException;
import jdk.jshell.ExpressionSnippet;
import jdk.jshell.JShell;
import jdk.jshell.Snippet;
import jdk.jshell.SnippetEvent;
import jdk.jshell.SourceCodeAnalysis;
import jdk.jshell.UnresolvedReferenceException;
import jdk.jshell.VarSnippet;

/**
 * Reads Jupyter notebooks written for the IJava kernel and runs their code cells, in order, through
 * the JDK's JShell API in this JVM (execution engine "local", so snippets see this class path and
 * share the ND4J native libraries already loaded).
 *
 * <p>The runner skips only a cell whose metadata tags include {@value #SKIP_TAG} (e.g. the
 * {@code %jars} magic cell) or whose first line is {@code // skip-test}. Everything else must be
 * accepted by JShell without an error diagnostic or an unresolved reference, and must evaluate
 * without an exception.
 *
 * <p>What a cell shows is captured as IJava would show it ({@link CellOutput}): the text the cell
 * printed on standard output, and the value of its last snippet when that is an expression (text, or
 * a PNG for a {@code BufferedImage}). {@link NotebookOutputs} stores these in the notebooks.
 */
final class NotebookRunner implements AutoCloseable {
    static final String SKIP_TAG = "skip-test";
    static final Pattern SKIP_LINE = Pattern.compile("^\\s*//\\s*skip-test\\b.*$");
    private static final Pattern CELL_ID = Pattern.compile("^[a-zA-Z0-9_-]{1,64}$");
    private static final ObjectMapper JSON = new ObjectMapper();

    /** One cell: its 1-based position among all cells of the notebook, type, tags and source text. */
    record Cell(int number, String type, List<String> tags, String source) {
        String firstLine() {
            int nl = source.indexOf('\n');
            return nl < 0 ? source : source.substring(0, nl);
        }
    }

    /** A cell that failed: the notebook, the cell and what went wrong. */
    static final class CellFailure extends AssertionError {
        final int cell;

        CellFailure(String notebook, int cell, String problem) {
            super(notebook + ", cell " + cell + ": " + problem);
            this.cell = cell;
        }
    }

    private final String notebook;
    private final JShell shell;

    NotebookRunner(String notebook) {
        this.notebook = notebook;
        this.shell = JShell.builder().executionEngine("local").build();
        for (String entry : classPath()) shell.addToClasspath(entry);
    }

    /** The class path the compiler needs: surefire's test class path when forked, else java.class.path. */
    static List<String> classPath() {
        String cp = System.getProperty("surefire.test.class.path");
        if (cp == null || cp.isBlank()) cp = System.getProperty("java.class.path");
        List<String> out = new ArrayList<>();
        for (String e : cp.split(File.pathSeparator)) if (!e.isBlank()) out.add(e);
        return out;
    }

    // ----------------------------------------------------------------------------------------------
    // reading and checking notebooks

    static JsonNode read(Path file) throws IOException {
        return JSON.readTree(file.toFile());
    }

    /**
     * The problems that keep {@code nb} from being a valid nbformat 4 notebook for the IJava kernel
     * (empty when there are none): top-level keys, kernelspec java/java, and every cell's required
     * fields (nbformat 4 JSON schema; cell ids from minor version 5 on).
     */
    static List<String> formatProblems(JsonNode nb) {
        List<String> p = new ArrayList<>();
        if (nb == null || !nb.isObject()) return List.of("not a JSON object");
        Set<String> allowedTop = Set.of("cells", "metadata", "nbformat", "nbformat_minor");
        for (Iterator<String> it = nb.fieldNames(); it.hasNext(); ) {
            String k = it.next();
            if (!allowedTop.contains(k)) p.add("unexpected top-level key '" + k + "'");
        }
        if (!nb.path("nbformat").isInt() || nb.path("nbformat").asInt() != 4) p.add("nbformat must be the integer 4");
        if (!nb.path("nbformat_minor").isInt() || nb.path("nbformat_minor").asInt() < 0) p.add("nbformat_minor must be a non-negative integer");
        int minor = nb.path("nbformat_minor").asInt(0);
        JsonNode meta = nb.path("metadata");
        if (!meta.isObject()) p.add("metadata must be an object");
        JsonNode ks = meta.path("kernelspec");
        if (!ks.isObject()) {
            p.add("metadata.kernelspec is missing");
        } else {
            if (!"java".equals(ks.path("name").asText(null))) p.add("metadata.kernelspec.name must be \"java\" (IJava)");
            if (!"java".equals(ks.path("language").asText(null))) p.add("metadata.kernelspec.language must be \"java\"");
            if (!ks.path("display_name").isTextual()) p.add("metadata.kernelspec.display_name must be a string");
        }
        JsonNode li = meta.path("language_info");
        if (!li.isMissingNode() && !li.path("name").isTextual()) p.add("metadata.language_info.name must be a string");
        JsonNode cells = nb.path("cells");
        if (!cells.isArray()) {
            p.add("cells must be an array");
            return p;
        }
        Set<String> ids = new HashSet<>();
        for (int i = 0; i < cells.size(); i++) {
            JsonNode c = cells.get(i);
            String where = "cell " + (i + 1) + ": ";
            String type = c.path("cell_type").asText("");
            if (!Set.of("code", "markdown", "raw").contains(type)) {
                p.add(where + "cell_type must be code, markdown or raw, got '" + type + "'");
                continue;
            }
            if (!c.path("metadata").isObject()) p.add(where + "metadata must be an object");
            JsonNode src = c.path("source");
            boolean srcOk = src.isTextual() || (src.isArray() && allTextual(src));
            if (!srcOk) p.add(where + "source must be a string or an array of strings");
            Set<String> allowed = new HashSet<>(Set.of("cell_type", "metadata", "source", "id"));
            if (type.equals("code")) {
                allowed.addAll(Set.of("outputs", "execution_count"));
                if (!c.path("outputs").isArray()) p.add(where + "a code cell needs an outputs array");
                JsonNode ec = c.get("execution_count");
                if (ec == null || !(ec.isNull() || ec.isInt())) p.add(where + "a code cell needs execution_count (null or an integer)");
            } else {
                allowed.add("attachments");
            }
            for (Iterator<String> it = c.fieldNames(); it.hasNext(); ) {
                String k = it.next();
                if (!allowed.contains(k)) p.add(where + "unexpected key '" + k + "' in a " + type + " cell");
            }
            if (minor >= 5) {
                String id = c.path("id").asText(null);
                if (id == null || !CELL_ID.matcher(id).matches()) p.add(where + "nbformat 4." + minor + " needs an id of 1-64 letters, digits, '-' or '_'");
                else if (!ids.add(id)) p.add(where + "duplicate cell id '" + id + "'");
            }
            JsonNode tags = c.path("metadata").path("tags");
            if (!tags.isMissingNode() && !(tags.isArray() && allTextual(tags))) p.add(where + "metadata.tags must be an array of strings");
        }
        return p;
    }

    private static boolean allTextual(JsonNode array) {
        for (JsonNode n : array) if (!n.isTextual()) return false;
        return true;
    }

    static List<Cell> cells(JsonNode nb) {
        List<Cell> out = new ArrayList<>();
        JsonNode cells = nb.path("cells");
        for (int i = 0; i < cells.size(); i++) {
            JsonNode c = cells.get(i);
            JsonNode src = c.path("source");
            String text;
            if (src.isArray()) {
                StringBuilder b = new StringBuilder();
                for (JsonNode line : src) b.append(line.asText());
                text = b.toString();
            } else {
                text = src.asText("");
            }
            List<String> tags = new ArrayList<>();
            for (JsonNode t : c.path("metadata").path("tags")) tags.add(t.asText());
            out.add(new Cell(i + 1, c.path("cell_type").asText(), tags, text));
        }
        return out;
    }

    /** Why the runner skips this code cell, or null when it runs it. */
    static String skipReason(Cell cell) {
        if (cell.tags().contains(SKIP_TAG)) return "tagged " + SKIP_TAG;
        String first = cell.firstLine();
        if (SKIP_LINE.matcher(first).matches()) return "marked // skip-test";
        return null;
    }

    // ----------------------------------------------------------------------------------------------
    // running cells

    /** Runs every code cell not skipped, in order; returns the skipped cells' numbers and reasons. */
    List<String> runAll(List<Cell> cells) {
        List<String> skipped = new ArrayList<>();
        runAll(cells, skipped);
        return skipped;
    }

    /**
     * Runs every code cell not skipped, in order, adding the skipped cells' numbers and reasons to
     * {@code skipped}; returns what each cell that ran showed, by cell number.
     */
    java.util.Map<Integer, CellOutput> runAll(List<Cell> cells, List<String> skipped) {
        java.util.Map<Integer, CellOutput> shown = new java.util.LinkedHashMap<>();
        for (Cell c : cells) {
            if (!c.type().equals("code")) continue;
            String why = skipReason(c);
            if (why != null) {
                skipped.add("cell " + c.number() + " (" + why + ")");
                continue;
            }
            shown.put(c.number(), run(c));
        }
        return shown;
    }

    /**
     * What a cell showed: the text it printed on standard output (empty for none), and the value of
     * its last snippet when that is an expression: {@code result} as JShell prints it, or
     * {@code png} (base64) for a {@code java.awt.image.BufferedImage} (null when there is none).
     */
    record CellOutput(String stdout, String result, String png) {}

    /**
     * Evaluates one cell snippet by snippet, capturing what it prints on {@code System.out}; throws
     * {@link CellFailure} on the first problem.
     */
    CellOutput run(Cell cell) {
        SourceCodeAnalysis sca = shell.sourceCodeAnalysis();
        List<Snippet> recoverable = new ArrayList<>();
        String remaining = cell.source();
        java.io.PrintStream original = System.out;
        java.io.ByteArrayOutputStream printed = new java.io.ByteArrayOutputStream();
        SnippetEvent last = null;
        // the "local" execution engine runs snippets in this JVM: they print to this System.out
        System.setOut(new java.io.PrintStream(printed, true, java.nio.charset.StandardCharsets.UTF_8));
        try {
            while (!remaining.isBlank()) {
                SourceCodeAnalysis.CompletionInfo info = sca.analyzeCompletion(remaining);
                SourceCodeAnalysis.Completeness c = info.completeness();
                if (c == SourceCodeAnalysis.Completeness.EMPTY) break;
                if (c == SourceCodeAnalysis.Completeness.DEFINITELY_INCOMPLETE || c == SourceCodeAnalysis.Completeness.CONSIDERED_INCOMPLETE) {
                    throw new CellFailure(notebook, cell.number(), "incomplete snippet (" + c + "): " + abbreviate(remaining));
                }
                String source = info.source() != null && !info.source().isBlank() ? info.source() : remaining;
                String rest = info.source() != null && !info.source().isBlank() ? info.remaining() : "";
                List<SnippetEvent> events = shell.eval(source);
                check(cell, source, events, recoverable);
                for (SnippetEvent e : events) if (e.causeSnippet() == null) last = e;
                remaining = rest;
            }
        } finally {
            System.out.flush();
            System.setOut(original);
        }
        // A declaration may use one declared later in the same cell (JShell resolves it then); at
        // the end of the cell every declaration must be complete.
        for (Snippet s : recoverable) {
            Snippet.Status now = shell.status(s);
            if (now == Snippet.Status.RECOVERABLE_DEFINED || now == Snippet.Status.RECOVERABLE_NOT_DEFINED) {
                String unresolved = s instanceof jdk.jshell.DeclarationSnippet ds
                        ? shell.unresolvedDependencies(ds).collect(Collectors.joining(", ")) : "?";
                throw new CellFailure(notebook, cell.number(), "snippet refers to undefined " + unresolved + ": " + abbreviate(s.source()));
            }
        }
        String stdout = printed.toString(java.nio.charset.StandardCharsets.UTF_8);
        String result = null, png = null;
        if (last != null && last.value() != null && isExpression(last.snippet())) {
            String type = last.snippet() instanceof VarSnippet v ? v.typeName() : ((ExpressionSnippet) last.snippet()).typeName();
            String name = last.snippet() instanceof VarSnippet v ? v.name() : ((ExpressionSnippet) last.snippet()).name();
            if (type.equals("BufferedImage") || type.equals("java.awt.image.BufferedImage")) png = pngOf(cell, name);
            else result = last.value();
        }
        return new CellOutput(stdout, result, png);
    }

    /** An expression whose value IJava would display: a bare expression, or a variable reference. */
    private static boolean isExpression(Snippet s) {
        return s.kind() == Snippet.Kind.EXPRESSION
                || (s.kind() == Snippet.Kind.VAR && s.subKind() == Snippet.SubKind.TEMP_VAR_EXPRESSION_SUBKIND);
    }

    /** The image held by the shell variable {@code name}, as base64 PNG (encoded inside the shell). */
    private String pngOf(Cell cell, String name) {
        List<SnippetEvent> ev = shell.eval(CellImages.class.getName() + ".pngBase64(" + name + ")");
        SnippetEvent e = ev.isEmpty() ? null : ev.get(ev.size() - 1);
        if (e == null || e.exception() != null || e.value() == null || !e.value().startsWith("\"")) {
            throw new CellFailure(notebook, cell.number(), "cannot encode the image " + name + " as PNG"
                    + (e != null && e.exception() != null ? ": " + describe(e.exception()) : ""));
        }
        return e.value().substring(1, e.value().length() - 1);   // base64 needs no escapes
    }

    private void check(Cell cell, String source, List<SnippetEvent> events, List<Snippet> recoverable) {
        if (events.isEmpty()) throw new CellFailure(notebook, cell.number(), "JShell did not accept the snippet: " + abbreviate(source));
        for (SnippetEvent e : events) {
            if (e.causeSnippet() != null) continue;       // a dependent snippet updated by this one
            Snippet s = e.snippet();
            List<String> errors = shell.diagnostics(s).filter(Diag::isError)
                    .map(d -> describe(d, s.source())).collect(Collectors.toList());
            Snippet.Status status = e.status();
            if (status == Snippet.Status.REJECTED || !errors.isEmpty()) {
                throw new CellFailure(notebook, cell.number(), "snippet " + status + ": " + abbreviate(s.source())
                        + (errors.isEmpty() ? "" : "\n  " + String.join("\n  ", errors)));
            }
            if (status == Snippet.Status.RECOVERABLE_DEFINED || status == Snippet.Status.RECOVERABLE_NOT_DEFINED) recoverable.add(s);
            if (e.exception() != null) {
                throw new CellFailure(notebook, cell.number(), "evaluation threw " + describe(e.exception()) + "\n  in: " + abbreviate(s.source()));
            }
        }
    }

    private static String describe(Diag d, String source) {
        String msg = d.getMessage(Locale.ROOT);
        long pos = d.getPosition();
        if (pos >= 0 && pos <= source.length()) {
            int start = source.lastIndexOf('\n', (int) Math.max(0, pos - 1)) + 1;
            int end = source.indexOf('\n', (int) pos);
            String line = source.substring(start, end < 0 ? source.length() : end).strip();
            return "error: " + msg + "\n    at: " + line;
        }
        return "error: " + msg;
    }

    private static String describe(Exception ex) {
        String name = ex instanceof EvalException ee ? ee.getExceptionClassName()
                : ex instanceof UnresolvedReferenceException ? "UnresolvedReferenceException" : ex.getClass().getName();
        StringBuilder b = new StringBuilder(name);
        if (ex.getMessage() != null) b.append(": ").append(ex.getMessage());
        if (ex instanceof UnresolvedReferenceException ure) b.append(" (").append(ure.getSnippet().source().strip()).append(")");
        StringWriter sw = new StringWriter();
        ex.printStackTrace(new PrintWriter(sw));
        String[] lines = sw.toString().split("\n");
        for (int i = 1; i < Math.min(lines.length, 12); i++) b.append("\n  ").append(lines[i].strip());
        Throwable cause = ex.getCause();
        Set<Throwable> seen = new LinkedHashSet<>();
        while (cause != null && seen.add(cause)) {
            String cn = cause instanceof EvalException ce ? ce.getExceptionClassName() : cause.getClass().getName();
            b.append("\n  caused by ").append(cn).append(": ").append(cause.getMessage());
            cause = cause.getCause();
        }
        return b.toString();
    }

    private static String abbreviate(String s) {
        String t = s.strip();
        return t.length() <= 300 ? t : t.substring(0, 300) + " ...";
    }

    /** The value of a top-level variable as JShell prints it (null when there is no such variable). */
    String valueOf(String name) {
        return shell.variables().filter(v -> v.name().equals(name) && shell.status(v).isActive())
                .findFirst().map(shell::varValue).orElse(null);
    }

    @Override
    public void close() {
        shell.close();
    }

    static void deleteTree(Path root) throws IOException {
        if (!Files.exists(root)) return;
        try (var walk = Files.walk(root)) {
            for (Path p : walk.sorted((a, b) -> b.getNameCount() - a.getNameCount()).toList()) Files.deleteIfExists(p);
        }
    }
}
