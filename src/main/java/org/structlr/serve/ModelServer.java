package org.structlr.serve;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.structlr.data.AtomicFiles;
import org.structlr.data.BadInputException;

/**
 * A model behind HTTP/1.1 (docs/serve.md): Jetty 12's core server, the {@link Routes}, one
 * {@link Batcher}. Embeddable:
 * <pre>
 *   try (ModelServer s = ModelServer.start(Path.of("models/horses"), ServeSettings.defaults().withPort(0))) {
 *       s.awaitReady(60_000);
 *       ... http://127.0.0.1:{s.port()}/v1/segment ...
 *   }
 * </pre>
 *
 * <p>Life cycle: {@link #start} binds the port at once and loads the model in the background
 * ({@code GET /health} answers 503 until the model is loaded and warm, then 200). {@link #reload}
 * loads a model beside the current one, which answers every request until the new one is warm;
 * then requests that arrive are answered by the new one and those already queued finish on the old.
 * {@link #close} stops accepting connections (requests on open ones get 503), lets every request
 * in flight finish (up to the request timeout), then stops.
 */
public final class ModelServer implements AutoCloseable {
    private final ServeSettings settings;
    private final Path folder;
    private final ServeMetrics metrics = new ServeMetrics();
    private final Batcher batcher;
    private final Server jetty;
    private final ServerConnector connector;
    private final Path scratch;
    private final AtomicReference<ServedModel> current = new AtomicReference<>();
    private final CompletableFuture<ServedModel> firstLoad = new CompletableFuture<>();
    private final Object reloading = new Object();
    private volatile boolean stopping;
    /** Runs in {@link #reload} before the new model loads; tests hold a reload open with it. */
    volatile Runnable beforeReloadLoad = () -> {};

    private ModelServer(Path folder, ServeSettings settings) {
        this.settings = settings;
        this.folder = folder;
        try {
            this.scratch = Files.createTempDirectory("structlr-serve");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot make a scratch folder: " + e.getMessage(), e);
        }
        this.batcher = new Batcher(settings, metrics);
        QueuedThreadPool pool = new QueuedThreadPool(settings.httpThreads(), Math.min(4, settings.httpThreads()));
        pool.setName("structlr-http");
        pool.setDaemon(true);
        this.jetty = new Server(pool);
        this.connector = new ServerConnector(jetty, 1, 1);
        connector.setHost(settings.host());
        connector.setPort(settings.port());
        connector.setIdleTimeout(Math.max(30_000L, settings.timeoutMs()));
        jetty.addConnector(connector);
        jetty.setHandler(new Routes(this, new Requests(scratch)));
        // close() waits for the requests in flight itself (Jetty's graceful stop also waits for idle
        // keep-alive connections to time out), then stops Jetty at once
        jetty.setStopTimeout(0);
        jetty.setStopAtShutdown(false);
    }

    /**
     * Binds {@code settings.host():port()} and starts loading the model folder in the background.
     *
     * @throws BadInputException when the address cannot be bound (in use, not local)
     */
    public static ModelServer start(Path folder, ServeSettings settings) {
        ModelServer s = new ModelServer(folder, settings);
        try {
            s.jetty.start();
        } catch (Exception e) {
            s.closeQuietly();
            throw new BadInputException("cannot listen on " + settings.host() + ":" + settings.port() + ": " + rootMessage(e));
        }
        Thread loader = new Thread(() -> {
            try {
                ServedModel m = ServedModel.load(folder, 1);
                s.current.set(m);
                s.metrics.generation(1);
                s.firstLoad.complete(m);
            } catch (Throwable t) {
                s.firstLoad.completeExceptionally(t);
            }
        }, "structlr-load");
        loader.setDaemon(true);
        loader.start();
        return s;
    }

    /**
     * Waits until the first model is loaded and warm.
     *
     * @throws BadInputException the model's loading error (the server then answers 503 until closed)
     */
    public ModelServer awaitReady(long timeoutMs) throws TimeoutException, InterruptedException {
        try {
            firstLoad.get(timeoutMs, TimeUnit.MILLISECONDS);
            return this;
        } catch (ExecutionException e) {
            if (e.getCause() instanceof RuntimeException r) throw r;
            if (e.getCause() instanceof Error err) throw err;
            throw new IllegalStateException(e.getCause());
        }
    }

    /**
     * Loads {@code newFolder} (null: the folder the server started with, read again) and, once it
     * is warm, makes it the model that answers new requests. The current model answers until then,
     * and keeps answering if loading fails.
     *
     * @return the new model
     * @throws BadInputException when the folder is not a loadable model (nothing changes)
     */
    public ServedModel reload(Path newFolder) {
        synchronized (reloading) {
            ServedModel old = current.get();
            int generation = old == null ? 1 : old.generation() + 1;
            ServedModel m;
            try {
                beforeReloadLoad.run();
                m = ServedModel.load(newFolder == null ? (old == null ? folder : old.folder()) : newFolder, generation);
            } catch (RuntimeException | Error e) {
                metrics.reload(false);
                throw e;
            }
            current.set(m);
            metrics.generation(generation);
            metrics.reload(true);
            if (old == null) firstLoad.complete(m);
            return m;
        }
    }

    /** The port bound (useful with port 0). */
    public int port() {
        return connector.getLocalPort();
    }

    /** http://host:port */
    public String url() {
        String h = settings.host().contains(":") ? "[" + settings.host() + "]" : settings.host();
        return "http://" + h + ":" + port();
    }

    /** The model answering new requests, or null while the first is loading. */
    public ServedModel model() {
        return current.get();
    }

    public ServeSettings settings() { return settings; }

    ServeMetrics metrics() { return metrics; }

    Batcher batcher() { return batcher; }

    boolean stopping() { return stopping; }

    /** Jetty's request threads, where answers are formatted and written (not the batch worker). */
    java.util.concurrent.Executor jettyExecutor() { return jetty.getThreadPool(); }

    /** Requests received (every endpoint), and of those answered: their difference is in flight. */
    final java.util.concurrent.atomic.AtomicLong received = new java.util.concurrent.atomic.AtomicLong(),
            answered = new java.util.concurrent.atomic.AtomicLong();

    public long received() { return received.get(); }
    public long answered() { return answered.get(); }

    /**
     * Stops: no new connections; requests in flight (queued or in a batch) are answered (for up to
     * the request timeout); then the threads stop and the scratch folder is deleted.
     */
    @Override
    public void close() {
        stopping = true;                                   // requests on open connections: 503 "stopping", Connection: close
        connector.close();                                 // no new connections
        long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(settings.timeoutMs() + 5_000L);
        while (unfinished.get() > 0 && System.nanoTime() < until) {
            try {
                Thread.sleep(5);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        batcher.close(Math.max(1, TimeUnit.NANOSECONDS.toMillis(until - System.nanoTime())));
        closeQuietly();
    }

    /** Requests whose response has not been written yet (the close above waits for none to be left). */
    final java.util.concurrent.atomic.AtomicInteger unfinished = new java.util.concurrent.atomic.AtomicInteger();

    private void closeQuietly() {
        try {
            if (!jetty.isStopped()) jetty.stop();
        } catch (Exception ignored) {
            // already stopping
        }
        try {
            AtomicFiles.deleteTree(scratch);
        } catch (IOException ignored) {
            // a temporary folder left behind
        }
    }

    static String rootMessage(Throwable t) {
        Throwable c = t;
        while (c.getCause() != null && c.getCause() != c) c = c.getCause();
        return c.getMessage() == null ? c.getClass().getSimpleName() : c.getMessage();
    }
}
