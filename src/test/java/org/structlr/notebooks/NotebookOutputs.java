package org.structlr.notebooks;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.structlr.data.AtomicFiles;

/**
 * The notebooks are stored with their outputs (text, and plots as PNG images), so a reader on
 * GitHub sees the numbers and figures. This class regenerates them: it runs every notebook through
 * {@link NotebookRunner} (the same run as {@code NotebooksTest}) and writes each code cell's outputs
 * in nbformat 4 (a {@code stream} for printed text, an {@code execute_result} with
 * {@code text/plain} or {@code image/png} for the value of a last expression), in Jupyter's own
 * file layout (keys sorted, one space of indentation), so that a rerun changes only what changed.
 *
 * <p>Run it with {@code scripts/notebooks} (from the project root).
 */
public final class NotebookOutputs {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

    private NotebookOutputs() {}

    public static void main(String[] args) throws Exception {
        List<String> rest = new ArrayList<>(List.of(args));
        if (!rest.remove("--write-outputs")) {
            System.err.println("usage: NotebookOutputs --write-outputs [NOTEBOOK.ipynb ...]   (default: every notebook in notebooks/)");
            System.exit(2);
        }
        List<Path> files = new ArrayList<>();
        for (String a : rest) files.add(Path.of(a));
        if (files.isEmpty()) {
            try (Stream<Path> s = Files.list(Path.of("notebooks"))) {
                s.filter(p -> p.getFileName().toString().endsWith(".ipynb")).sorted().forEach(files::add);
            }
        }
        for (Path f : files) {
            long t0 = System.nanoTime();
            JsonNode nb = NotebookRunner.read(f);
            Map<Integer, NotebookRunner.CellOutput> shown;
            try (NotebookRunner r = new NotebookRunner(f.getFileName().toString())) {
                try {
                    shown = r.runAll(NotebookRunner.cells(nb), new ArrayList<>());
                } finally {
                    cleanUp(r.valueOf("work"));
                }
            }
            JsonNode out = withOutputs(nb, shown);
            List<String> problems = NotebookRunner.formatProblems(out);
            if (!problems.isEmpty()) throw new IllegalStateException(f + ": " + problems);
            AtomicFiles.writeString(f, jupyterJson(out));
            System.err.printf("%s: outputs of %d cells written (%.1f s)%n", f, shown.size(), (System.nanoTime() - t0) / 1e9);
        }
        System.exit(0);   // ND4J's threads would keep the JVM alive
    }

    /** The notebooks write into a fresh temporary folder named by their variable {@code work}. */
    static void cleanUp(String work) throws IOException {
        if (work == null) return;
        Path p = Path.of(work.replaceAll("^\"|\"$", "")).toAbsolutePath().normalize();
        Path tmp = Path.of(System.getProperty("java.io.tmpdir")).toAbsolutePath().normalize();
        if (p.startsWith(tmp) && !p.equals(tmp)) NotebookRunner.deleteTree(p);
    }

    /** A copy of {@code nb} whose code cells carry the outputs shown (cells that did not run: none). */
    static JsonNode withOutputs(JsonNode nb, Map<Integer, NotebookRunner.CellOutput> shown) {
        ObjectNode copy = nb.deepCopy();
        ArrayNode cells = (ArrayNode) copy.get("cells");
        int count = 0;
        for (int i = 0; i < cells.size(); i++) {
            ObjectNode c = (ObjectNode) cells.get(i);
            if (!"code".equals(c.path("cell_type").asText())) continue;
            NotebookRunner.CellOutput o = shown.get(i + 1);
            if (o == null) {
                c.putNull("execution_count");
                c.set("outputs", NODES.arrayNode());
                continue;
            }
            count++;
            c.put("execution_count", count);
            c.set("outputs", outputs(o, count));
        }
        return copy;
    }

    /** nbformat 4 outputs of one cell. */
    static ArrayNode outputs(NotebookRunner.CellOutput o, int executionCount) {
        ArrayNode a = NODES.arrayNode();
        if (!o.stdout().isEmpty()) {
            ObjectNode s = a.addObject();
            s.put("name", "stdout");
            s.put("output_type", "stream");
            s.set("text", lines(o.stdout()));
        }
        if (o.result() != null || o.png() != null) {
            ObjectNode r = a.addObject();
            ObjectNode data = r.putObject("data");
            if (o.png() != null) data.put("image/png", o.png());
            if (o.result() != null) data.set("text/plain", lines(o.result()));
            r.put("execution_count", executionCount);
            r.putObject("metadata");
            r.put("output_type", "execute_result");
        }
        return a;
    }

    /** A multi-line string as Jupyter stores it: a list of lines, each but the last ending in a newline. */
    static ArrayNode lines(String text) {
        ArrayNode a = NODES.arrayNode();
        int from = 0;
        while (from < text.length()) {
            int nl = text.indexOf('\n', from);
            int to = nl < 0 ? text.length() : nl + 1;
            a.add(text.substring(from, to));
            from = to;
        }
        return a;
    }

    /** What of a cell's stored outputs can be compared with a new run: its kinds and its text with numbers and temporary paths masked. */
    static List<String> comparable(JsonNode outputs) {
        List<String> out = new ArrayList<>();
        for (JsonNode o : outputs) {
            String type = o.path("output_type").asText();
            if (type.equals("stream")) out.add("stream " + o.path("name").asText() + ": " + mask(joined(o.path("text"))));
            else out.add(type + " " + new TreeSet<>(fieldNames(o.path("data"))));
        }
        return out;
    }

    /** {@link #comparable} of a fresh run's outputs. */
    static List<String> comparable(NotebookRunner.CellOutput o) {
        return comparable(outputs(o, 1));
    }

    private static final Pattern TMP = Pattern.compile(Pattern.quote(System.getProperty("java.io.tmpdir").replaceAll("/$", "")) + "/[^\\s\"',)]*");
    private static final Pattern NUMBER = Pattern.compile("-?\\d+(\\.\\d+)?([eE][-+]?\\d+)?");

    /** Text with temporary paths and numbers (timings, and errors that move in their last digits between machines) masked. */
    static String mask(String text) {
        return NUMBER.matcher(TMP.matcher(text).replaceAll("<tmp>")).replaceAll("#");
    }

    /**
     * The numbers a cell printed (temporary paths left out), in order: what a cell tagged
     * {@value #EXACT} or {@value #CLOSE} must reproduce.
     */
    static List<Double> numbers(JsonNode outputs) {
        List<Double> out = new ArrayList<>();
        for (JsonNode o : outputs) {
            if (!o.path("output_type").asText().equals("stream")) continue;
            java.util.regex.Matcher m = NUMBER.matcher(TMP.matcher(joined(o.path("text"))).replaceAll("<tmp>"));
            while (m.find()) out.add(Double.parseDouble(m.group()));
        }
        return out;
    }

    /** Cell tag: every number printed must equal the stored one (results that do not depend on the machine). */
    static final String EXACT = "numbers-exact";
    /**
     * Cell tag: every number printed must be within {@link #CLOSE_ABSOLUTE} or {@link #CLOSE_RELATIVE}
     * of the stored one (results of seeded training whose last digits may move with the CPU's
     * arithmetic: DL4J, BLAS).
     */
    static final String CLOSE = "numbers-close";
    static final double CLOSE_ABSOLUTE = 0.02, CLOSE_RELATIVE = 0.05;

    /** Null when {@code now} reproduces {@code stored} as the tags ask, else what differs. */
    static String numbersDiffer(List<String> tags, List<Double> stored, List<Double> now) {
        boolean exact = tags.contains(EXACT), close = tags.contains(CLOSE);
        if (!exact && !close) return null;
        if (stored.size() != now.size()) return "printed " + now.size() + " numbers, stored " + stored.size();
        for (int i = 0; i < stored.size(); i++) {
            double a = stored.get(i), b = now.get(i);
            boolean ok = exact ? a == b : Math.abs(a - b) <= Math.max(CLOSE_ABSOLUTE, CLOSE_RELATIVE * Math.abs(a));
            if (!ok) return "number " + (i + 1) + ": " + b + " now, " + a + " stored (" + (exact ? EXACT : CLOSE) + ")";
        }
        return null;
    }

    private static String joined(JsonNode text) {
        if (text.isTextual()) return text.asText();
        StringBuilder b = new StringBuilder();
        for (JsonNode l : text) b.append(l.asText());
        return b.toString();
    }

    private static List<String> fieldNames(JsonNode n) {
        List<String> names = new ArrayList<>();
        for (Iterator<String> it = n.fieldNames(); it.hasNext(); ) names.add(it.next());
        return names;
    }

    /**
     * JSON exactly as Jupyter writes a notebook ({@code json.dumps(nb, indent=1, sort_keys=True,
     * ensure_ascii=False)} plus a final newline). Written here because Jackson's pretty printer
     * cannot produce that layout (it writes " : " and "[ ]").
     */
    static String jupyterJson(JsonNode nb) throws IOException {
        StringBuilder b = new StringBuilder();
        write(b, nb, 0);
        return b.append('\n').toString();
    }

    private static void write(StringBuilder b, JsonNode n, int depth) throws IOException {
        if (n.isObject()) {
            if (n.size() == 0) {
                b.append("{}");
                return;
            }
            b.append("{\n");
            List<String> keys = new ArrayList<>(new TreeSet<>(fieldNames(n)));
            for (int k = 0; k < keys.size(); k++) {
                indent(b, depth + 1);
                b.append(JSON.writeValueAsString(keys.get(k))).append(": ");
                write(b, n.get(keys.get(k)), depth + 1);
                if (k + 1 < keys.size()) b.append(',');
                b.append('\n');
            }
            indent(b, depth);
            b.append('}');
        } else if (n.isArray()) {
            if (n.size() == 0) {
                b.append("[]");
                return;
            }
            b.append("[\n");
            for (int k = 0; k < n.size(); k++) {
                indent(b, depth + 1);
                write(b, n.get(k), depth + 1);
                if (k + 1 < n.size()) b.append(',');
                b.append('\n');
            }
            indent(b, depth);
            b.append(']');
        } else {
            b.append(JSON.writeValueAsString(n));
        }
    }

    private static void indent(StringBuilder b, int depth) {
        b.append(" ".repeat(depth));
    }

    static String utf8(Path p) throws IOException {
        return Files.readString(p, StandardCharsets.UTF_8);
    }
}
