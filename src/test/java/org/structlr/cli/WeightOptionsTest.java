package org.structlr.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.structlr.data.DenoisingGenerator;

/** train --class-weights / --example-weights: recorded in model.json, every bad value one error (exit 2) and no model. */
class WeightOptionsTest {
    @TempDir
    static Path shared;
    static Path data;

    @BeforeAll
    static void data() throws IOException {
        data = shared.resolve("data");
        new DenoisingGenerator().generateTo(data, 3, 1, 8, 8, 5);
    }

    static TrainPredictCommandTest.Run train(String model, String... extra) {
        String[] a = TrainPredictCommandTest.train(data, null, extra);
        String[] b = java.util.Arrays.copyOf(a, a.length + 2);
        b[a.length] = "--output";
        b[a.length + 1] = shared.resolve(model).toString();
        return TrainPredictCommandTest.run(b);
    }

    @Test
    void weightsAreRecordedInTheModel() throws IOException {
        Path w = shared.resolve("w.txt");
        Files.writeString(w, "# weights\n000.npz 3\n\n002 0.5   # by stem too\n");
        TrainPredictCommandTest.Run r = train("m1", "--class-weights", "balanced", "--example-weights", w.toString());
        assertEquals(0, r.code(), r.err());
        JsonNode weights = new ObjectMapper().readTree(shared.resolve("m1/model.json").toFile()).path("settings").path("weights");
        assertEquals("balanced", weights.path("classWeightsGiven").asText());
        assertEquals(2, weights.path("classWeights").size());
        assertEquals("[3.0,1.0,0.5]", weights.path("exampleWeights").toString());
    }

    static TrainPredictCommandTest.Run run(String... args) {
        java.util.List<String> a = new java.util.ArrayList<>(java.util.List.of("train", "--data", data.toString(), "--sweeps", "3", "--eval-sweeps", "3",
                "--quiet", "--threads", "1"));
        a.addAll(java.util.List.of(args));
        return TrainPredictCommandTest.run(a.toArray(String[]::new));
    }

    static JsonNode curve(Path report) throws IOException {
        return new ObjectMapper().readTree(report.toFile()).get("iterations");
    }

    /**
     * Class and example weights with {@code --checkpoint}/{@code --resume}, under the paper schedule
     * and an extrapolating one: the checkpoint records the weights as given, a resume without weight
     * options continues with them and equals the uninterrupted weighted run (every curve row); the
     * weights matter (the unweighted run's curve differs); a resume with other weights is one error.
     */
    @Test
    void weightsCheckpointAndResumeUnderEverySchedule() throws IOException {
        Path w = shared.resolve("resume-w.txt");
        Files.writeString(w, "000.npz 3\n001.npz 0.5\n");
        for (String schedule : java.util.List.of("paper", "extrapolate")) {
            Path dir = shared.resolve("resume-" + schedule), ck = dir.resolve("ck");
            String[] weights = {"--class-weights", "1,4", "--example-weights", w.toString(), "--schedule", schedule};
            TrainPredictCommandTest.Run r = run(concat(weights, "--iterations", "4", "--report", dir.resolve("plain.json").toString()));
            assertEquals(0, r.code(), r.err());
            r = run("--schedule", schedule, "--iterations", "4", "--report", dir.resolve("unweighted.json").toString());
            assertEquals(0, r.code(), r.err());
            r = run(concat(weights, "--iterations", "2", "--checkpoint", ck.toString(), "--checkpoint-every", "1"));
            assertEquals(0, r.code(), r.err());
            JsonNode manifest = new ObjectMapper().readTree(ck.resolve("iteration-000002/checkpoint.json").toFile());
            assertEquals("[1.0,4.0]", manifest.path("weights").path("classWeights").toString());
            assertEquals("[3.0,0.5,1.0]", manifest.path("weights").path("exampleWeights").toString());
            // a resume goes on checkpointing into the folder it resumed from: resume a copy, the state of iteration 2 stays for the checks below
            Path copy = dir.resolve("ck-copy");
            CheckpointTest.copyTree(ck, copy);
            r = TrainPredictCommandTest.run("train", "--resume", copy.toString(), "--data", data.toString(), "--iterations", "4", "--quiet",
                    "--report", dir.resolve("resumed.json").toString(), "--output", dir.resolve("model").toString());
            assertEquals(0, r.code(), r.err());
            TrainPredictCommandTest.assertSameCurve(dir.resolve("plain.json"), dir.resolve("resumed.json"), 4, schedule);
            JsonNode a = curve(dir.resolve("plain.json")), u = curve(dir.resolve("unweighted.json"));
            assertTrue(a.get(3).get("objective").asDouble() != u.get(3).get("objective").asDouble(), schedule + ": the weights change nothing");
            JsonNode recorded = new ObjectMapper().readTree(dir.resolve("model/model.json").toFile()).path("settings").path("weights");
            assertEquals("[1.0,4.0]", recorded.path("classWeights").toString());
            // the same weights given again are accepted; others are one error
            r = TrainPredictCommandTest.run("train", "--resume", ck.toString(), "--data", data.toString(), "--iterations", "3", "--quiet",
                    "--class-weights", "1,4", "--example-weights", w.toString());
            assertEquals(0, r.code(), r.err());
            r = TrainPredictCommandTest.run("train", "--resume", ck.toString(), "--data", data.toString(), "--iterations", "3", "--quiet",
                    "--class-weights", "balanced", "--example-weights", w.toString(), "--output", dir.resolve("other").toString());
            assertEquals(2, r.code(), r.err());
            assertTrue(r.err().startsWith("error: " + ck + ": the checkpoint was trained with class weights [1.0, 4.0], example weights 3 given, not"
                    + " class weights balanced"), r.err());
            assertEquals(1, r.err().strip().lines().count(), r.err());
            assertFalse(Files.exists(dir.resolve("other")));
        }
    }

    private static String[] concat(String[] a, String... b) {
        String[] out = java.util.Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }

    @Test
    void badWeightsAreOneErrorAndNoModel() throws IOException {
        Path w = shared.resolve("bad.txt");
        Files.writeString(w, "000.npz 1\nnope.npz 2\n");
        Path twice = shared.resolve("twice.txt");
        Files.writeString(twice, "000.npz 1\n000 2\n");
        String[][] cases = {
                {"--class-weights", "1,2,3"}, {"3 class weights for 2 labels"},
                {"--class-weights", "1,heavy"}, {"'heavy' is not a number"},
                {"--class-weights", "0,0"}, {"is 0"},
                {"--example-weights", w.toString()}, {"bad.txt: line 2: no training example named nope.npz"},
                {"--example-weights", twice.toString()}, {"twice.txt: line 2: 000 is listed twice"},
                {"--example-weights", shared.resolve("missing.txt").toString()}, {"missing.txt: cannot read --example-weights"},
        };
        for (int k = 0; k < cases.length; k += 2) {
            TrainPredictCommandTest.Run r = train("bad" + k, cases[k]);
            assertEquals(2, r.code(), String.join(" ", cases[k]) + ": " + r.err());
            assertTrue(r.err().contains(cases[k + 1][0]), r.err());
            assertEquals(1, r.err().strip().lines().count(), "one line: " + r.err());
            assertFalse(Files.exists(shared.resolve("bad" + k)), "no model written");
        }
    }
}
