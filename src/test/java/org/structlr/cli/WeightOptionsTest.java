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
                {"--class-weights", "balanced", "--checkpoint", shared.resolve("cp").toString()}, {"do not work with --checkpoint/--resume yet"},
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
