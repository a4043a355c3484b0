package dev.retrysafe.acceptance;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;

/** Plain HTTP/1.1 calls to the example application, as any client of the payments API makes them. Threadsafe. */
final class ExampleHttp {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Duration TIMEOUT = Duration.ofSeconds(60);

    private final HttpClient http = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5))
            .build();
    private final URI base;

    ExampleHttp(URI base) {
        this.base = base;
    }

    /** {@code POST /v1/payments} with {@code body}, the API key {@code apiKey} and the idempotency key, if any. */
    HttpResponse<String> pay(@Nullable String apiKey, @Nullable String idempotencyKey, String body)
            throws IOException, InterruptedException {
        return http.send(payment(apiKey, idempotencyKey, body), HttpResponse.BodyHandlers.ofString());
    }

    /** The same request, sent without waiting for its answer. */
    CompletableFuture<HttpResponse<String>> payAsync(@Nullable String apiKey, String idempotencyKey, String body) {
        return http.sendAsync(payment(apiKey, idempotencyKey, body), HttpResponse.BodyHandlers.ofString());
    }

    /** {@code POST path} with a JSON {@code body} and the API key. */
    HttpResponse<String> post(String path, String apiKey, String body) throws IOException, InterruptedException {
        return http.send(
                HttpRequest.newBuilder(base.resolve(path))
                        .timeout(TIMEOUT)
                        .header("Content-Type", "application/json")
                        .header("Authorization", "Bearer " + apiKey)
                        .POST(HttpRequest.BodyPublishers.ofString(body))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
    }

    /** {@code GET path} with the API key, if any. */
    HttpResponse<String> get(String path, @Nullable String apiKey) throws IOException, InterruptedException {
        HttpRequest.Builder b =
                HttpRequest.newBuilder(base.resolve(path)).timeout(TIMEOUT).GET();
        if (apiKey != null) {
            b.header("Authorization", "Bearer " + apiKey);
        }
        return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    private HttpRequest payment(@Nullable String apiKey, @Nullable String idempotencyKey, String body) {
        HttpRequest.Builder b = HttpRequest.newBuilder(base.resolve("/v1/payments"))
                .timeout(TIMEOUT)
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body));
        if (apiKey != null) {
            b.header("Authorization", "Bearer " + apiKey);
        }
        if (idempotencyKey != null) {
            b.header("Idempotency-Key", idempotencyKey);
        }
        return b.build();
    }

    /** The JSON body of {@code response}. */
    static JsonNode json(HttpResponse<String> response) {
        try {
            return JSON.readTree(response.body());
        } catch (IOException e) {
            throw new UncheckedIOException("not JSON: " + response.body(), e);
        }
    }
}
