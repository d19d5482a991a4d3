package org.structlr.serve;

import org.structlr.data.BadInputException;

/**
 * How a {@link ModelServer} listens, batches and limits requests.
 *
 * @param host        address to bind (loopback by default: put a proxy in front to expose it)
 * @param port        TCP port; 0 picks a free one ({@link ModelServer#port()} tells which)
 * @param maxBatch    most examples in one engine batch
 * @param maxWaitMs   longest a request waits for others to join its batch
 * @param maxQueue    requests waiting for a batch at most; more get 503 with Retry-After
 * @param maxBodyBytes largest request body; larger gets 413
 * @param maxPixels   largest image (width x height, from its header, before decoding); larger gets 413
 * @param timeoutMs   longest a request may take from arrival to answer; longer gets 503
 * @param iterations  most message-passing sweeps per example (predict's --iterations)
 * @param tolerance   duality gap per variable that stops an example (predict's --tolerance)
 * @param httpThreads Jetty's request threads (reading bodies, decoding, writing answers)
 */
public record ServeSettings(String host, int port, int maxBatch, int maxWaitMs, int maxQueue, long maxBodyBytes, long maxPixels,
                            int timeoutMs, int iterations, double tolerance, int httpThreads) {
    public static final String LOOPBACK = "127.0.0.1";

    public ServeSettings {
        if (host == null || host.isBlank()) throw new BadInputException("option '--host' must name an address");
        if (port < 0 || port > 65535) throw new BadInputException("option '--port' must be 0..65535, got " + port);
        if (maxBatch < 1) throw new BadInputException("option '--max-batch' must be at least 1, got " + maxBatch);
        if (maxWaitMs < 0) throw new BadInputException("option '--max-wait-ms' must be at least 0, got " + maxWaitMs);
        if (maxQueue < 1) throw new BadInputException("option '--max-queue' must be at least 1, got " + maxQueue);
        if (maxBodyBytes < 1 || maxBodyBytes > Integer.MAX_VALUE - 8) {
            throw new BadInputException("option '--max-body-bytes' must be 1.." + (Integer.MAX_VALUE - 8) + ", got " + maxBodyBytes);
        }
        if (maxPixels < 1) throw new BadInputException("option '--max-pixels' must be at least 1, got " + maxPixels);
        if (timeoutMs < 1) throw new BadInputException("option '--timeout-ms' must be at least 1, got " + timeoutMs);
        if (iterations < 0) throw new BadInputException("option '--iterations' must be at least 0, got " + iterations);
        if (!(tolerance >= 0)) throw new BadInputException("option '--tolerance' must be at least 0, got " + tolerance);
        if (httpThreads < 4) throw new BadInputException("option '--http-threads' must be at least 4, got " + httpThreads);
    }

    /** The defaults of {@code structlr serve}: loopback, port 8080, batches of up to 8 within 5 ms, predict's stopping rule. */
    public static ServeSettings defaults() {
        return new ServeSettings(LOOPBACK, 8080, 8, 5, 64, 32L << 20, 40_000_000L, 30_000, 500, 1e-5, 32);
    }

    public ServeSettings withPort(int p) {
        return new ServeSettings(host, p, maxBatch, maxWaitMs, maxQueue, maxBodyBytes, maxPixels, timeoutMs, iterations, tolerance, httpThreads);
    }

    public ServeSettings withBatching(int batch, int waitMs, int queue) {
        return new ServeSettings(host, port, batch, waitMs, queue, maxBodyBytes, maxPixels, timeoutMs, iterations, tolerance, httpThreads);
    }

    public ServeSettings withLimits(long bodyBytes, long pixels, int timeout) {
        return new ServeSettings(host, port, maxBatch, maxWaitMs, maxQueue, bodyBytes, pixels, timeout, iterations, tolerance, httpThreads);
    }
}
