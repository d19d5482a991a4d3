package org.structlr.docs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The user documentation stays honest: every relative link of README.md and the Markdown under
 * docs/, models/ and notebooks/ leads to a file of the repository (and, for a link into a Markdown
 * file with #anchor, to one of its headings); every "docs/design.md §N" cited in the sources or the
 * docs names a section that exists; nothing a user reads points at the developers' ../shared
 * folder or at a DESIGN.md outside the repository.
 */
class DocumentationTest {
    static final Path ROOT = Path.of("").toAbsolutePath();

    /** [text](target) and ![alt](target), with an optional "title". */
    static final Pattern LINK = Pattern.compile("!?\\[[^\\]]*\\]\\(\\s*([^)\\s]+)(?:\\s+\"[^\"]*\")?\\s*\\)");
    static final Pattern CODE_SPAN = Pattern.compile("`+[^`]*`+");
    static final Pattern HEADING = Pattern.compile("^(#{1,6})\\s+(.*?)\\s*#*\\s*$");
    static final Pattern DESIGN_CITE = Pattern.compile("docs/design\\.md\\s+§\\s*(\\d+)");
    static final Pattern DESIGN_SECTION = Pattern.compile("^##\\s+(\\d+)\\.\\s");
    /** What no user-facing text may contain. */
    static final List<String> FORBIDDEN = List.of("../shared", "/work/shared", "DESIGN.md", "DESIGN §");

    static List<Path> userMarkdown() {
        List<Path> files = new ArrayList<>();
        files.add(ROOT.resolve("README.md"));
        for (String dir : List.of("docs", "models", "notebooks")) files.addAll(walk(ROOT.resolve(dir), ".md"));
        return files;
    }

    @Test
    void everyRelativeLinkLeadsToAFileOfTheRepository() {
        List<String> broken = new ArrayList<>();
        Map<Path, Set<String>> anchors = new HashMap<>();
        int links = 0;
        for (Path md : userMarkdown()) {
            List<String> lines = read(md);
            for (int i = 0; i < lines.size(); i++) {
                for (String target : links(lines, i)) {
                    if (target.matches("^[a-zA-Z][a-zA-Z0-9+.-]*:.*")) continue;   // http:, https:, mailto:
                    links++;
                    int hash = target.indexOf('#');
                    String file = hash < 0 ? target : target.substring(0, hash);
                    String anchor = hash < 0 ? null : target.substring(hash + 1);
                    Path to = file.isEmpty() ? md : md.getParent().resolve(decode(file)).normalize();
                    String where = ROOT.relativize(md) + ":" + (i + 1) + ": " + target;
                    if (!to.startsWith(ROOT)) {
                        broken.add(where + " (outside the repository)");
                    } else if (!Files.exists(to)) {
                        broken.add(where + " (no such file)");
                    } else if (anchor != null && !anchor.isEmpty() && to.toString().endsWith(".md")
                            && !anchors.computeIfAbsent(to, DocumentationTest::headingAnchors).contains(anchor)) {
                        broken.add(where + " (no heading with this anchor)");
                    }
                }
            }
        }
        assertTrue(links > 100, "found only " + links + " relative links: is the link pattern right?");
        assertEquals(List.of(), broken, "broken links");
    }

    @Test
    void everyCitedDesignSectionExists() throws IOException {
        Set<String> sections = new LinkedHashSet<>();
        for (String line : read(ROOT.resolve("docs/design.md"))) {
            Matcher m = DESIGN_SECTION.matcher(line);
            if (m.find()) sections.add(m.group(1));
        }
        assertTrue(sections.containsAll(List.of("1", "2", "3", "4")), "docs/design.md sections: " + sections);
        List<String> bad = new ArrayList<>();
        int cites = 0;
        List<Path> files = new ArrayList<>(walk(ROOT.resolve("src"), ".java"));
        files.addAll(userMarkdown());
        for (Path f : files) {
            List<String> lines = read(f);
            for (int i = 0; i < lines.size(); i++) {
                Matcher m = DESIGN_CITE.matcher(lines.get(i));
                while (m.find()) {
                    cites++;
                    if (!sections.contains(m.group(1))) bad.add(ROOT.relativize(f) + ":" + (i + 1) + ": §" + m.group(1));
                }
            }
        }
        assertTrue(cites > 20, "found only " + cites + " citations of docs/design.md §N");
        assertEquals(List.of(), bad, "citations of sections docs/design.md does not have");
    }

    @Test
    void nothingAUserReadsPointsOutsideTheRepository() {
        List<Path> files = new ArrayList<>(userMarkdown());
        files.addAll(walk(ROOT.resolve("models"), ".json"));
        files.addAll(walk(ROOT.resolve("notebooks"), ".ipynb"));
        files.addAll(walk(ROOT.resolve("src/main"), ""));
        files.addAll(walk(ROOT.resolve("bin"), ""));
        List<String> found = new ArrayList<>();
        for (Path f : files) {
            List<String> lines = read(f);
            for (int i = 0; i < lines.size(); i++) {
                for (String s : FORBIDDEN) {
                    if (lines.get(i).contains(s)) found.add(ROOT.relativize(f) + ":" + (i + 1) + ": " + s);
                }
            }
        }
        assertEquals(List.of(), found, "user-facing text that points at files a user does not have");
    }

    /** The link targets on line i, outside fenced code blocks and code spans. */
    static List<String> links(List<String> lines, int i) {
        if (inFence(lines, i)) return List.of();
        Matcher m = LINK.matcher(CODE_SPAN.matcher(lines.get(i)).replaceAll("x"));
        List<String> out = new ArrayList<>();
        while (m.find()) out.add(m.group(1));
        return out;
    }

    static boolean inFence(List<String> lines, int i) {
        boolean fence = false;
        for (int k = 0; k < i; k++) if (lines.get(k).trim().startsWith("```")) fence = !fence;
        return fence || lines.get(i).trim().startsWith("```");
    }

    /** GitHub's anchors of a Markdown file's headings: lower case, punctuation dropped, spaces to '-', repeats numbered. */
    static Set<String> headingAnchors(Path md) {
        List<String> lines = read(md);
        Set<String> out = new LinkedHashSet<>();
        Map<String, Integer> seen = new HashMap<>();
        boolean fence = false;
        for (String line : lines) {
            if (line.trim().startsWith("```")) fence = !fence;
            if (fence) continue;
            Matcher m = HEADING.matcher(line);
            if (!m.matches()) continue;
            String slug = slug(m.group(2));
            int n = seen.merge(slug, 1, Integer::sum) - 1;
            out.add(n == 0 ? slug : slug + "-" + n);
        }
        return out;
    }

    static String slug(String heading) {
        String text = heading.replaceAll("\\[([^\\]]*)\\]\\([^)]*\\)", "$1").replace("`", "");
        StringBuilder b = new StringBuilder();
        text.toLowerCase(Locale.ROOT).codePoints().forEach(c -> {
            if (Character.isLetterOrDigit(c) || c == '-' || c == '_') b.appendCodePoint(c);
            else if (c == ' ') b.append('-');
        });
        return b.toString();
    }

    @Test
    void slugsFollowGitHub() {
        assertEquals("table-1-on-denoising-rerun-idle", slug("Table 1 on denoising, rerun (idle)"));
        assertEquals("infer-on-uai-models", slug("`infer` on UAI models"));
        assertEquals("4-data-format-npz", slug("4. Data format (.npz)"));
        assertEquals("boosting-the-newton-step", slug("Boosting: the Newton step"));
    }

    static String decode(String path) {
        return path.replace("%20", " ");
    }

    static List<Path> walk(Path dir, String suffix) {
        if (!Files.isDirectory(dir)) return List.of();
        try (Stream<Path> s = Files.walk(dir)) {
            return s.filter(Files::isRegularFile).filter(p -> p.toString().endsWith(suffix)).sorted().collect(Collectors.toList());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static List<String> read(Path f) {
        try {
            byte[] bytes = Files.readAllBytes(f);
            return new String(bytes, StandardCharsets.UTF_8).lines().collect(Collectors.toList());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
