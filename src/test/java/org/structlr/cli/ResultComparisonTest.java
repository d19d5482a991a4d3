package org.structlr.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The comparison of scripts/gpu-check: outputs within float tolerance are the same, a mismatch of
 * an objective, an error or the labels beyond it is found and named, by the Java comparison and by
 * the script's --compare mode (its exit code).
 */
class ResultComparisonTest {
    static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path tmp;

    static ObjectNode train(double... objectiveTrainTest) {
        ObjectNode root = JSON.createObjectNode();
        ArrayNode its = root.putArray("iterations");
        for (int k = 0; k < objectiveTrainTest.length / 3; k++) {
            ObjectNode r = its.addObject();
            r.put("iteration", k + 1);
            r.put("objective", objectiveTrainTest[3 * k]);
            r.put("train_error", objectiveTrainTest[3 * k + 1]);
            r.put("test_error", objectiveTrainTest[3 * k + 2]);
        }
        return root;
    }

    static ObjectNode infer(double dual, double primal, int... labels) {
        ObjectNode root = JSON.createObjectNode();
        root.put("dual", dual);
        root.put("primal", primal);
        ArrayNode l = root.putArray("labels");
        for (int y : labels) l.add(y);
        return root;
    }

    @Test
    void withinFloatToleranceIsTheSame() {
        assertEquals(List.of(), ResultComparison.compareTrain(train(0.5, 0.1, 0.12, 0.4, 0.08, 0.1), train(0.50001, 0.1005, 0.12, 0.40001, 0.08, 0.1)));
        int[] labels = new int[2000];
        int[] oneFlip = labels.clone();
        oneFlip[7] = 1;   // 1 of 2,000 = 0.05%
        assertEquals(List.of(), ResultComparison.compareInfer(infer(812.5, 812.4, labels), infer(812.50002, 812.40003, oneFlip)));
    }

    @Test
    void aMismatchBeyondToleranceIsNamed() {
        List<String> d = ResultComparison.compareTrain(train(0.5, 0.1, 0.12, 0.4, 0.08, 0.1), train(0.5, 0.1, 0.12, 0.4002, 0.08, 0.103));
        assertEquals(2, d.size(), d.toString());
        assertTrue(d.get(0).startsWith("iteration 2 objective: 0.400000000 against 0.400200000"), d.get(0));
        assertTrue(d.get(1).startsWith("iteration 2 test_error: 0.100000 against 0.103000"), d.get(1));
        assertEquals(List.of("curve: 2 against 1 evaluated iterations"), ResultComparison.compareTrain(train(1, 0, 0, 1, 0, 0), train(1, 0, 0)));
        int[] labels = new int[100], flipped = labels.clone();
        flipped[3] = 1;
        d = ResultComparison.compareInfer(infer(10, 9, labels), infer(10.01, 9, flipped));
        assertEquals(2, d.size(), d.toString());
        assertTrue(d.get(0).startsWith("dual: 10.0000000 against 10.0100000"), d.get(0));
        assertEquals("labels: 1 of 100 differ (at most 0.1 allowed)", d.get(1));
        assertTrue(ResultComparison.compareInfer(infer(10, 9, labels), JSON.createObjectNode()).size() >= 2);
    }

    @Test
    void theScriptComparesFoldersAndFailsOnAMismatch() throws Exception {
        Path cpu = Files.createDirectories(tmp.resolve("cpu")), same = Files.createDirectories(tmp.resolve("same")),
                other = Files.createDirectories(tmp.resolve("other"));
        for (Path d : List.of(cpu, same, other)) JSON.writeValue(d.resolve("infer.json").toFile(), infer(812.5, 812.4, new int[] {0, 1, 1, 0}));
        JSON.writeValue(cpu.resolve("train.json").toFile(), train(0.5, 0.1, 0.12, 0.4, 0.08, 0.1));
        JSON.writeValue(same.resolve("train.json").toFile(), train(0.5, 0.1, 0.12, 0.4, 0.08, 0.1));
        JSON.writeValue(other.resolve("train.json").toFile(), train(0.5, 0.1, 0.12, 0.45, 0.08, 0.1));
        Result ok = script("--compare", cpu.toString(), same.toString());
        assertEquals(0, ok.code(), ok.out());
        assertTrue(ok.out().contains("same (train)"), ok.out());
        Result bad = script("--compare", cpu.toString(), other.toString());
        assertEquals(1, bad.code(), bad.out());
        assertTrue(bad.out().contains("DIFFERENT (train): iteration 2 objective"), bad.out());
        Result missing = script("--compare", cpu.toString(), tmp.resolve("nothing").toString());
        assertEquals(1, missing.code(), missing.out());
        assertEquals(2, script("--compare", cpu.toString()).code());
    }

    record Result(int code, String out) {}

    /** Runs scripts/gpu-check with this JVM and the test class path for the comparison. */
    static Result script(String... args) throws IOException, InterruptedException {
        Path root = Path.of("").toAbsolutePath();
        List<String> cmd = new java.util.ArrayList<>(List.of("bash", root.resolve("scripts/gpu-check").toString()));
        cmd.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
        pb.environment().put("STRUCTLR_CP", System.getProperty("java.class.path"));
        pb.environment().put("JAVA", Path.of(System.getProperty("java.home"), "bin", "java").toString());
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(120, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("gpu-check --compare did not finish in 120 s: " + out);
        }
        return new Result(p.exitValue(), out);
    }
}
