package org.structlr.serve;

import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.core.metrics.Gauge;
import io.prometheus.metrics.core.metrics.Histogram;
import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.io.ByteArrayOutputStream;
import java.io.IOException;

/**
 * The server's metrics in the Prometheus text format (GET /metrics), through the Prometheus Java
 * client (its own registry per server, so that embedded servers do not share counters):
 * <pre>
 *   structlr_requests_total{endpoint,status}          answered requests by endpoint and HTTP status
 *   structlr_request_errors_total{endpoint,status}    of those, the 4xx and 5xx ones
 *   structlr_request_duration_seconds{endpoint}       latency from arrival to answer (histogram)
 *   structlr_batch_size                               examples per engine batch (histogram)
 *   structlr_batches_total                            engine batches run
 *   structlr_queue_length                             requests waiting for a batch
 *   structlr_requests_in_flight                       requests received and not yet answered
 *   structlr_model_generation                         1 for the first model, +1 per reload
 *   structlr_reloads_total{result}                    reloads that succeeded or failed
 * </pre>
 */
final class ServeMetrics {
    private final PrometheusRegistry registry = new PrometheusRegistry();
    private final Counter requests = Counter.builder().name("structlr_requests").help("Answered requests by endpoint and HTTP status")
            .labelNames("endpoint", "status").register(registry);
    private final Counter errors = Counter.builder().name("structlr_request_errors").help("Requests answered with a 4xx or 5xx status")
            .labelNames("endpoint", "status").register(registry);
    private final Histogram latency = Histogram.builder().name("structlr_request_duration_seconds")
            .help("Time from a request's arrival to its answer").labelNames("endpoint").classicOnly()
            .classicUpperBounds(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30).register(registry);
    private final Histogram batchSize = Histogram.builder().name("structlr_batch_size").help("Examples per engine batch").classicOnly()
            .classicUpperBounds(1, 2, 4, 8, 16, 32, 64, 128).register(registry);
    private final Counter batches = Counter.builder().name("structlr_batches").help("Engine batches run").register(registry);
    private final Gauge queue = Gauge.builder().name("structlr_queue_length").help("Requests waiting for a batch").register(registry);
    private final Gauge inFlight = Gauge.builder().name("structlr_requests_in_flight").help("Requests received and not yet answered").register(registry);
    private final Gauge generation = Gauge.builder().name("structlr_model_generation").help("The served model: 1 for the first, +1 per reload").register(registry);
    private final Counter reloads = Counter.builder().name("structlr_reloads").help("Model reloads by result").labelNames("result").register(registry);
    private final PrometheusTextFormatWriter writer = PrometheusTextFormatWriter.create();

    void started() { inFlight.inc(); }

    void answered(String endpoint, int status, long startNanos) {
        inFlight.dec();
        String s = Integer.toString(status);
        requests.labelValues(endpoint, s).inc();
        if (status >= 400) errors.labelValues(endpoint, s).inc();
        latency.labelValues(endpoint).observe((System.nanoTime() - startNanos) / 1e9);
    }

    void batch(int size) {
        batches.inc();
        batchSize.observe(size);
    }

    void queueLength(int n) { queue.set(n); }

    void generation(int g) { generation.set(g); }

    void reload(boolean ok) { reloads.labelValues(ok ? "ok" : "failed").inc(); }

    String contentType() { return writer.getContentType(); }

    byte[] scrape() throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        writer.write(out, registry.scrape());
        return out.toByteArray();
    }
}
