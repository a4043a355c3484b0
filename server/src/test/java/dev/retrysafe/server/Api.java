package dev.retrysafe.server;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.UUID;
import org.jspecify.annotations.Nullable;

/**
 * A small HTTP client for tests, speaking to one {@link TestServer} with one API key. Threadsafe.
 */
public final class Api {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final HttpClient CLIENT = HttpClient.newBuilder()
            .connectTimeout(Duration.ofSeconds(5))
            .version(HttpClient.Version.HTTP_1_1)
            .build();

    private final URI base;
    private final @Nullable String key;

    /** A client for {@code base} authenticating with {@code key} (or not at all when {@code null}). */
    public Api(URI base, @Nullable String key) {
        this.base = base;
        this.key = key;
    }

    /** A client for {@code server} with its first API key. */
    public static Api of(TestServer server) {
        return new Api(server.baseUri(), server.apiKey());
    }

    /** A response: status, headers and the body parsed as JSON (or null when not JSON). */
    public record Answer(HttpResponse<String> raw, @Nullable JsonNode json) {
        /** The status code. */
        public int status() {
            return raw.statusCode();
        }

        /** A header's first value, or {@code null}. */
        public @Nullable String header(String name) {
            return raw.headers().firstValue(name).orElse(null);
        }

        /** The content type. */
        public String contentType() {
            return raw.headers().firstValue("Content-Type").orElse("");
        }

        /** The body parsed as JSON; fails when it is not. */
        public JsonNode body() {
            if (json == null) {
                throw new AssertionError("not a JSON body: " + raw.statusCode() + " " + raw.body());
            }
            return json;
        }
    }

    /** {@code text} as a JSON string literal. */
    public static String quote(String text) {
        try {
            return JSON.writeValueAsString(text);
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalArgumentException(e);
        }
    }

    /** GET {@code path}. */
    public Answer get(String path) {
        return send(request(path).GET().build());
    }

    /** POST {@code json} to {@code path} with a fresh Idempotency-Key. */
    public Answer post(String path, String json) {
        return post(path, json, UUID.randomUUID().toString());
    }

    /** POST {@code json} to {@code path} with {@code idempotencyKey} (none when {@code null}). */
    public Answer post(String path, String json, @Nullable String idempotencyKey) {
        HttpRequest.Builder b = request(path)
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(json));
        if (idempotencyKey != null) {
            b.header("Idempotency-Key", idempotencyKey);
        }
        return send(b.build());
    }

    /** Sends {@code method} to {@code path} with the given content type and body. */
    public Answer send(String method, String path, @Nullable String contentType, byte[] body) {
        HttpRequest.Builder b = request(path)
                .method(method, HttpRequest.BodyPublishers.ofByteArray(body))
                .header("Idempotency-Key", UUID.randomUUID().toString());
        if (contentType != null) {
            b.header("Content-Type", contentType);
        }
        return send(b.build());
    }

    /** A request builder for {@code path} carrying the API key. */
    public HttpRequest.Builder request(String path) {
        HttpRequest.Builder b = HttpRequest.newBuilder(base.resolve(path)).timeout(Duration.ofSeconds(20));
        if (key != null) {
            b.header("Authorization", "Bearer " + key);
        }
        return b;
    }

    /** Sends {@code request}. */
    public Answer send(HttpRequest request) {
        try {
            HttpResponse<String> r;
            try {
                r = CLIENT.send(request, HttpResponse.BodyHandlers.ofString());
            } catch (IOException e) {
                // the shared client reused a kept-alive connection the server had just closed
                // (after an answer that left a request body unread, or a stopped test server on a
                // reused port): nothing reached a server, so send it again on a new connection
                if (!String.valueOf(e.getMessage()).contains("received no bytes")) {
                    throw e;
                }
                r = CLIENT.send(request, HttpResponse.BodyHandlers.ofString());
            }
            JsonNode json = null;
            String ct = r.headers().firstValue("Content-Type").orElse("");
            if (ct.contains("json") && !r.body().isEmpty()) {
                json = JSON.readTree(r.body());
            }
            return new Answer(r, json);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
