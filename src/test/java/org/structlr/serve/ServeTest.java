package org.structlr.serve;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.awt.image.BufferedImage;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.structlr.cli.Main;
import org.structlr.data.DenoisingGenerator;
import org.structlr.data.Example;
import org.structlr.data.ExampleIO;
import org.structlr.data.NpyArray;
import org.structlr.data.Npz;

/**
 * The server against the CLI: answers equal {@code predict}'s files bit for bit, in batches and
 * alone, for .npz, JSON and photos; every bad request gets its documented status and one JSON
 * error, and the next good request is answered; a full queue is 503 with Retry-After; a request
 * over the timeout is 503.
 */
class ServeTest {
    static final Path DENOISE = Path.of("models/denoise-boost"), HORSES = Path.of("models/horses");
    static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    static Path tmp;

    static ModelServer denoise, horses;
    static ServeClient dn, hs;
    static final List<Path> EXAMPLES = new ArrayList<>();
    static final List<Map<String, NpyArray>> PREDICTED = new ArrayList<>();
    static final AtomicInteger LARGEST_BATCH = new AtomicInteger();

    static int predictCli(String... args) {
        StringWriter out = new StringWriter(), err = new StringWriter();
        int code = Main.execute(new PrintWriter(out, true), new PrintWriter(err, true), args);
        assertEquals(0, code, "predict " + String.join(" ", args) + ": " + err);
        return code;
    }

    @BeforeAll
    static void start() throws Exception {
        int[][] sizes = {{20, 24}, {16, 16}, {30, 10}, {12, 12}};
        for (int k = 0; k < sizes.length; k++) {
            Example ex = new DenoisingGenerator().generate(1, 1, sizes[k][0], sizes[k][1], 40 + k).test().get(0);
            Path f = tmp.resolve("ex" + k + ".npz"), out = tmp.resolve("ex" + k + "-predicted.npz");
            ExampleIO.write(f, ex);
            predictCli("predict", "--model", DENOISE.toString(), "--input", f.toString(), "--output", out.toString(), "--threads", "1", "--quiet");
            EXAMPLES.add(f);
            PREDICTED.add(Npz.read(out));
        }
        ServeSettings s = ServeSettings.defaults().withPort(0).withBatching(4, 400, 64).withLimits(1 << 20, 1_000_000, 60_000);
        denoise = ModelServer.start(DENOISE, s).awaitReady(120_000);
        denoise.batcher().beforeBatch = b -> LARGEST_BATCH.accumulateAndGet(b.size(), Math::max);
        horses = ModelServer.start(HORSES, s).awaitReady(120_000);
        dn = new ServeClient(denoise.url());
        hs = new ServeClient(horses.url());
    }

    @AfterAll
    static void stop() {
        if (denoise != null) denoise.close();
        if (horses != null) horses.close();
    }

    static void assertSameArray(NpyArray want, NpyArray got, String what) {
        assertNotNull(got, what + " missing");
        assertArrayEquals(want.shape(), got.shape(), what + ": shape");
        if (want.dtype().isFloating()) {
            float[] a = want.toFloatArray(), b = got.toFloatArray();
            for (int i = 0; i < a.length; i++) assertEquals(Float.floatToIntBits(a[i]), Float.floatToIntBits(b[i]), what + " [" + i + "]");
        } else {
            assertArrayEquals(want.toIntArray(), got.toIntArray(), what);
        }
    }

    @Test
    void npzAnswersEqualPredictsFilesInABatchAndAlone() throws Exception {
        LARGEST_BATCH.set(0);
        List<CompletableFuture<ServeClient.Answer>> together = new ArrayList<>();
        for (Path f : EXAMPLES) together.add(dn.postAsync("/v1/predict?marginals=true", Requests.NPZ, Files.readAllBytes(f), Requests.NPZ));
        for (int k = 0; k < EXAMPLES.size(); k++) {
            ServeClient.Answer a = together.get(k).get(120, TimeUnit.SECONDS);
            assertEquals(200, a.status(), a.text());
            Map<String, NpyArray> got = ServeClient.npz(a.body(), tmp);
            for (String key : List.of("labels", "marginals", "shape")) assertSameArray(PREDICTED.get(k).get(key), got.get(key), "example " + k + " " + key);
        }
        assertTrue(LARGEST_BATCH.get() >= 2, "the concurrent requests rode in one batch: largest " + LARGEST_BATCH.get());
        for (int k = 0; k < EXAMPLES.size(); k++) {
            ServeClient.Answer a = dn.post("/v1/predict?marginals=true", Requests.NPZ, Files.readAllBytes(EXAMPLES.get(k)), Requests.NPZ);
            assertEquals(200, a.status(), a.text());
            assertSameArray(PREDICTED.get(k).get("marginals"), ServeClient.npz(a.body(), tmp).get("marginals"), "alone: example " + k);
        }
    }

    /** The JSON form of an example file: the .npz arrays as nested lists. */
    static byte[] jsonOf(Path npz) throws IOException {
        Example ex = ExampleIO.read(npz);
        Map<String, Object> m = new java.util.LinkedHashMap<>();
        float[][] u = new float[ex.numVariables()][ex.unaryDim()], p = new float[ex.numEdges()][ex.pairDim()];
        int[][] e = new int[ex.numEdges()][];
        for (int v = 0; v < u.length; v++) for (int d = 0; d < ex.unaryDim(); d++) u[v][d] = ex.unary(v, d);
        for (int k = 0; k < p.length; k++) {
            for (int d = 0; d < ex.pairDim(); d++) p[k][d] = ex.pairwise(k, d);
            e[k] = new int[] {ex.edgeFrom(k), ex.edgeTo(k)};
        }
        m.put("unary", u);
        m.put("edges", e);
        m.put("pairwise", p);
        ex.shape().ifPresent(s -> m.put("shape", s));
        ex.edgeTypes().ifPresent(t -> m.put("edge_type", t));
        return JSON.writeValueAsBytes(m);
    }

    @Test
    void jsonAnswersEqualPredictsFiles() throws Exception {
        for (int k = 0; k < EXAMPLES.size(); k++) {
            ServeClient.Answer a = dn.post("/v1/predict?marginals=true", Requests.JSON, jsonOf(EXAMPLES.get(k)), null);
            assertEquals(200, a.status(), a.text());
            JsonNode j = JSON.readTree(a.body());
            int[] labels = JSON.treeToValue(j.get("labels"), int[].class);
            assertArrayEquals(PREDICTED.get(k).get("labels").toIntArray(), labels, "example " + k);
            float[][] marg = JSON.treeToValue(j.get("marginals"), float[][].class);
            float[] want = PREDICTED.get(k).get("marginals").toFloatArray();
            for (int v = 0; v < marg.length; v++) {
                for (int y = 0; y < 2; y++) assertEquals(Float.floatToIntBits(want[v * 2 + y]), Float.floatToIntBits(marg[v][y]), "example " + k + " [" + v + "," + y + "]");
            }
            assertEquals(1, j.get("model_generation").asInt());
            assertTrue(j.get("sweeps").asInt() > 0);
        }
    }

    /** A photo-like RGB image: smooth colour fields and noise, deterministic. */
    static BufferedImage photo(int h, int w, long seed) {
        Random r = new Random(seed);
        BufferedImage img = new BufferedImage(w, h, BufferedImage.TYPE_INT_RGB);
        for (int y = 0; y < h; y++) {
            for (int x = 0; x < w; x++) {
                int red = (int) (128 + 100 * Math.sin(x / 7.0 + seed)) + r.nextInt(20);
                int green = (int) (128 + 100 * Math.cos(y / 5.0)) + r.nextInt(20);
                int blue = (x * y + r.nextInt(30)) % 256;
                img.setRGB(x, y, (Math.min(255, red) << 16) | (Math.min(255, green) << 8) | blue);
            }
        }
        return img;
    }

    static byte[] encode(BufferedImage img, String format) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        assertTrue(ImageIO.write(img, format, out));
        return out.toByteArray();
    }

    @Test
    void photosEqualPredictsMaskAndProbabilities() throws Exception {
        for (String format : List.of("png", "jpg")) {
            byte[] bytes = encode(photo(45, 70, format.length()), format.equals("jpg") ? "jpeg" : "png");
            Path in = tmp.resolve("photo." + format), mask = tmp.resolve("photo-" + format + "-mask.png"), probs = tmp.resolve("photo-" + format + ".npz");
            Files.write(in, bytes);
            predictCli("predict", "--model", HORSES.toString(), "--input", in.toString(), "--output", mask.toString(), "--probabilities",
                    probs.toString(), "--threads", "1", "--quiet");
            // the mask: the same pixels
            ServeClient.Answer png = hs.post("/v1/segment", "image/" + (format.equals("jpg") ? "jpeg" : "png"), bytes, null);
            assertEquals(200, png.status(), png.text());
            assertEquals(Requests.PNG, png.contentType());
            BufferedImage want = ImageIO.read(mask.toFile()), got = ImageIO.read(new ByteArrayInputStream(png.body()));
            assertEquals(want.getWidth(), got.getWidth());
            assertEquals(want.getHeight(), got.getHeight());
            for (int y = 0; y < want.getHeight(); y++) for (int x = 0; x < want.getWidth(); x++) assertEquals(want.getRGB(x, y), got.getRGB(x, y), format + " mask at " + x + "," + y);
            // the class-index and class-colour pictures: the same pixels as predict --format
            for (String kind : List.of("index", "color")) {
                Path pic = tmp.resolve("photo-" + format + "-" + kind + ".png");
                predictCli("predict", "--model", HORSES.toString(), "--input", in.toString(), "--output", pic.toString(), "--format", kind,
                        "--threads", "1", "--quiet");
                ServeClient.Answer a = hs.post("/v1/segment?format=" + kind, null, bytes, Requests.PNG);
                assertEquals(200, a.status(), a.text());
                BufferedImage w = ImageIO.read(pic.toFile()), g = ImageIO.read(new ByteArrayInputStream(a.body()));
                assertEquals(w.getType(), g.getType(), kind);
                for (int y = 0; y < w.getHeight(); y++) for (int x = 0; x < w.getWidth(); x++) {
                    assertEquals(w.getRGB(x, y), g.getRGB(x, y), format + " " + kind + " at " + x + "," + y);
                    assertEquals(w.getRaster().getSample(x, y, 0), g.getRaster().getSample(x, y, 0), format + " " + kind + " sample at " + x + "," + y);
                }
            }
            // the probabilities: the same floats, [L][H][W] in JSON, [H, W, L] in predict's .npz
            ServeClient.Answer j = hs.post("/v1/segment", null, bytes, Requests.JSON);
            assertEquals(200, j.status(), j.text());
            float[][][] p = JSON.treeToValue(JSON.readTree(j.body()).get("probabilities"), float[][][].class);
            NpyArray np = Npz.read(probs).get("probabilities");
            long[] shape = np.shape();
            float[] flat = np.toFloatArray();
            int H = (int) shape[0], W = (int) shape[1], L = (int) shape[2];
            assertEquals(L, p.length);
            for (int i = 0; i < H * W; i++) {
                for (int c = 0; c < L; c++) assertEquals(Float.floatToIntBits(flat[i * L + c]), Float.floatToIntBits(p[c][i / W][i % W]), format + " p at " + i);
            }
        }
    }

    record Bad(String what, ServeClient client, String method, String path, String type, byte[] body, String accept, int status, String says) {}

    static void assertError(ServeClient.Answer a, int status, String says, String what) {
        assertEquals(status, a.status(), what + ": " + a.text());
        assertTrue(a.contentType().startsWith(Requests.JSON), what + ": " + a.contentType());
        String t = a.text();
        assertTrue(t.contains(says), what + ": '" + says + "' not in " + t);
        assertFalse(t.contains("\tat ") || t.contains("Exception"), what + ": a stack trace or exception name leaked: " + t);
    }

    @Test
    void badRequestsGetTheirStatusAndTheNextGoodOneIsAnswered() throws Exception {
        byte[] good = Files.readAllBytes(EXAMPLES.get(3));
        Example wide = Example.builder(new float[12], 3, new int[] {0, 1}, new float[2], 2).build();
        Path widePath = tmp.resolve("wide.npz");
        ExampleIO.write(widePath, wide);
        byte[] truncatedPng = java.util.Arrays.copyOf(encode(photo(30, 30, 1), "png"), 200);
        byte[] giant = encode(new BufferedImage(2000, 1000, BufferedImage.TYPE_BYTE_GRAY), "png");   // 2 Mpx > the 1 Mpx limit, a few kB
        List<Bad> bad = List.of(
                new Bad("garbage npz", dn, "POST", "/v1/predict", Requests.NPZ, "not a zip".getBytes(), null, 400, "request body: not a zip file (.npz)"),
                new Bad("truncated npz", dn, "POST", "/v1/predict", Requests.NPZ, java.util.Arrays.copyOf(good, good.length / 2), null, 400, "request body"),
                new Bad("wrong widths", dn, "POST", "/v1/predict", Requests.NPZ, Files.readAllBytes(widePath), null, 400, "3 unary features but the model expects 2"),
                new Bad("json syntax", dn, "POST", "/v1/predict", Requests.JSON, "{\"unary\": [[1, 2],".getBytes(), null, 400, "request body: not a JSON example"),
                new Bad("json ragged", dn, "POST", "/v1/predict", Requests.JSON, "{\"unary\": [[1, 2], [3]], \"edges\": [], \"pairwise\": []}".getBytes(), null, 400, "row 1 has 1 values, row 0 has 2"),
                new Bad("json edge out of range", dn, "POST", "/v1/predict", Requests.JSON, "{\"unary\": [[1, 2], [3, 4]], \"edges\": [[0, 5]], \"pairwise\": [[1, 0]]}".getBytes(), null, 400, "edge 0 (0, 5) is out of range"),
                new Bad("json unknown field", dn, "POST", "/v1/predict", Requests.JSON, "{\"unary\": [[1, 2]], \"edges\": [], \"pairwise\": [], \"evil\": 1}".getBytes(), null, 400, "evil"),
                new Bad("empty body", dn, "POST", "/v1/predict", Requests.NPZ, new byte[0], null, 400, "request body: empty"),
                new Bad("oversize body", dn, "POST", "/v1/predict", Requests.NPZ, new byte[(1 << 20) + 1], null, 413, "exceeds the server's limit of 1048576 bytes"),
                new Bad("photo to predict", dn, "POST", "/v1/predict", "image/png", truncatedPng, null, 415, "images go to /v1/segment"),
                new Bad("npz to segment", hs, "POST", "/v1/segment", Requests.NPZ, good, null, 415, "examples go to /v1/predict"),
                new Bad("not an image", hs, "POST", "/v1/segment", null, "hello".getBytes(), null, 415, "is not a PNG or JPEG image"),
                new Bad("truncated png", hs, "POST", "/v1/segment", "image/png", truncatedPng, null, 400, "request body: unreadable image"),
                new Bad("too many pixels", hs, "POST", "/v1/segment", "image/png", giant, null, 413, "image of 2000x1000 pixels exceeds the server's limit of 1000000"),
                new Bad("bad format", hs, "POST", "/v1/segment?format=jpeg", "image/png", encode(photo(20, 20, 2), "png"), null, 400, "query parameter 'format' must be one of"),
                new Bad("photo to a denoising model", dn, "POST", "/v1/segment", "image/png", encode(photo(20, 20, 2), "png"), null, 400, "this model reads no photos"),
                new Bad("bad flag", dn, "POST", "/v1/predict?marginals=maybe", Requests.NPZ, good, null, 400, "query parameter 'marginals' must be true or false"),
                new Bad("accept html", dn, "POST", "/v1/predict", Requests.NPZ, good, "text/html", 406, "cannot answer in text/html"),
                new Bad("unknown endpoint", dn, "GET", "/v2/predict", null, null, null, 404, "no such endpoint: /v2/predict"),
                new Bad("wrong method", dn, "GET", "/v1/predict", null, null, null, 405, "/v1/predict takes POST, not GET"));
        for (Bad b : bad) {
            ServeClient.Answer a = b.method().equals("GET") ? b.client().get(b.path()) : b.client().post(b.path(), b.type(), b.body(), b.accept());
            assertError(a, b.status(), b.says(), b.what());
            if (b.status() == 405) assertEquals("POST", b.client().send(b.client().request(b.path()).GET().build()).status() == 405 ? "POST" : "");
            ServeClient.Answer ok = b.client() == dn ? dn.post("/v1/predict", Requests.NPZ, good, null)
                    : hs.post("/v1/segment", "image/png", encode(photo(20, 24, 3), "png"), null);
            assertEquals(200, ok.status(), "after " + b.what() + ": " + ok.text());
        }
        JsonNode health = JSON.readTree(dn.get("/health").body());
        assertEquals("ready", health.get("status").asText());
        String metrics = dn.get("/metrics").text();
        assertTrue(metrics.contains("structlr_request_errors_total{endpoint=\"/v1/predict\",status=\"400\"}"), metrics);
        assertTrue(metrics.contains("structlr_batch_size_bucket"), metrics);
    }

    @Test
    void modelCardAndHealth() throws Exception {
        JsonNode card = JSON.readTree(hs.get("/v1/model").body());
        assertEquals(2, card.get("num_labels").asInt());
        assertEquals(1, card.get("generation").asInt());
        assertTrue(card.get("images").has("unary_features"), card.toString());
        JsonNode dcard = JSON.readTree(dn.get("/v1/model").body());
        assertTrue(dcard.get("images").has("unavailable"), dcard.toString());
        assertEquals(200, hs.get("/health").status());
    }

    @Test
    void aFullQueueIs503WithRetryAfterAndASlowRequestTimesOut() throws Exception {
        ServeSettings s = ServeSettings.defaults().withPort(0).withBatching(1, 0, 2).withLimits(1 << 20, 1_000_000, 3_000);
        try (ModelServer server = ModelServer.start(DENOISE, s).awaitReady(120_000)) {
            ServeClient c = new ServeClient(server.url());
            byte[] good = Files.readAllBytes(EXAMPLES.get(3));
            CountDownLatch held = new CountDownLatch(1), release = new CountDownLatch(1);
            server.batcher().beforeBatch = b -> {
                held.countDown();
                try {
                    release.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            };
            CompletableFuture<ServeClient.Answer> first = c.postAsync("/v1/predict", Requests.NPZ, good, null);
            assertTrue(held.await(60, TimeUnit.SECONDS), "the worker took the first request");
            List<CompletableFuture<ServeClient.Answer>> queued = List.of(c.postAsync("/v1/predict", Requests.NPZ, good, null),
                    c.postAsync("/v1/predict", Requests.NPZ, good, null));
            long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (server.batcher().queued() < 2 && System.nanoTime() < until) Thread.sleep(5);
            assertEquals(2, server.batcher().queued(), "two requests wait in the queue of 2");
            ServeClient.Answer refused = c.post("/v1/predict", Requests.NPZ, good, null);
            assertError(refused, 503, "the queue is full (2 requests waiting", "queue full");
            assertEquals("1", refused.retryAfter());
            server.batcher().beforeBatch = b -> {};
            release.countDown();
            assertEquals(200, first.get(60, TimeUnit.SECONDS).status());
            for (var q : queued) assertEquals(200, q.get(60, TimeUnit.SECONDS).status());

            // a request that cannot be answered within the timeout (3 s): 503; the next one is answered
            CountDownLatch release2 = new CountDownLatch(1);
            server.batcher().beforeBatch = b -> {
                try {
                    release2.await(4_000, TimeUnit.MILLISECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            };
            ServeClient.Answer late = c.post("/v1/predict", Requests.NPZ, good, null);
            assertError(late, 503, "no answer within the request timeout of 3000 ms", "timeout");
            release2.countDown();
            server.batcher().beforeBatch = b -> {};
            assertEquals(200, c.post("/v1/predict", Requests.NPZ, good, null).status());
        }
    }
}
