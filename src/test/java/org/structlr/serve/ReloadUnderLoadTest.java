package org.structlr.serve;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.structlr.data.Dataset;
import org.structlr.data.DenoisingGenerator;
import org.structlr.data.Example;
import org.structlr.data.ExampleIO;
import org.structlr.learn.LearnListener;
import org.structlr.learn.LearnSettings;
import org.structlr.learn.Training;
import org.structlr.model.CrfModel;
import org.structlr.model.Predictor;

/**
 * POST /v1/reload while clients keep sending: no request fails, the old model answers while the
 * new one loads, and every answer is exactly its model's (old before the swap, new after, never a
 * mix). The clients stop only after they have seen the new model answer (bounded), so the test
 * cannot pass with a reload that comes after the load.
 */
class ReloadUnderLoadTest {
    @TempDir
    Path tmp;

    record Seen(int generation, int[] labels, long doneNanos) {}

    @Test
    void reloadUnderLoadDropsNoRequest() throws Exception {
        Path folder = tmp.resolve("model");
        CrfModel first = CrfModel.load(Path.of("models/denoise-boost"));
        first.save(folder);
        Dataset data = new DenoisingGenerator().generate(2, 1, 12, 12, 11);
        CrfModel second = Training.train(data, "linear", "linear", new LearnSettings(2, 0.1, 3, 3, 11), 1, LearnListener.NONE).model();
        Example ex = new DenoisingGenerator().generate(1, 1, 24, 20, 9).test().get(0);
        Path f = tmp.resolve("ex.npz");
        ExampleIO.write(f, ex);
        byte[] body = Files.readAllBytes(f);
        int[] want1 = Predictor.predictEach(first, List.of(ex), 500, 1e-5).get(0).labels();
        int[] want2 = Predictor.predictEach(second, List.of(ex), 500, 1e-5).get(0).labels();
        assertTrue(!java.util.Arrays.equals(want1, want2), "the two models label the example differently, so the swap shows");

        ServeSettings s = ServeSettings.defaults().withPort(0).withBatching(4, 2, 64);
        ObjectMapper json = new ObjectMapper();
        try (ModelServer server = ModelServer.start(folder, s).awaitReady(120_000)) {
            ServeClient c = new ServeClient(server.url());
            List<Seen> seen = Collections.synchronizedList(new ArrayList<>());
            List<String> failures = Collections.synchronizedList(new ArrayList<>());
            AtomicInteger newAnswers = new AtomicInteger();
            AtomicBoolean stop = new AtomicBoolean();
            ExecutorService clients = Executors.newFixedThreadPool(4);
            List<Future<?>> running = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                running.add(clients.submit(() -> {
                    for (int n = 0; n < 5_000 && !stop.get(); n++) {
                        try {
                            ServeClient.Answer a = c.post("/v1/predict", Requests.NPZ, body, null);
                            if (a.status() != 200) {
                                failures.add(a.status() + " " + a.text());
                                continue;
                            }
                            JsonNode j = json.readTree(a.body());
                            Seen x = new Seen(j.get("model_generation").asInt(), json.treeToValue(j.get("labels"), int[].class), System.nanoTime());
                            seen.add(x);
                            if (x.generation() == 2 && newAnswers.incrementAndGet() >= 20) stop.set(true);
                        } catch (Exception e) {
                            failures.add(e.toString());
                        }
                    }
                    return null;
                }));
            }
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
            while (seen.size() < 10 && System.nanoTime() < deadline) Thread.sleep(10);
            assertTrue(seen.size() >= 10, "the load runs before the reload");
            second.save(folder);                                  // replaces the folder atomically
            // the reload is held open until the old model has answered 5 more requests, so that
            // "the old model answers while the new one loads" is checked without a timing race
            server.beforeReloadLoad = () -> {
                int before = seen.size();
                long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
                while (seen.size() < before + 5 && failures.isEmpty() && System.nanoTime() < until) {
                    try {
                        Thread.sleep(5);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        return;
                    }
                }
            };
            long r0 = System.nanoTime();
            ServeClient.Answer reload = c.post("/v1/reload", null, new byte[0], null);
            long r1 = System.nanoTime();
            assertEquals(200, reload.status(), reload.text());
            assertEquals(2, json.readTree(reload.body()).get("model_generation").asInt());
            for (Future<?> r : running) r.get(180, TimeUnit.SECONDS);
            clients.shutdown();
            assertEquals(List.of(), failures, "every request during the reload was answered");
            assertTrue(newAnswers.get() >= 20, "the new model answered (" + newAnswers.get() + " answers)");
            long during = seen.stream().filter(x -> x.doneNanos() > r0 && x.doneNanos() < r1 && x.generation() == 1).count();
            assertTrue(during > 0, "the old model answered while the new one loaded (reload took " + (r1 - r0) / 1_000_000 + " ms)");
            for (Seen x : seen) assertArrayEquals(x.generation() == 1 ? want1 : want2, x.labels(), "an answer of generation " + x.generation());
            assertEquals(2, server.model().generation());
        }
    }
}
