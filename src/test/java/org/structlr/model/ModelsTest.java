package org.structlr.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.structlr.learn.DataHashes;
import org.structlr.features.HorseLoader;
import org.structlr.features.ImageFeatures;
import org.structlr.data.Dataset;
import org.structlr.data.DenoisingGenerator;
import org.structlr.learn.Training;

/** The ready-made models under models/ load as shipped and reach the test error their cards state. */
class ModelsTest {
    static final Path MODELS = Path.of("models");

    /** The horses model: its test images are read from ../shared (CI=true fails when they are missing). */
    @Test
    void horsesModelReachesItsStatedTestError() throws Exception {
        horsesModelReachesItsStatedTestError("horses");
    }

    /** fcn2: the deep horses model (fcn unary, mlp pairwise), checked the same way. */
    @Test
    void horsesFcnModelReachesItsStatedTestError() throws Exception {
        horsesModelReachesItsStatedTestError("horses-fcn");
    }

    private static void horsesModelReachesItsStatedTestError(String name) throws Exception {
        Path dir = MODELS.resolve(name);
        JsonNode card = new ObjectMapper().readTree(dir.resolve("card.json").toFile());
        assertTrue(Files.isRegularFile(dir.resolve("MODEL_CARD.md")), "model card missing");
        Path db = HorseLoader.DEFAULT_DB;
        if (!Files.isDirectory(db)) {
            if ("true".equals(System.getenv("CI"))) fail("the horse data set is missing at " + db.toAbsolutePath() + " (CI=true)");
            Assumptions.abort("no horse data set at " + db.toAbsolutePath());
        }
        JsonNode d = card.path("data");
        Dataset data = new HorseLoader(db, d.path("height").asInt(), d.path("width").asInt()).dataset(new ImageFeatures());
        CrfModel model = CrfModel.load(dir);
        // predict featurises photos by the recipe the model carries: it must be the card's
        java.util.Map<?, ?> recipe = (java.util.Map<?, ?>) model.provenance().get("images");
        assertEquals(java.util.List.of(d.path("features").asText(), d.path("height").asInt(), d.path("width").asInt()),
                java.util.Arrays.asList(recipe.get("unary_features"), recipe.get("height"), recipe.get("width")));
        ExampleBatch test = new ExampleBatch(data.test(), model.numLabels(), model.pairTypes());
        JsonNode ev = card.path("evaluate");
        Predictor.Prediction p = Predictor.predict(model, test,
                Predictor.defaultStop(test, ev.path("iterations").asInt(), ev.path("tolerance").asDouble()));
        assertEquals(card.path("test_error").asDouble(), org.structlr.model.Potentials.error(test, p.labels()), 5e-5);
    }

    @Test
    void denoisingModelReachesItsStatedTestError() throws Exception {
        Path dir = MODELS.resolve("denoise-boost");
        JsonNode card = new ObjectMapper().readTree(dir.resolve("card.json").toFile());
        assertTrue(Files.isRegularFile(dir.resolve("MODEL_CARD.md")), "model card missing");
        JsonNode d = card.path("data");
        Dataset data = new DenoisingGenerator().generate(d.path("train").asInt(), d.path("test").asInt(),
                d.path("height").asInt(), d.path("width").asInt(), d.path("seed").asLong());
        CrfModel model = CrfModel.load(dir);
        assertEquals(model.provenance().get("dataHash"), DataHashes.dataHash(data), "regenerated data differ from the training data");
        ExampleBatch test = new ExampleBatch(data.test(), model.numLabels(), model.pairTypes());
        JsonNode ev = card.path("evaluate");
        Predictor.Prediction p = Predictor.predict(model, test,
                Predictor.defaultStop(test, ev.path("iterations").asInt(), ev.path("tolerance").asDouble()));
        assertEquals(card.path("test_error").asDouble(), org.structlr.model.Potentials.error(test, p.labels()), 5e-5);
    }
}
