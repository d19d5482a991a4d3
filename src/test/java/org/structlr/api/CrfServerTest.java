package org.structlr.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.structlr.data.DenoisingGenerator;
import org.structlr.data.ExampleIO;

/** The embedded server of the public API: starts ready, answers, closes (the port is then free). */
class CrfServerTest {
    @TempDir
    Path tmp;

    @Test
    void startsReadyAnswersAndCloses() throws Exception {
        Path f = tmp.resolve("ex.npz");
        ExampleIO.write(f, new DenoisingGenerator().generate(1, 1, 10, 12, 3).test().get(0));
        HttpClient http = HttpClient.newHttpClient();
        String url;
        try (CrfServer server = CrfServer.builder(Path.of("models/denoise-boost")).port(0).maxBatch(2).start()) {
            url = server.url();
            assertEquals(1, server.modelGeneration());
            HttpResponse<String> health = http.send(HttpRequest.newBuilder(URI.create(url + "/health")).build(), HttpResponse.BodyHandlers.ofString());
            assertEquals(200, health.statusCode(), health.body());
            HttpResponse<String> p = http.send(HttpRequest.newBuilder(URI.create(url + "/v1/predict"))
                    .header("Content-Type", "application/x-npz").POST(HttpRequest.BodyPublishers.ofFile(f)).build(), HttpResponse.BodyHandlers.ofString());
            assertEquals(200, p.statusCode(), p.body());
            assertTrue(p.body().contains("\"labels\":["), p.body());
        }
        String closed = url;
        assertThrows(IOException.class, () -> HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(closed + "/health")).build(),
                HttpResponse.BodyHandlers.ofString()));
    }

    @Test
    void aMissingModelFailsToStartWithTheLoadersMessage() {
        var e = assertThrows(org.structlr.data.BadInputException.class, () -> CrfServer.builder(tmp.resolve("nope")).port(0).start());
        assertTrue(e.getMessage().contains("no such model folder"), e.getMessage());
        assertTrue(Files.notExists(tmp.resolve("nope")));
    }
}
