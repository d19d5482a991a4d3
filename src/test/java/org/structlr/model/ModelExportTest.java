package org.structlr.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.zip.ZipFile;
import ml.dmlc.xgboost4j.java.Booster;
import ml.dmlc.xgboost4j.java.XGBoost;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.structlr.data.BadInputException;
import org.structlr.data.Dataset;
import org.structlr.data.DenoisingGenerator;
import org.structlr.learn.LearnListener;
import org.structlr.learn.LearnSettings;
import org.structlr.learn.Training;
import org.structlr.oracle.BiasedLogisticProblem;
import org.structlr.oracle.boost.BoostOracle;
import org.structlr.oracle.boost.BoosterExport;
import org.structlr.oracle.boost.BoostScore;
import org.structlr.oracle.fcn.FullyConvolutionalScore;
import org.structlr.graph.GridBatch;
import org.structlr.oracle.ScoreFunction;

/**
 * Export of a model of every function class, restored by plain DL4J / XGBoost in a child JVM that
 * has no structlr classes, compared with structlr's own scores.
 */
class ModelExportTest {
    @TempDir
    static Path shared;

    @TempDir
    Path tmp;

    static final Map<String, CrfModel> MODELS = new LinkedHashMap<>();
    static final Map<String, Path> EXPORTS = new LinkedHashMap<>();
    static final Map<String, CrfModel> EXPORTED = new LinkedHashMap<>();
    static BoostScore olderSnapshot;

    @BeforeAll
    static void trainAndExport() throws IOException {
        Dataset data = new DenoisingGenerator().generate(2, 2, 12, 12, 11);
        for (String k : List.of("zero", "const", "linear", "mlp", "boost", "fcn")) {   // cnn: unary only, on patch features: CnnOracleTest exports it
            CrfModel m = Training.train(data, k, k, new LearnSettings(2, 0.1, 3, 3, 11), 1, LearnListener.NONE).model();
            MODELS.put(k, m);
            Path out = shared.resolve("export-" + k);
            ModelExport.export(m, out);
            EXPORTS.put(k, out);
            EXPORTED.put(k, m);
        }
        // A boost snapshot older than its booster: continue the unary ensemble by one round, then
        // export the (unchanged) model again, which must slice the booster to the snapshot's rounds.
        CrfModel boost = MODELS.get("boost");
        olderSnapshot = (BoostScore) boost.unary();
        int d = olderSnapshot.numFeatures();
        Random rng = new Random(3);
        double[] x = new double[200 * d];
        int[] y = new int[200];
        for (int i = 0; i < x.length; i++) x[i] = rng.nextDouble();
        for (int i = 0; i < y.length; i++) y[i] = rng.nextInt(2);
        BiasedLogisticProblem p = new BiasedLogisticProblem(Nd4j.create(x, new long[]{200, d}, DataType.FLOAT).castTo(DataType.FLOAT),
                y, Nd4j.zeros(DataType.FLOAT, 200, 2), 2);
        try (BoostOracle oracle = new BoostOracle(1, 5)) {
            oracle.fit(p, olderSnapshot);
        }
        Path sliced = shared.resolve("export-boost-sliced");
        ModelExport.export(boost, sliced);
        EXPORTS.put("boost-sliced", sliced);
        EXPORTED.put("boost-sliced", boost);
    }

    static ScoreFunction function(CrfModel m, int t) {
        return t == 0 ? m.unary() : m.pair().get(t - 1);
    }

    static double[][] randomFeatures(int n, int d, long seed) {
        Random rng = new Random(seed);
        double[][] x = new double[n][d];
        for (double[] r : x) for (int j = 0; j < d; j++) r[j] = (float) (rng.nextDouble() * 1.2 - 0.1);
        return x;
    }

    static void assertClose(double[][] want, double[][] got, String what) {
        assertEquals(want.length, got.length, what + ": rows");
        for (int i = 0; i < want.length; i++) {
            assertEquals(want[i].length, got[i].length, what + ": columns");
            for (int j = 0; j < want[i].length; j++) {
                double tol = 1e-6 * Math.max(1, Math.abs(want[i][j]));
                assertEquals(want[i][j], got[i][j], tol, what + " [" + i + "," + j + "]");
            }
        }
    }

    @Test
    void slicingWasExercised() {
        assertTrue(olderSnapshot.boosterRounds() > olderSnapshot.rounds(),
                "the booster should hold more rounds than the snapshot: " + olderSnapshot.boosterRounds() + " vs " + olderSnapshot.rounds());
    }

    @Test
    void manifestDescribesEveryFactorType() throws IOException {
        for (Map.Entry<String, Path> e : EXPORTS.entrySet()) {
            CrfModel m = EXPORTED.get(e.getKey());
            JsonNode man = ModelExport.readManifest(e.getValue());
            assertEquals(ModelExport.FORMAT, man.path("format").asText());
            assertEquals(ModelExport.VERSION, man.path("version").asInt());
            assertEquals(m.numLabels(), man.path("numLabels").asInt());
            assertEquals(m.eps(), man.path("eps").asDouble());
            assertEquals(m.unaryFeatures(), man.path("features").path("unary").path("width").asInt());
            assertEquals(m.pairFeatures(), man.path("features").path("pairwise").path("width").asInt());
            assertEquals(m.provenance().get("dataHash"), man.path("provenance").path("dataHash").asText());
            assertTrue(man.path("energy").path("formula").asText().contains("y_i * L + y_j"));
            JsonNode types = man.path("factorTypes");
            assertEquals(1 + m.pairTypes().size(), types.size());
            for (int t = 0; t < types.size(); t++) {
                JsonNode ft = types.get(t);
                ScoreFunction f = function(m, t);
                assertEquals(t == 0 ? "unary" : m.pairTypes().get(t - 1), ft.path("name").asText());
                assertEquals(f.kind(), ft.path("kind").asText());
                assertEquals(t == 0 ? m.numLabels() : m.numLabels() * m.numLabels(), ft.path("numClasses").asInt());
                assertTrue(Files.isRegularFile(e.getValue().resolve(ft.path("file").asText())), ft.toString());
                assertEquals(f instanceof BoostScore ? "xgboost-json" : f instanceof FullyConvolutionalScore ? "dl4j-computationgraph"
                        : "dl4j-multilayernetwork", ft.path("format").asText());
                if (f instanceof BoostScore bs) assertEquals(bs.rounds(), ft.path("rounds").asInt());
            }
            // trained on denoising images: the provenance records a grid
            assertEquals("grid4", man.path("graph").path("kind").asText());
        }
    }

    @Test
    void dl4jZipsNameNoStructlrClass() throws IOException {
        for (Path dir : EXPORTS.values()) {
            try (var files = Files.list(dir)) {
                for (Path zip : files.filter(p -> p.toString().endsWith(".zip")).toList()) {
                    try (ZipFile z = new ZipFile(zip.toFile())) {
                        String conf = new String(z.getInputStream(z.getEntry("configuration.json")).readAllBytes(), StandardCharsets.UTF_8);
                        assertFalse(conf.contains("structlr"), zip + " names a structlr class");
                        assertTrue(conf.contains("LossMSE"), zip + ": expected the built-in loss");
                    }
                }
            }
        }
    }

    /** The round trip: every exported file restored in a JVM without structlr equals structlr's scores. */
    @Test
    void plainRuntimeReproducesScores() throws Exception {
        List<String> triples = new ArrayList<>();
        List<double[][]> expected = new ArrayList<>();
        List<String> names = new ArrayList<>();
        Map<Integer, JsonNode> fcnGroups = new java.util.HashMap<>();
        int k = 0;
        for (Map.Entry<String, Path> e : EXPORTS.entrySet()) {
            CrfModel m = EXPORTED.get(e.getKey());
            JsonNode types = ModelExport.readManifest(e.getValue()).path("factorTypes");
            for (int t = 0; t < types.size(); t++, k++) {
                JsonNode ft = types.get(t);
                Path csv = tmp.resolve("x" + k + ".csv");
                if (function(m, t) instanceof FullyConvolutionalScore fcn) {
                    // fcn: one whole 6 x 9 image; the checker writes each pixel's output channels
                    double[][] x = randomFeatures(6 * 9, ft.path("features").asInt(), 100 + k);
                    PlainRuntime.writeCsv(csv, x);
                    Files.writeString(csv, "image,6,9\n" + Files.readString(csv));
                    INDArray xs = Nd4j.createFromArray(x).castTo(DataType.FLOAT);
                    expected.add(fcn.imageScores(xs, GridBatch.uniform(1, 6, 9)).castTo(DataType.DOUBLE).toDoubleMatrix());
                    fcnGroups.put(expected.size() - 1, ft);
                } else {
                    double[][] x = randomFeatures(25, ft.path("features").asInt(), 100 + k);
                    PlainRuntime.writeCsv(csv, x);
                    INDArray xs = Nd4j.createFromArray(x).castTo(DataType.FLOAT);
                    expected.add(function(m, t).scores(xs).castTo(DataType.DOUBLE).toDoubleMatrix());
                }
                names.add(e.getKey() + "/" + ft.path("name").asText());
                triples.addAll(List.of(e.getValue().resolve(ft.path("file").asText()).toString(), csv.toString(),
                        tmp.resolve("y" + k + ".csv").toString()));
            }
        }
        String out = PlainRuntime.run(tmp.resolve("checker"), triples);
        assertTrue(out.contains("ok"), out);
        assertFalse(fcnGroups.isEmpty(), "an fcn model was exported");
        for (int i = 0; i < expected.size(); i++) {
            double[][] got = PlainRuntime.readCsv(tmp.resolve("y" + i + ".csv"));
            if (fcnGroups.containsKey(i)) got = fcnRows(got, fcnGroups.get(i), 6, 9);
            assertClose(expected.get(i), got, names.get(i));
        }
    }

    /**
     * The per-pixel channels a plain runtime computed ([H*W, K*C], row r*W+c) as structlr's rows, read
     * as the manifest says: unary, one row per pixel; pairwise, the horizontal edge (r,c)-(r,c+1) from
     * channels 0..C-1 of pixel (r,c), then the vertical edge (r,c)-(r+1,c) from channels C..2C-1.
     */
    static double[][] fcnRows(double[][] perPixel, JsonNode ft, int h, int w) {
        assertTrue(ft.path("wholeImage").asBoolean(), ft.toString());
        int groups = ft.path("groups").asInt(), c = ft.path("numClasses").asInt();
        if (groups == 1) return perPixel;
        assertEquals(2, groups);
        assertTrue(ft.path("mapping").asText().contains("output[0, " + c + " + y_i * L + y_j, r, c] (vertical edges)"), ft.toString());
        List<double[]> rows = new ArrayList<>();
        for (int r = 0; r < h; r++) for (int col = 0; col + 1 < w; col++) rows.add(java.util.Arrays.copyOfRange(perPixel[r * w + col], 0, c));
        for (int r = 0; r + 1 < h; r++) for (int col = 0; col < w; col++) rows.add(java.util.Arrays.copyOfRange(perPixel[r * w + col], c, 2 * c));
        return rows.toArray(new double[0][]);
    }

    /** XGBoost in this JVM: a fresh Booster from the exported file, margins vs BoostScore.scores. */
    @Test
    void freshBoosterMarginsEqualScores() throws Exception {
        for (String key : List.of("boost", "boost-sliced")) {
            CrfModel m = EXPORTED.get(key);
            JsonNode types = ModelExport.readManifest(EXPORTS.get(key)).path("factorTypes");
            for (int t = 0; t < types.size(); t++) {
                BoostScore bs = (BoostScore) function(m, t);
                Booster b = XGBoost.loadModel(EXPORTS.get(key).resolve(types.get(t).path("file").asText()).toString());
                try {
                    assertEquals(bs.rounds(), b.getNumBoostedRound(), key + " type " + t);
                    double[][] x = randomFeatures(40, bs.numFeatures(), 7 + t);
                    INDArray xs = Nd4j.createFromArray(x).castTo(DataType.FLOAT);
                    double[][] got = BoosterExport.margins(b, xs).castTo(DataType.DOUBLE).toDoubleMatrix();
                    assertClose(bs.scores(xs).castTo(DataType.DOUBLE).toDoubleMatrix(), got, key + " type " + t);
                } finally {
                    b.dispose();
                }
            }
        }
    }

    @Test
    void gridWhenAskedOrRecorded() throws IOException {
        CrfModel m = MODELS.get("const");
        Path out = tmp.resolve("grid");
        ModelExport.export(m, out, ModelExport.Graph.GRID);
        JsonNode g = ModelExport.readManifest(out).path("graph");
        assertEquals("grid4", g.path("kind").asText());
        assertEquals("horizontal", g.path("edgeTypes").path("0").asText());
        assertEquals("vertical", g.path("edgeTypes").path("1").asText());
        Map<String, Object> prov = new LinkedHashMap<>(m.provenance());
        prov.put("grid", true);
        CrfModel flagged = new CrfModel(m.numLabels(), m.eps(), m.unaryFeatures(), m.pairFeatures(), m.pairTypes(), m.unary(),
                m.pair(), m.settings(), prov);
        ModelExport.export(flagged, out);   // replaces the earlier export
        assertEquals("grid4", ModelExport.readManifest(out).path("graph").path("kind").asText());
    }

    @Test
    void refusesToReplaceAForeignFolder() throws IOException {
        Path out = tmp.resolve("mine");
        Files.createDirectories(out);
        Files.writeString(out.resolve("notes.txt"), "keep me");
        assertThrows(BadInputException.class, () -> ModelExport.export(MODELS.get("zero"), out));
        assertEquals("keep me", Files.readString(out.resolve("notes.txt")));
        try (var s = Files.list(tmp)) {
            assertEquals(List.of(out), s.toList(), "no temporary folder left behind");
        }
    }
}
