package org.structlr.api;

import java.nio.file.Path;
import java.util.concurrent.TimeoutException;
import org.structlr.serve.ModelServer;
import org.structlr.serve.ServeSettings;

/**
 * A trained model behind HTTP inside one's own JVM: what {@code structlr serve} runs, embedded
 * (endpoints, limits and errors in docs/serve.md).
 * <pre>{@code
 *   Path model = java.nio.file.Files.createTempDirectory("structlr-served-").resolve("model");
 *   CrfTrainer.builder().iterations(1).build().train(CrfData.denoising(2, 0, 16, 1)).save(model);
 *   try (CrfServer server = CrfServer.builder(model).port(0).maxBatch(8).start()) {
 *       System.out.println("serving generation " + server.modelGeneration() + " on port " + (server.port() > 0));
 *       // POST an .npz example to server.url() + "/v1/predict", a photo to "/v1/segment" (models of images)
 *   }   // close: answers the requests in flight, then stops
 * }</pre>
 * {@link Builder#start()} returns once the model is loaded and warm. Loopback only unless
 * {@link Builder#host} says otherwise; no authentication is built in.
 */
public final class CrfServer implements AutoCloseable {
    private final ModelServer server;

    private CrfServer(ModelServer server) {
        this.server = server;
    }

    public static Builder builder(Path model) {
        return new Builder(model);
    }

    /** The port bound (the one asked for, or a free one for port 0). */
    public int port() { return server.port(); }

    /** {@code http://host:port} */
    public String url() { return server.url(); }

    /** Loads the model folder again (replaced on disk), or {@code folder}; the current model answers until the new one is warm. */
    public void reload(Path folder) { server.reload(folder); }

    /** Which model answers: 1 for the first, +1 per reload. */
    public int modelGeneration() { return server.model() == null ? 0 : server.model().generation(); }

    /** Stops accepting, answers every request in flight, stops. */
    @Override
    public void close() { server.close(); }

    /** Settings, each with {@code structlr serve}'s default. */
    public static final class Builder {
        private final Path model;
        private ServeSettings s = ServeSettings.defaults();

        private Builder(Path model) {
            this.model = model;
        }

        public Builder host(String host) { s = with(host, s.port(), s.maxBatch(), s.maxWaitMs(), s.maxQueue()); return this; }
        public Builder port(int port) { s = s.withPort(port); return this; }
        public Builder maxBatch(int n) { s = s.withBatching(n, s.maxWaitMs(), s.maxQueue()); return this; }
        public Builder maxWaitMs(int ms) { s = s.withBatching(s.maxBatch(), ms, s.maxQueue()); return this; }
        public Builder maxQueue(int n) { s = s.withBatching(s.maxBatch(), s.maxWaitMs(), n); return this; }
        public Builder limits(long maxBodyBytes, long maxPixels, int timeoutMs) { s = s.withLimits(maxBodyBytes, maxPixels, timeoutMs); return this; }

        private ServeSettings with(String host, int port, int batch, int wait, int queue) {
            return new ServeSettings(host, port, batch, wait, queue, s.maxBodyBytes(), s.maxPixels(), s.timeoutMs(), s.iterations(), s.tolerance(), s.httpThreads());
        }

        /** Binds, loads the model and returns once it is warm (or throws the model's loading error). */
        public CrfServer start() throws InterruptedException, TimeoutException {
            ModelServer m = ModelServer.start(model, s);
            try {
                m.awaitReady(Long.MAX_VALUE / 4);
            } catch (RuntimeException | Error | InterruptedException e) {
                m.close();
                throw e;
            }
            return new CrfServer(m);
        }
    }
}
