package org.structlr.cli;

import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import org.structlr.data.BadInputException;
import org.structlr.serve.ModelServer;
import org.structlr.serve.ServeSettings;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import sun.misc.Signal;
import sun.misc.SignalHandler;

/**
 * {@code serve}: one process that loads a model once and answers HTTP requests, micro-batched
 * ({@link ModelServer}; endpoints, limits and errors in docs/serve.md). SIGTERM or SIGINT: stop
 * accepting, answer every request in flight, exit 0. SIGHUP: reload the model folder (as POST
 * /v1/reload). Signals are taken with {@code sun.misc.Signal} (module jdk.unsupported, in every JDK):
 * a shutdown hook cannot make the exit code 0, and the JVM has no other way to catch SIGHUP.
 */
@Command(name = "serve", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Serve a trained model over HTTP: POST /v1/predict (.npz or JSON example), POST /v1/segment (PNG/JPEG photo),",
                "GET /v1/model, GET /health, GET /metrics, POST /v1/reload. Concurrent requests are batched; every answer equals",
                "predict's for the same input. Listens on loopback by default: no authentication is built in (docs/serve.md)."})
final class ServeCommand implements Callable<Integer> {
    @Option(names = "--model", converter = PathConverter.Local.class, required = true, paramLabel = "MODEL", description = "A model folder written by train.")
    Path model;

    @Option(names = "--host", defaultValue = ServeSettings.LOOPBACK, paramLabel = "ADDR",
            description = "Address to listen on (default: ${DEFAULT-VALUE}, this machine only; 0.0.0.0 for every interface: put a proxy with authentication in front).")
    String host;

    @Option(names = "--port", defaultValue = "8080", paramLabel = "N", description = "TCP port; 0 picks a free one (default: ${DEFAULT-VALUE}).")
    int port;

    @Option(names = "--max-batch", defaultValue = "8", paramLabel = "N", description = "Most examples in one engine batch (default: ${DEFAULT-VALUE}).")
    int maxBatch;

    @Option(names = "--max-wait-ms", defaultValue = "5", paramLabel = "MS",
            description = "Longest a request waits for others to join its batch (default: ${DEFAULT-VALUE}).")
    int maxWaitMs;

    @Option(names = "--max-queue", defaultValue = "64", paramLabel = "N",
            description = "Requests waiting for a batch at most; more are refused with 503 and Retry-After (default: ${DEFAULT-VALUE}).")
    int maxQueue;

    @Option(names = "--max-body-bytes", defaultValue = "33554432", paramLabel = "BYTES", description = "Largest request body; larger: 413 (default: ${DEFAULT-VALUE}).")
    long maxBodyBytes;

    @Option(names = "--max-pixels", defaultValue = "40000000", paramLabel = "N",
            description = "Largest photo (width x height, read from its header before decoding); larger: 413 (default: ${DEFAULT-VALUE}).")
    long maxPixels;

    @Option(names = "--timeout-ms", defaultValue = "30000", paramLabel = "MS",
            description = "Longest a request may take from arrival to answer; longer: 503 (default: ${DEFAULT-VALUE}).")
    int timeoutMs;

    @Option(names = "--http-threads", defaultValue = "32", paramLabel = "N",
            description = "Threads reading requests, decoding photos and writing answers (default: ${DEFAULT-VALUE}).")
    int httpThreads;

    @Mixin
    PredictionOptions prediction;

    @Mixin
    CommonOptions common;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        prediction.check();
        int threads = common.apply();
        ServeSettings settings = new ServeSettings(host, port, maxBatch, maxWaitMs, maxQueue, maxBodyBytes, maxPixels, timeoutMs,
                prediction.iterations, prediction.tolerance, httpThreads);
        var err = spec.commandLine().getErr();
        long t0 = System.nanoTime();
        CountDownLatch stop = new CountDownLatch(1);
        ModelServer server = ModelServer.start(model, settings);
        Signal.handle(new Signal("TERM"), s -> stop.countDown());
        Signal.handle(new Signal("INT"), s -> stop.countDown());
        try {
            SignalHandler before = Signal.handle(new Signal("HUP"), s -> new Thread(() -> reload(server, err), "structlr-sighup").start());
            // a process started with SIGHUP ignored (nohup) keeps it ignored: the JVM does not install the handler
            if (before == SignalHandler.SIG_IGN && !common.quiet)
                err.println("note: SIGHUP is ignored in this process (started with nohup?): reload with POST /v1/reload");
        } catch (IllegalArgumentException e) {
            // no SIGHUP on this platform: POST /v1/reload still works
        }
        if (!common.quiet) err.printf(Locale.ROOT, "listening on %s (loading %s, %d engine threads)%n", server.url(), model, threads);
        err.flush();
        try {
            server.awaitReady(Long.MAX_VALUE / 4);
        } catch (BadInputException | Error e) {
            server.close();
            throw e;
        }
        if (!common.quiet) err.printf(Locale.ROOT, "ready: %s on %s (%.1f s)%n", model, server.url(), (System.nanoTime() - t0) / 1e9);
        err.flush();
        stop.await();
        long inFlight = server.received() - server.answered();
        if (!common.quiet) err.printf(Locale.ROOT, "stopping: %d requests in flight%n", inFlight);
        err.flush();
        server.close();
        err.printf(Locale.ROOT, "stopped: %d requests received, %d answered%n", server.received(), server.answered());
        err.flush();
        return Main.EXIT_OK;
    }

    private void reload(ModelServer server, java.io.PrintWriter err) {
        try {
            var m = server.reload(null);
            err.printf("reloaded %s (generation %d)%n", m.folder(), m.generation());
        } catch (RuntimeException e) {
            err.println("reload failed, the current model goes on serving: " + e.getMessage());
        }
        err.flush();
    }
}
