package org.structlr.model;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.structlr.data.Dataset;
import org.structlr.data.DenoisingGenerator;
import org.structlr.features.HorseLoader;
import org.structlr.features.ImageFeatures;
import org.structlr.learn.DataHashes;

/**
 * The ready-made models under models/ load as shipped, and their cards are true: the data the card
 * describes is rebuilt and hashed (the card's hash, the model's provenance), the model reaches the
 * card's test error on it, the card's commit is the provenance's, MODEL_CARD.md states what
 * card.json states, and export/ beside the model is what {@code structlr export} writes for it today.
 */
class ModelsTest {
    static final Path MODELS = Path.of("models");
    static final ObjectMapper JSON = new ObjectMapper();

    /**
     * The Weizmann horses for the horse models: STRUCTLR_HORSE_DB, else the project's data folder
     * beside the checkout (CI=true fails when it is missing).
     */
    static Path horseDb() {
        String override = System.getenv("STRUCTLR_HORSE_DB");
        return override != null && !override.isBlank() ? Path.of(override) : Path.of("..", "shared", "data", "weizmann_horse_db");
    }

    @Test
    void horsesModelReachesItsStatedTestError() throws Exception {
        horsesModelIsAsItsCardSays("horses");
    }

    /** The deep horses model (fcn unary, mlp pairwise), checked the same way. */
    @Test
    void horsesFcnModelReachesItsStatedTestError() throws Exception {
        horsesModelIsAsItsCardSays("horses-fcn");
    }

    /** The deep horses model with the U-Net unary ({@code --unary-option arch=unet}), checked the same way. */
    @Test
    void horsesUnetModelReachesItsStatedTestError() throws Exception {
        horsesModelIsAsItsCardSays("horses-unet");
    }

    /**
     * The U-Net fine-tuned at 72x96 with 8 px HOG cells (the card's data.cell), checked the same way:
     * four times the pixels of the 36x48 models, so about three times their time (85 s at load 19).
     */
    @Test
    void horsesUnet72x96ModelReachesItsStatedTestError() throws Exception {
        horsesModelIsAsItsCardSays("horses-unet-72x96");
    }

    private static void horsesModelIsAsItsCardSays(String name) throws Exception {
        Path dir = MODELS.resolve(name);
        JsonNode card = JSON.readTree(dir.resolve("card.json").toFile());
        Path db = horseDb();
        if (!Files.isDirectory(db)) {
            if ("true".equals(System.getenv("CI"))) fail("the horse data set is missing at " + db.toAbsolutePath() + " (CI=true)");
            Assumptions.abort("no horse data set at " + db.toAbsolutePath() + " (set STRUCTLR_HORSE_DB)");
        }
        JsonNode d = card.path("data");
        // the HOG cell side the card names (horses-data --cell), else the default 4 px
        Dataset data = new HorseLoader(db, d.path("height").asInt(), d.path("width").asInt())
                .dataset(new ImageFeatures(d.path("cell").asInt(4)));
        CrfModel model = CrfModel.load(dir);
        // predict featurises photos by the recipe the model carries: it must be the card's
        java.util.Map<?, ?> recipe = (java.util.Map<?, ?>) model.provenance().get("images");
        assertEquals(List.of(d.path("features").asText(), d.path("height").asInt(), d.path("width").asInt()),
                java.util.Arrays.asList(recipe.get("unary_features"), recipe.get("height"), recipe.get("width")));
        if (d.has("cell")) assertEquals(d.path("cell").asInt(), ((Number) recipe.get("cell")).intValue(), dir + ": the recipe's HOG cell");
        cardIsTrue(dir, card, model, data);
    }

    @Test
    void denoisingModelReachesItsStatedTestError() throws Exception {
        Path dir = MODELS.resolve("denoise-boost");
        JsonNode card = JSON.readTree(dir.resolve("card.json").toFile());
        JsonNode d = card.path("data");
        Dataset data = new DenoisingGenerator().generate(d.path("train").asInt(), d.path("test").asInt(),
                d.path("height").asInt(), d.path("width").asInt(), d.path("seed").asLong());
        cardIsTrue(dir, card, CrfModel.load(dir), data);
    }

    /**
     * The card against the model and the rebuilt data: hashes (data_hash = the provenance's
     * dataHash; the rebuilt data's hash = data_hash_today when the card says the data changed since
     * training, else data_hash), commit, test error, and the Markdown card quoting them.
     */
    private static void cardIsTrue(Path dir, JsonNode card, CrfModel model, Dataset data) throws IOException {
        String trained = card.path("data_hash").asText();
        assertEquals(trained, model.provenance().get("dataHash"), dir + ": card.json data_hash is not the data hash the model recorded");
        String today = card.has("data_hash_today") ? card.path("data_hash_today").asText() : trained;
        assertEquals(today, DataHashes.dataHash(data), dir + ": the rebuilt data's hash is not the card's");
        Object commit = model.provenance().get("gitCommit");
        if (commit != null) assertEquals(commit, card.path("commit").asText(), dir + ": card.json commit is not the provenance's");

        ExampleBatch test = new ExampleBatch(data.test(), model.numLabels(), model.pairTypes());
        JsonNode ev = card.path("evaluate");
        Predictor.Prediction p = Predictor.predict(model, test,
                Predictor.defaultStop(test, ev.path("iterations").asInt(), ev.path("tolerance").asDouble()));
        assertEquals(card.path("test_error").asDouble(), Potentials.error(test, p.labels()), 5e-5);

        String md = Files.readString(dir.resolve("MODEL_CARD.md"), StandardCharsets.UTF_8);
        List<String> quoted = new ArrayList<>(List.of(trained, today, String.format(Locale.ROOT, "**%.4f**", card.path("test_error").asDouble())));
        if (!card.path("commit").asText().isEmpty()) quoted.add(card.path("commit").asText().substring(0, 7));
        for (String s : quoted) assertTrue(md.contains(s), dir + "/MODEL_CARD.md does not state " + s);
    }

    @Test
    void exportsBesideTheModelsAreWhatExportWritesToday(@TempDir Path tmp) throws Exception {
        for (String name : List.of("denoise-boost", "horses", "horses-fcn", "horses-unet", "horses-unet-72x96")) {
            Path dir = MODELS.resolve(name), shipped = dir.resolve("export"), fresh = tmp.resolve(name);
            ModelExport.export(CrfModel.load(dir), fresh);
            assertEquals(files(fresh), files(shipped), name + ": the files of export/");
            for (String f : files(fresh)) {
                Path a = shipped.resolve(f), b = fresh.resolve(f);
                if (f.endsWith(".zip")) {
                    zipEntriesEqual(a, b);
                } else if (f.endsWith(".json")) {
                    assertEquals(JSON.readTree(b.toFile()), JSON.readTree(a.toFile()), a + " differs from a fresh export");
                } else {
                    assertArrayEquals(Files.readAllBytes(b), Files.readAllBytes(a), a + " differs from a fresh export");
                }
            }
        }
    }

    /**
     * DL4J zips: the same entries with the same bytes; configuration.json compared without its
     * "seed" fields (a ComputationGraph configuration built at export time takes the clock's time as
     * its seed, which no inference reads).
     */
    private static void zipEntriesEqual(Path shipped, Path fresh) throws IOException {
        try (ZipFile a = new ZipFile(shipped.toFile()); ZipFile b = new ZipFile(fresh.toFile())) {
            List<String> names = Collections.list(b.entries()).stream().map(ZipEntry::getName).sorted().collect(Collectors.toList());
            assertEquals(names, Collections.list(a.entries()).stream().map(ZipEntry::getName).sorted().collect(Collectors.toList()), shipped + ": entries");
            for (String n : names) {
                byte[] x = a.getInputStream(a.getEntry(n)).readAllBytes(), y = b.getInputStream(b.getEntry(n)).readAllBytes();
                if (n.equals("configuration.json")) {
                    assertEquals(withoutSeeds(y), withoutSeeds(x), shipped + "!" + n + " differs from a fresh export");
                } else {
                    assertArrayEquals(y, x, shipped + "!" + n + " differs from a fresh export");
                }
            }
        }
    }

    private static String withoutSeeds(byte[] json) {
        return new String(json, StandardCharsets.UTF_8).lines().filter(l -> !l.trim().startsWith("\"seed\"")).collect(Collectors.joining("\n"));
    }

    private static List<String> files(Path dir) throws IOException {
        try (Stream<Path> s = Files.list(dir)) {
            return s.map(p -> p.getFileName().toString()).sorted().collect(Collectors.toList());
        }
    }
}
