package org.structlr.serve;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.structlr.data.NpyArray;
import org.structlr.data.Npz;

/** A small HTTP client for the serve tests and the load benchmark (java.net.http, loopback only). */
public final class ServeClient {
    public record Answer(int status, String contentType, byte[] body, String retryAfter) {
        public String text() { return new String(body, java.nio.charset.StandardCharsets.UTF_8); }
    }

    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(10)).build();
    private final String base;

    public ServeClient(String base) {
        this.base = base;
    }

    public HttpRequest.Builder request(String pathAndQuery) {
        return HttpRequest.newBuilder(URI.create(base + pathAndQuery)).timeout(Duration.ofSeconds(120));
    }

    public Answer post(String pathAndQuery, String contentType, byte[] body, String accept) throws IOException, InterruptedException {
        return send(postRequest(pathAndQuery, contentType, body, accept));
    }

    public CompletableFuture<Answer> postAsync(String pathAndQuery, String contentType, byte[] body, String accept) {
        return http.sendAsync(postRequest(pathAndQuery, contentType, body, accept), HttpResponse.BodyHandlers.ofByteArray()).thenApply(ServeClient::answer);
    }

    public HttpRequest postRequest(String pathAndQuery, String contentType, byte[] body, String accept) {
        HttpRequest.Builder b = request(pathAndQuery).POST(HttpRequest.BodyPublishers.ofByteArray(body));
        if (contentType != null) b.header("Content-Type", contentType);
        if (accept != null) b.header("Accept", accept);
        return b.build();
    }

    public Answer get(String path) throws IOException, InterruptedException {
        return send(request(path).GET().build());
    }

    public Answer send(HttpRequest r) throws IOException, InterruptedException {
        return answer(http.send(r, HttpResponse.BodyHandlers.ofByteArray()));
    }

    private static Answer answer(HttpResponse<byte[]> r) {
        return new Answer(r.statusCode(), r.headers().firstValue("Content-Type").orElse(""), r.body(), r.headers().firstValue("Retry-After").orElse(null));
    }

    /** The arrays of an .npz answer. */
    public static Map<String, NpyArray> npz(byte[] body, Path scratch) throws IOException {
        Path f = Files.createTempFile(scratch, "answer", ".npz");
        Files.write(f, body);
        try {
            return Npz.read(f);
        } finally {
            Files.deleteIfExists(f);
        }
    }
}
