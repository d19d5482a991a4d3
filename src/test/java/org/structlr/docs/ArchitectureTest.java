package org.structlr.docs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The house drawn in docs/design.md ("The rooms and what each may use") is the house the code is:
 * every reference from a source file of one room (package) to a type of another room is listed in
 * that room's row of the table, every package of the sources has a row, and the table has no cycle.
 * References are imports and fully qualified names in code; comments and string literals are not.
 */
class ArchitectureTest {
    static final Path DESIGN = DocumentationTest.ROOT.resolve("docs/design.md");
    static final List<Path> SOURCES = List.of(DocumentationTest.ROOT.resolve("src/main/java/org/structlr"),
            DocumentationTest.ROOT.resolve("src/spark/java/org/structlr"));
    static final String TABLE_HEADING = "### The rooms and what each may use";
    static final Pattern ROW = Pattern.compile("^\\|\\s*`([a-z0-9.]+)`\\s*\\|(.*)\\|\\s*$");
    static final Pattern ROOM = Pattern.compile("`([a-z0-9.]+)`");
    /** org.structlr.room.Type: the room is the lower-case path before the first capitalised part. */
    static final Pattern REFERENCE = Pattern.compile("\\borg\\.structlr\\.([a-z0-9_]+(?:\\.[a-z0-9_]+)*)\\.[A-Z]");

    /** The table: room -> rooms it may use. */
    static Map<String, Set<String>> allowed() throws IOException {
        List<String> lines = Files.readAllLines(DESIGN, StandardCharsets.UTF_8);
        int start = lines.indexOf(TABLE_HEADING);
        assertTrue(start >= 0, "docs/design.md has no section '" + TABLE_HEADING + "'");
        Map<String, Set<String>> table = new LinkedHashMap<>();
        for (int i = start + 1; i < lines.size() && !lines.get(i).startsWith("#"); i++) {
            Matcher row = ROW.matcher(lines.get(i));
            if (!row.matches()) continue;
            Set<String> uses = new TreeSet<>();
            Matcher m = ROOM.matcher(row.group(2));
            while (m.find()) uses.add(m.group(1));
            table.put(row.group(1), uses);
        }
        assertTrue(table.size() > 10, "the rooms table of docs/design.md has " + table.size() + " rows");
        return table;
    }

    /** Code without comments and string literals (so a room named in a message or a javadoc is not a use). */
    static String code(String source) {
        StringBuilder out = new StringBuilder(source.length());
        int i = 0, n = source.length();
        while (i < n) {
            char c = source.charAt(i);
            if (c == '/' && i + 1 < n && source.charAt(i + 1) == '/') {
                while (i < n && source.charAt(i) != '\n') i++;
            } else if (c == '/' && i + 1 < n && source.charAt(i + 1) == '*') {
                int end = source.indexOf("*/", i + 2);
                i = end < 0 ? n : end + 2;
                out.append(' ');
            } else if (source.startsWith("\"\"\"", i)) {
                int end = source.indexOf("\"\"\"", i + 3);
                i = end < 0 ? n : end + 3;
                out.append("\"\"");
            } else if (c == '"' || c == '\'') {
                int j = i + 1;
                while (j < n && source.charAt(j) != c) j += source.charAt(j) == '\\' ? 2 : 1;
                i = j + 1;
                out.append(c).append(c);
            } else {
                out.append(c);
                i++;
            }
        }
        return out.toString();
    }

    /** room -> rooms its sources name. */
    static Map<String, Set<String>> actual() throws IOException {
        Map<String, Set<String>> uses = new TreeMap<>();
        for (Path root : SOURCES) {
            if (!Files.isDirectory(root)) continue;
            List<Path> files;
            try (Stream<Path> s = Files.walk(root)) {
                files = s.filter(p -> p.toString().endsWith(".java")).sorted().toList();
            }
            for (Path f : files) {
                String room = root.relativize(f.getParent()).toString().replace('/', '.');
                Set<String> mine = uses.computeIfAbsent(room, r -> new TreeSet<>());
                Matcher m = REFERENCE.matcher(code(Files.readString(f, StandardCharsets.UTF_8)));
                while (m.find()) if (!m.group(1).equals(room)) mine.add(m.group(1) + " (" + root.relativize(f) + ")");
            }
        }
        return uses;
    }

    @Test
    void everyRoomUsesOnlyWhatItsRowOfTheTableLists() throws IOException {
        Map<String, Set<String>> table = allowed();
        List<String> wrong = new ArrayList<>();
        for (Map.Entry<String, Set<String>> e : actual().entrySet()) {
            Set<String> may = table.get(e.getKey());
            if (may == null) {
                wrong.add("room " + e.getKey() + " has no row in the table");
                continue;
            }
            for (String use : e.getValue()) {
                String room = use.substring(0, use.indexOf(' '));
                if (!may.contains(room)) wrong.add(e.getKey() + " uses " + use + ", which its row does not list");
            }
        }
        assertEquals(List.of(), wrong, "docs/design.md 'The rooms and what each may use' against the sources; "
                + "either the code crossed a wall or the drawing must change (deliberately)");
    }

    @Test
    void theTableNamesOnlyRoomsAndHasNoCycle() throws IOException {
        Map<String, Set<String>> table = allowed();
        for (Map.Entry<String, Set<String>> e : table.entrySet()) {
            for (String u : e.getValue()) assertTrue(table.containsKey(u), e.getKey() + " may use " + u + ", which is not a room of the table");
            assertTrue(!e.getValue().contains(e.getKey()), e.getKey() + " lists itself");
        }
        // Kahn's algorithm: a DAG empties completely.
        Map<String, Set<String>> left = new TreeMap<>();
        table.forEach((k, v) -> left.put(k, new HashSet<>(v)));
        boolean removed = true;
        while (removed) {
            removed = false;
            for (String room : new ArrayList<>(left.keySet())) {
                if (left.get(room).isEmpty()) {
                    left.remove(room);
                    left.values().forEach(v -> v.remove(room));
                    removed = true;
                }
            }
        }
        assertEquals(Map.of(), left, "rooms on a cycle of the table");
    }

    @Test
    void theCheckSeesAUseThroughAnImportAndNotThroughAStringOrComment() {
        String src = "package org.structlr.model;\nimport org.structlr.learn.Training; // org.structlr.cli.Main\n"
                + "/* org.structlr.viz.Plots */ class A { String s = \"org.structlr.serve.Server\"; "
                + "Object o = org.structlr.oracle.boost.BoostScore.class; }";
        Matcher m = REFERENCE.matcher(code(src));
        List<String> rooms = new ArrayList<>();
        while (m.find()) rooms.add(m.group(1));
        assertEquals(List.of("learn", "oracle.boost"), rooms);
    }
}
