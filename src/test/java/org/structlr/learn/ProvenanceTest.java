package org.structlr.learn;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.structlr.data.DenoisingGenerator;

/** A model's provenance records the versions on the class path, the ND4J backend and the git commit. */
class ProvenanceTest {

    static String pomValue(String regex) throws Exception {
        Matcher m = Pattern.compile(regex, Pattern.DOTALL).matcher(Files.readString(Path.of("pom.xml")));
        assertTrue(m.find(), regex);
        return m.group(1);
    }

    @Test
    void versionsAreThoseThePomAsksFor() throws Exception {
        Map<String, Object> p = Provenance.of(new DenoisingGenerator().generate(1, 0, 8, 8, 1), 1);
        String dl4j = pomValue("<dl4j.version>([^<]+)</dl4j.version>");
        assertEquals(dl4j, p.get("nd4j"));
        assertEquals(dl4j, p.get("deeplearning4j"));
        assertEquals(pomValue("<artifactId>xgboost4j_2.12</artifactId>\\s*<version>([^<]+)</version>"), p.get("xgboost4j"));
        assertEquals(pomValue("<jackson.version>([^<]+)</jackson.version>"), p.get("jackson")); // the default build's (the first in the pom)
        assertEquals(pomValue("<artifactId>structlr</artifactId>\\s*<version>([^<]+)</version>"), p.get("structlr"));
        // the default profile's backend: the CPU one, and its jar's version
        assertEquals("CpuBackend, nd4j-native " + dl4j, p.get("nd4jBackend"));
    }

    @Test
    void theGitCommitIsTheCheckoutsWhenBuiltInOne() throws Exception {
        Process git;
        try {
            git = new ProcessBuilder("git", "rev-parse", "HEAD").redirectErrorStream(true).start();
        } catch (java.io.IOException e) {
            assertEquals("unknown", Provenance.software().get("gitCommit"), "no git: the build records 'unknown'");
            return;
        }
        String head = new String(git.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
        assertTrue(git.waitFor(30, TimeUnit.SECONDS));
        String recorded = (String) Provenance.software().get("gitCommit");
        if (git.exitValue() != 0) {
            assertEquals("unknown", recorded, "outside a git checkout the build records 'unknown'");
        } else {
            // built from this checkout (possibly with uncommitted changes: "-dirty")
            assertTrue(recorded.equals(head) || recorded.equals(head + "-dirty"), recorded + " vs HEAD " + head);
        }
    }
}
