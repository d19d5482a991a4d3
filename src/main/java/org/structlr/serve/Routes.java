package org.structlr.serve;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.Fields;
import org.nd4j.linalg.api.buffer.DataType;
import org.structlr.data.BadInputException;
import org.structlr.data.Example;
import org.structlr.features.ImageReader;
import org.structlr.features.LabelImages;
import org.structlr.model.Predictor;

/**
 * The endpoints (docs/serve.md) on Jetty's core Handler API. A request's body is read and checked
 * on a Jetty thread (limits first), its example queued for the {@link Batcher}, and its answer
 * written from a Jetty thread when the batch is done, so no thread waits for a batch. Every error
 * is one JSON object {@code {"error": "...", "status": N}} with the status of the problem: 400
 * bad input (the CLI's messages), 404/405 unknown route or method, 406 unsupported Accept, 413 too
 * large, 415 wrong type, 503 (with Retry-After) not ready, queue full, stopping or timed out, 500
 * anything else; never a stack trace.
 */
final class Routes extends Handler.Abstract {
    private static final Map<String, String> METHODS = Map.of("/health", "GET", "/metrics", "GET", "/v1/model", "GET",
            "/v1/predict", "POST", "/v1/segment", "POST", "/v1/reload", "POST");

    private final ModelServer server;
    private final Requests requests;

    Routes(ModelServer server, Requests requests) {
        this.server = server;
        this.requests = requests;
    }

    @Override
    public boolean handle(Request request, Response response, Callback callback) {
        long t0 = System.nanoTime();
        String path = Request.getPathInContext(request);
        String endpoint = METHODS.containsKey(path) ? path : "other";
        server.received.incrementAndGet();
        server.unfinished.incrementAndGet();
        server.metrics().started();
        Reply reply = new Reply(request, response, callback, endpoint, t0);
        try {
            String want = METHODS.get(path);
            if (want == null) throw new ServeException(404, "no such endpoint: " + path + " (see GET /v1/model, POST /v1/predict, POST /v1/segment)");
            if (!want.equals(request.getMethod())) {
                response.getHeaders().put(HttpHeader.ALLOW, want);
                throw new ServeException(405, path + " takes " + want + ", not " + request.getMethod());
            }
            switch (path) {
                case "/health" -> health(reply);
                case "/metrics" -> reply.send(200, server.metrics().contentType(), server.metrics().scrape());
                case "/v1/model" -> reply.json(200, ready().card());
                case "/v1/predict" -> predict(request, reply);
                case "/v1/segment" -> segment(request, reply);
                case "/v1/reload" -> reload(request, reply);
                default -> throw new IllegalStateException(path);
            }
        } catch (Throwable t) {
            reply.error(t);
        }
        return true;
    }

    private void health(Reply reply) {
        ServedModel m = server.model();
        Map<String, Object> h = new LinkedHashMap<>();
        h.put("status", server.stopping() ? "stopping" : m == null ? "loading" : "ready");
        if (m != null) h.put("model_generation", m.generation());
        h.put("queue", server.batcher().queued());
        reply.json(m != null && !server.stopping() ? 200 : 503, h);
    }

    private ServedModel ready() {
        if (server.stopping()) throw new ServeException(503, "the server is stopping", "5");
        ServedModel m = server.model();
        if (m == null) throw new ServeException(503, "the model is still loading (GET /health says when it is ready)", "1");
        return m;
    }

    // ------------------------------------------------------------------ predict

    private void predict(Request request, Reply reply) {
        ServedModel m = ready();
        Fields q = Request.extractQueryParameters(request);
        boolean marginals = flag(q, "marginals");
        boolean npz = acceptsNpz(request);
        byte[] body = body(request);
        String kind = Requests.predictKind(request.getHeaders().get(HttpHeader.CONTENT_TYPE), body);
        Example ex = kind.equals(Requests.NPZ) ? requests.npzExample(body) : Requests.jsonExample(body);
        Predictor.checkCompatible(m.model(), ex);
        checkLabels(m, ex);
        submit(m, ex, reply, p -> {
            byte[] out = requests.predictAnswer(p, ex, marginals, npz, m.generation());
            reply.send(200, npz ? Requests.NPZ : Requests.JSON, out);
        });
    }

    /** An example's own label count must be the model's (the CLI's check, with the same words). */
    private static void checkLabels(ServedModel m, Example ex) {
        if (ex.numLabels().isPresent() && ex.numLabels().getAsInt() != m.model().numLabels()) {
            throw new BadInputException(ex.name() + ": num_labels is " + ex.numLabels().getAsInt() + " but the model has " + m.model().numLabels() + " labels");
        }
        try {
            ex.graph(m.model().numLabels(), m.model().pairTypes());
        } catch (IllegalArgumentException e) {
            throw new BadInputException(ex.name() + ": " + e.getMessage());
        }
    }

    // ------------------------------------------------------------------ segment

    private void segment(Request request, Reply reply) {
        ServedModel m = ready();
        if (m.recipe() == null) throw new ServeException(400, "this model reads no photos: " + m.whyNoImages() + "; send examples to /v1/predict");
        Fields q = Request.extractQueryParameters(request);
        String format = q.getValue("format") == null ? "mask" : q.getValue("format");
        boolean json = acceptsJson(request, false);
        if (!json && !LabelImages.FORMATS.contains(format)) {
            throw new BadInputException("query parameter 'format' must be one of " + String.join(", ", LabelImages.FORMATS) + ", got '" + format + "'");
        }
        byte[] body = body(request);
        Requests.checkImage(request.getHeaders().get(HttpHeader.CONTENT_TYPE), body, server.settings().maxPixels());
        ImageReader.WorkingImage img = new ImageReader().read(Path.of(Requests.BODY), body, m.recipe().size());
        Example ex = img.example(m.recipe().unary(), m.model().pairTypes().size() == 2);
        submit(m, ex, reply, p -> {
            int L = m.model().numLabels(), H = img.originalHeight(), W = img.originalWidth();
            float[] working = p.marginals().castTo(DataType.FLOAT).dup('c').data().asFloat();
            // as predict: probabilities resized bilinearly to the image's own size, each pixel its most probable label
            float[] full = LabelImages.resizeBilinear(working, img.height(), img.width(), L, H, W);
            int[] labels = LabelImages.argmax(full, L);
            if (json) {
                Map<String, Object> out = new LinkedHashMap<>();
                out.put("height", H);
                out.put("width", W);
                out.put("num_labels", L);
                List<String> names = new java.util.ArrayList<>();
                for (int c = 0; c < L; c++) names.add(m.model().classes().name(c));
                out.put("classes", names);
                float[][][] probs = new float[L][H][W];
                for (int i = 0; i < H * W; i++) for (int c = 0; c < L; c++) probs[c][i / W][i % W] = full[i * L + c];
                out.put("probabilities", probs);
                Requests.inference(out, p, m.generation());
                reply.json(200, out);
            } else {
                reply.send(200, Requests.PNG, Requests.png(LabelImages.picture(format, labels, H, W, m.model().classes())));
            }
        });
    }

    // ------------------------------------------------------------------ reload

    private void reload(Request request, Reply reply) throws IOException {
        Content.Source.consumeAll(request);
        if (server.stopping()) throw new ServeException(503, "the server is stopping", "5");
        ServedModel m = server.reload(null);
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("model_generation", m.generation());
        out.put("folder", m.folder().toString());
        reply.json(200, out);
    }

    // ------------------------------------------------------------------ batching

    interface Answer {
        void write(Predictor.Prediction p) throws Exception;
    }

    /** Queues the example; the answer is written on a Jetty thread when its batch is done, or an error after the timeout. */
    private void submit(ServedModel m, Example ex, Reply reply, Answer answer) {
        long remaining = server.settings().timeoutMs() - TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - reply.t0);
        CompletableFuture<Predictor.Prediction> f = new CompletableFuture<>();
        Batcher.Refusal r = server.batcher().offer(new Batcher.Job(m, ex, reply.t0 + TimeUnit.MILLISECONDS.toNanos(server.settings().timeoutMs()), f));
        if (r == Batcher.Refusal.FULL) {
            throw new ServeException(503, "the queue is full (" + server.settings().maxQueue() + " requests waiting; --max-queue): retry later", "1");
        }
        if (r == Batcher.Refusal.STOPPING) throw new ServeException(503, "the server is stopping", "5");
        Executor jettyThreads = server.jettyExecutor();
        f.orTimeout(Math.max(1, remaining), TimeUnit.MILLISECONDS).whenCompleteAsync((p, err) -> {
            if (err != null) {
                reply.error(err);
                return;
            }
            try {
                answer.write(p);
            } catch (Throwable t) {
                reply.error(t);
            }
        }, jettyThreads);
    }

    // ------------------------------------------------------------------ request helpers

    /**
     * The body, refused with 413 beyond the limit: by its declared length before reading, else
     * while reading. The rest of a refused body is read and dropped (up to {@link #DRAIN} bytes),
     * so the client, still sending, receives the 413 instead of a reset connection.
     */
    private byte[] body(Request request) {
        long max = server.settings().maxBodyBytes();
        long declared = request.getLength();
        try (InputStream in = Content.Source.asInputStream(request)) {
            if (declared > max) {
                drain(in);
                throw tooLarge(declared + " bytes");
            }
            byte[] b = in.readNBytes((int) max + 1);
            if (b.length > max) {
                drain(in);
                throw tooLarge("more than " + max + " bytes");
            }
            if (b.length == 0) throw new BadInputException(Requests.BODY + ": empty (send the example or image as the body)");
            return b;
        } catch (IOException e) {
            throw new BadInputException(Requests.BODY + ": could not be read: " + e.getMessage());
        }
    }

    /** Bytes of a refused body read and dropped at most; past that the connection is closed under the client. */
    static final long DRAIN = 64L << 20;

    private static void drain(InputStream in) throws IOException {
        long left = DRAIN;
        byte[] buf = new byte[1 << 16];
        for (int r; left > 0 && (r = in.read(buf, 0, (int) Math.min(buf.length, left))) > 0; ) left -= r;
    }

    private ServeException tooLarge(String size) {
        return new ServeException(413, Requests.BODY + " of " + size + " exceeds the server's limit of " + server.settings().maxBodyBytes()
                + " bytes (--max-body-bytes)");
    }

    private static boolean flag(Fields q, String name) {
        String v = q.getValue(name);
        if (v == null || v.equals("false") || v.equals("0")) return false;
        if (v.equals("true") || v.equals("1") || v.isEmpty()) return true;
        throw new BadInputException("query parameter '" + name + "' must be true or false, got '" + v + "'");
    }

    /** True for an .npz answer (Accept: application/x-npz), false for JSON (the default); 406 for anything else alone. */
    private static boolean acceptsNpz(Request request) {
        String a = request.getHeaders().get(HttpHeader.ACCEPT);
        if (a == null || a.isBlank()) return false;
        String lower = a.toLowerCase(java.util.Locale.ROOT);
        if (lower.contains(Requests.NPZ) && !lower.contains(Requests.JSON)) return true;
        if (lower.contains(Requests.JSON) || lower.contains("*/*") || lower.contains("application/*")) return false;
        throw new ServeException(406, "cannot answer in " + a + ": /v1/predict answers " + Requests.JSON + " or " + Requests.NPZ);
    }

    /** True for the JSON probabilities (Accept: application/json), false for the PNG (the default). */
    private static boolean acceptsJson(Request request, boolean fallback) {
        String a = request.getHeaders().get(HttpHeader.ACCEPT);
        if (a == null || a.isBlank()) return fallback;
        String lower = a.toLowerCase(java.util.Locale.ROOT);
        if (lower.contains(Requests.JSON) && !lower.contains(Requests.PNG)) return true;
        if (lower.contains(Requests.PNG) || lower.contains("image/*") || lower.contains("*/*")) return false;
        throw new ServeException(406, "cannot answer in " + a + ": /v1/segment answers " + Requests.PNG + " or " + Requests.JSON);
    }

    /** One request's response: written once, counted in the metrics. */
    final class Reply {
        final Request request;
        final Response response;
        final Callback callback;
        final String endpoint;
        final long t0;
        private final java.util.concurrent.atomic.AtomicBoolean sent = new java.util.concurrent.atomic.AtomicBoolean();

        Reply(Request request, Response response, Callback callback, String endpoint, long t0) {
            this.request = request;
            this.response = response;
            this.callback = callback;
            this.endpoint = endpoint;
            this.t0 = t0;
        }

        void json(int status, Object value) {
            send(status, Requests.JSON, Requests.json(value));
        }

        void send(int status, String type, byte[] body) {
            if (!sent.compareAndSet(false, true)) return;
            response.setStatus(status);
            response.getHeaders().put(HttpHeader.CONTENT_TYPE, type);
            if (server.stopping()) response.getHeaders().put(HttpHeader.CONNECTION, "close");
            server.metrics().answered(endpoint, status, t0);
            server.answered.incrementAndGet();
            response.write(true, ByteBuffer.wrap(body), Callback.from(() -> {
                server.unfinished.decrementAndGet();
                callback.succeeded();
            }, x -> {
                server.unfinished.decrementAndGet();
                callback.failed(x);
            }));
        }

        /** The error's status and one-line message; 500s also go to the server's stderr with their trace. */
        void error(Throwable t) {
            Throwable c = t;
            while ((c instanceof CompletionException || c instanceof java.util.concurrent.ExecutionException) && c.getCause() != null) c = c.getCause();
            int status;
            String message, retry = null;
            if (c instanceof ServeException s) {
                status = s.status;
                message = s.getMessage();
                retry = s.retryAfter;
            } else if (c instanceof BadInputException) {
                status = 400;
                message = c.getMessage();
            } else if (c instanceof TimeoutException || c instanceof Batcher.DeadlinePassed) {
                status = 503;
                message = c instanceof Batcher.DeadlinePassed ? c.getMessage()
                        : "no answer within the request timeout of " + server.settings().timeoutMs() + " ms (--timeout-ms)";
                retry = "1";
            } else {
                status = 500;
                message = "internal error: " + c.getClass().getSimpleName() + (c.getMessage() == null ? "" : ": " + c.getMessage());
                System.err.println("structlr serve: " + request.getMethod() + " " + Request.getPathInContext(request) + " failed:");
                c.printStackTrace();
            }
            if (retry != null) response.getHeaders().put(HttpHeader.RETRY_AFTER, retry);
            // a body refused before it was read (bad query, Accept, route): read and drop it first, else
            // Jetty closes the connection under a client still sending it and the client never sees the answer
            try (InputStream in = Content.Source.asInputStream(request)) {
                drain(in);
            } catch (IOException | RuntimeException ignored) {
                // the connection is gone: nobody to answer
            }
            Map<String, Object> e = new LinkedHashMap<>();
            e.put("error", message);
            e.put("status", status);
            json(status, e);
        }
    }

}
