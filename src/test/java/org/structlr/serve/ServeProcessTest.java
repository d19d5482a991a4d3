package org.structlr.serve;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
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
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.structlr.data.DenoisingGenerator;
import org.structlr.data.Example;
import org.structlr.data.ExampleIO;
import org.structlr.model.CrfModel;
import org.structlr.model.Predictor;

/**
 * {@code structlr serve} as a process: SIGHUP reloads the model; SIGTERM while 8 clients keep it busy stops accepting,
 * answers every request it had received (the server's own count of received and answered
 * requests, and the clients' count of answers, agree), and exits 0. The signal is sent only after
 * answers have come back and while requests are in flight (the server says how many: the test
 * fails if none were, so it cannot pass with a signal that came after the load).
 */
class ServeProcessTest {
    @TempDir
    Path tmp;

    static final Pattern LISTENING = Pattern.compile("listening on (http://\\S+)"), STOPPING = Pattern.compile("stopping: (\\d+) requests in flight"),
            STOPPED = Pattern.compile("stopped: (\\d+) requests received, (\\d+) answered");

    @Test
    void sigtermDuringLoadLosesNoAcceptedRequestAndExitsZero() throws Exception {
        Example ex = new DenoisingGenerator().generate(1, 1, 30, 30, 21).test().get(0);
        Path f = tmp.resolve("ex.npz");
        ExampleIO.write(f, ex);
        byte[] body = Files.readAllBytes(f);
        int[] want = Predictor.predictEach(CrfModel.load(Path.of("models/denoise-boost")), List.of(ex), 500, 1e-5).get(0).labels();

        String javaBin = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        // env --default-signal=HUP: a test run under nohup would hand its SIGHUP-ignored state to the server
        ProcessBuilder pb = new ProcessBuilder("env", "--default-signal=HUP", javaBin, "--add-modules", "jdk.incubator.vector", "-Xmx2g", "-cp", System.getProperty("java.class.path"),
                "org.structlr.cli.Main", "serve", "--model", "models/denoise-boost", "--port", "0", "--threads", "1",
                "--max-batch", "8", "--max-wait-ms", "100", "--timeout-ms", "90000");
        pb.environment().put("OMP_NUM_THREADS", "1");
        pb.redirectErrorStream(true);
        Path logFile = tmp.resolve("serve.log");
        pb.redirectOutput(logFile.toFile());
        Process p = pb.start();
        try {
            String url = null;
            boolean ready = false;
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(180);
            while (!ready && System.nanoTime() < deadline && p.isAlive()) {
                Thread.sleep(200);
                String sofar = Files.readString(logFile);
                Matcher m = LISTENING.matcher(sofar);
                if (m.find()) url = m.group(1);
                ready = sofar.contains("\nready:");
            }
            assertTrue(ready && url != null, "the server started: " + Files.readString(logFile));
            // SIGHUP reloads the model folder (generation 2) without stopping
            assertEquals(0, new ProcessBuilder("kill", "-HUP", Long.toString(p.pid())).start().waitFor());
            long reloadDeadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(180);
            while (!Files.readString(logFile).contains("(generation 2)") && System.nanoTime() < reloadDeadline && p.isAlive()) Thread.sleep(200);
            assertTrue(Files.readString(logFile).contains("reloaded models/denoise-boost (generation 2)"), Files.readString(logFile));
            ServeClient c = new ServeClient(url);
            ObjectMapper json = new ObjectMapper();
            AtomicInteger ok = new AtomicInteger(), refused = new AtomicInteger(), answered = new AtomicInteger();
            List<String> wrong = Collections.synchronizedList(new ArrayList<>());
            AtomicBoolean signalled = new AtomicBoolean();
            ExecutorService clients = Executors.newFixedThreadPool(8);
            List<Future<?>> running = new ArrayList<>();
            for (int t = 0; t < 8; t++) {
                running.add(clients.submit(() -> {
                    for (int n = 0; n < 2_000; n++) {
                        ServeClient.Answer a;
                        try {
                            a = c.post("/v1/predict", Requests.NPZ, body, null);
                        } catch (IOException e) {
                            refused.incrementAndGet();   // no connection: the server no longer accepts
                            if (signalled.get()) return null;
                            continue;
                        }
                        if (a.status() == 503 && !a.contentType().startsWith(Requests.JSON)) {
                            refused.incrementAndGet();   // Jetty's own refusal while it shuts down: never reached the server's routes
                            if (signalled.get()) return null;
                            continue;
                        }
                        answered.incrementAndGet();
                        if (a.status() == 200) {
                            ok.incrementAndGet();
                            var j = json.readTree(a.body());
                            int[] labels = json.treeToValue(j.get("labels"), int[].class);
                            if (!java.util.Arrays.equals(want, labels)) wrong.add("labels differ from predict's");
                            if (j.get("model_generation").asInt() != 2) wrong.add("answered by generation " + j.get("model_generation"));
                        } else if (!(a.status() == 503 && a.text().contains("stopping"))) {
                            wrong.add(a.status() + " " + a.text());
                        }
                        if (signalled.get() && a.status() == 503) return null;
                    }
                    return null;
                }));
            }
            while (ok.get() < 16 && System.nanoTime() < deadline) Thread.sleep(5);
            assertTrue(ok.get() >= 16, "answers before the signal: " + ok.get());
            signalled.set(true);
            p.destroy();                                             // SIGTERM
            assertTrue(p.waitFor(120, TimeUnit.SECONDS), "the server exited");
            for (Future<?> r : running) r.get(120, TimeUnit.SECONDS);
            clients.shutdown();
            String out = Files.readString(logFile);
            assertEquals(0, p.exitValue(), out);
            Matcher stopping = STOPPING.matcher(out), stopped = STOPPED.matcher(out);
            assertTrue(stopping.find() && stopped.find(), out);
            assertTrue(Integer.parseInt(stopping.group(1)) > 0, "requests were in flight at the signal: " + out);
            long received = Long.parseLong(stopped.group(1)), served = Long.parseLong(stopped.group(2));
            assertEquals(received, served, "every request the server received was answered: " + out);
            assertEquals(served, answered.get(), "the clients got every answer the server sent (" + ok.get() + " ok, " + refused.get() + " refused)");
            assertEquals(List.of(), wrong);
        } finally {
            p.destroyForcibly();
        }
    }
}
