package dev.retrysafe.acceptance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.retrysafe.server.TestServer;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;

/**
 * Requests to one server's payments API with one API key. {@code deadline} is the test's upper
 * bound of a wait: the timeout of each request and of {@link #payUntilAnswered}. The
 * {@link HttpClient} belongs to the test, so that two clients of two servers can share one.
 */
record PaymentsClient(HttpClient http, TestServer server, String apiKey, Duration deadline) {

    /** A client with the key of the server's first account. */
    static PaymentsClient of(HttpClient http, TestServer server, Duration deadline) {
        return new PaymentsClient(http, server, server.apiKey(), deadline);
    }

    /** The HTTP client the tests use: HTTP/1.1, as the clients the server is written for. */
    static HttpClient newHttpClient() {
        return HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(5))
                .build();
    }

    /**
     * {@code POST /v1/payments} of {@code json} on the server at {@code base}; without an
     * {@code Idempotency-Key} header when {@code idempotencyKey} is {@code null}. Static for tests
     * that talk to a server process they know only by its URI.
     */
    static HttpRequest paymentRequest(
            URI base, String apiKey, @Nullable String idempotencyKey, String json, Duration timeout) {
        HttpRequest.Builder b = HttpRequest.newBuilder(base.resolve("/v1/payments"))
                .timeout(timeout)
                .header("Authorization", "Bearer " + apiKey)
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(json));
        if (idempotencyKey != null) {
            b.header("Idempotency-Key", idempotencyKey);
        }
        return b.build();
    }

    HttpResponse<byte[]> pay(@Nullable String key, String json) throws IOException, InterruptedException {
        return pay(key, json, deadline);
    }

    HttpResponse<byte[]> pay(@Nullable String key, String json, Duration timeout)
            throws IOException, InterruptedException {
        return http.send(
                paymentRequest(server.baseUri(), apiKey, key, json, timeout), HttpResponse.BodyHandlers.ofByteArray());
    }

    HttpResponse<byte[]> get(String path) throws IOException, InterruptedException {
        HttpRequest request = HttpRequest.newBuilder(server.uri(path))
                .timeout(deadline)
                .header("Authorization", "Bearer " + apiKey)
                .GET()
                .build();
        return http.send(request, HttpResponse.BodyHandlers.ofByteArray());
    }

    /** {@link #payUntilAnswered(String, String, AtomicInteger)} without counting the {@code 409}s. */
    HttpResponse<byte[]> payUntilAnswered(String key, String json) {
        return payUntilAnswered(key, json, new AtomicInteger());
    }

    /**
     * What a well-behaved client does: retries while the key is in use, honouring
     * {@code Retry-After} loosely (a short poll instead of a whole second), within the deadline.
     * Each {@code 409} must carry {@code Retry-After: 1} and is counted in {@code inUseAnswers}.
     */
    HttpResponse<byte[]> payUntilAnswered(String key, String json, AtomicInteger inUseAnswers) {
        return await("an answer for " + key + " from " + server.baseUri())
                .atMost(deadline)
                .pollDelay(Duration.ZERO)
                .pollInterval(Duration.ofMillis(25))
                .pollInSameThread()
                .until(() -> pay(key, json), r -> {
                    if (r.statusCode() != 409) {
                        return true;
                    }
                    assertThat(r.headers().firstValue("Retry-After")).hasValue("1");
                    inUseAnswers.incrementAndGet();
                    return false;
                });
    }
}
