/**
 * {@code structlr serve}: a trained model answering HTTP requests in one process, micro-batched.
 *
 * <ul>
 *   <li>{@link org.structlr.serve.ModelServer}: the server (embeddable: start, reload, stop);
 *       {@link org.structlr.serve.ServeSettings} its limits and batching settings.</li>
 *   <li>{@link org.structlr.serve.Batcher}: gathers concurrent requests (up to a batch size or a
 *       wait) into one {@link org.structlr.model.Predictor#predictEach} call, whose answers equal
 *       {@code predict}'s for the same input bit for bit whatever the batch.</li>
 *   <li>{@link org.structlr.serve.ServedModel}: a loaded model, its card and image recipe; the
 *       server swaps one for another on reload without dropping a request.</li>
 *   <li>{@link org.structlr.serve.Routes}: the HTTP endpoints on Jetty 12's core API;
 *       {@link org.structlr.serve.Requests} request bodies to examples and answers to bodies;
 *       {@link org.structlr.serve.ServeMetrics} the Prometheus metrics.</li>
 * </ul>
 * Docs: docs/serve.md (endpoints, limits, errors, life cycle, authentication stance, benchmark).
 */
package org.structlr.serve;
