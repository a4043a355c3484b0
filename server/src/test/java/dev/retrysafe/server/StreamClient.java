package dev.retrysafe.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.WebSocket;
import java.net.http.WebSocketHandshakeException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Predicate;
import org.jspecify.annotations.Nullable;

/**
 * A client of the live event stream for tests, on the JDK's WebSocket: it keeps every message it
 * receives, in order, and the close code. Every wait has a deadline and fails rather than hangs.
 * Threadsafe.
 */
public final class StreamClient implements AutoCloseable {

    /** How long any wait lasts at most unless a test says otherwise. */
    public static final Duration DEADLINE = Duration.ofSeconds(10);

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final HttpClient CLIENT =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private final WebSocket socket;
    private final LinkedBlockingQueue<JsonNode> inbox;
    private final List<JsonNode> received;
    private final CompletableFuture<Integer> closed;
    private final Map<JsonNode, Instant> arrivals;

    private StreamClient(
            WebSocket socket,
            LinkedBlockingQueue<JsonNode> inbox,
            List<JsonNode> received,
            CompletableFuture<Integer> closed,
            Map<JsonNode, Instant> arrivals) {
        this.socket = socket;
        this.inbox = inbox;
        this.received = received;
        this.closed = closed;
        this.arrivals = arrivals;
    }

    /** The stream's URI on the server at {@code base} ({@code http://127.0.0.1:port}). */
    public static URI uri(URI base) {
        return URI.create("ws://" + base.getHost() + ":" + base.getPort() + "/v1/events/stream");
    }

    /** Opens the stream of the server at {@code base}, with {@code apiKey} as a Bearer header (or none). */
    public static StreamClient connect(URI base, @Nullable String apiKey) {
        try {
            return open(base, apiKey).get(DEADLINE.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            throw new AssertionError("the stream did not open: " + e.getCause(), e.getCause());
        } catch (InterruptedException | TimeoutException e) {
            throw new AssertionError("the stream did not open within " + DEADLINE, e);
        }
    }

    /** Opens the stream with {@code apiKey} and waits for its welcome. */
    public static StreamClient welcomed(URI base, String apiKey) {
        StreamClient client = connect(base, apiKey);
        client.await("welcome");
        return client;
    }

    /** The HTTP status refusing the upgrade; fails if the stream opened. */
    public static int refusedStatus(URI base, @Nullable String apiKey) {
        try {
            StreamClient opened = open(base, apiKey).get(DEADLINE.toMillis(), TimeUnit.MILLISECONDS);
            opened.close();
            throw new AssertionError("the stream opened");
        } catch (ExecutionException e) {
            if (e.getCause() instanceof WebSocketHandshakeException h) {
                return h.getResponse().statusCode();
            }
            throw new AssertionError("the upgrade failed otherwise: " + e.getCause(), e.getCause());
        } catch (InterruptedException | TimeoutException e) {
            throw new AssertionError("no answer to the upgrade within " + DEADLINE, e);
        }
    }

    private static CompletableFuture<StreamClient> open(URI base, @Nullable String apiKey) {
        LinkedBlockingQueue<JsonNode> inbox = new LinkedBlockingQueue<>();
        List<JsonNode> received = Collections.synchronizedList(new ArrayList<>());
        CompletableFuture<Integer> closed = new CompletableFuture<>();
        Map<JsonNode, Instant> arrivals = Collections.synchronizedMap(new IdentityHashMap<>());
        WebSocket.Builder builder = CLIENT.newWebSocketBuilder().connectTimeout(Duration.ofSeconds(5));
        if (apiKey != null) {
            builder.header("Authorization", "Bearer " + apiKey);
        }
        WebSocket.Listener listener = new WebSocket.Listener() {
            private final StringBuilder partial = new StringBuilder();

            @Override
            public void onOpen(WebSocket ws) {
                ws.request(Long.MAX_VALUE);
            }

            @Override
            public CompletionStage<?> onText(WebSocket ws, CharSequence data, boolean last) {
                partial.append(data);
                if (last) {
                    try {
                        JsonNode message = JSON.readTree(partial.toString());
                        arrivals.put(message, Instant.now());
                        received.add(message);
                        inbox.add(message);
                    } catch (IOException e) {
                        throw new UncheckedIOException(e);
                    } finally {
                        partial.setLength(0);
                    }
                }
                return null;
            }

            @Override
            public CompletionStage<?> onClose(WebSocket ws, int statusCode, String reason) {
                closed.complete(statusCode);
                return null;
            }

            @Override
            public void onError(WebSocket ws, Throwable error) {
                closed.complete(-1);
            }
        };
        return builder.buildAsync(uri(base), listener)
                .thenApply(ws -> new StreamClient(ws, inbox, received, closed, arrivals));
    }

    /** Sends {@code json}; false if the connection no longer takes messages. */
    public boolean send(String json) {
        try {
            socket.sendText(json, true).get(DEADLINE.toMillis(), TimeUnit.MILLISECONDS);
            return true;
        } catch (ExecutionException e) {
            return false;
        } catch (InterruptedException | TimeoutException e) {
            throw new AssertionError("a message was not sent within " + DEADLINE, e);
        }
    }

    /** Sends {@code bytes} as a binary message; false if the connection no longer takes messages. */
    public boolean sendBinary(byte[] bytes) {
        try {
            socket.sendBinary(java.nio.ByteBuffer.wrap(bytes), true).get(DEADLINE.toMillis(), TimeUnit.MILLISECONDS);
            return true;
        } catch (ExecutionException e) {
            return false;
        } catch (InterruptedException | TimeoutException e) {
            throw new AssertionError("a message was not sent within " + DEADLINE, e);
        }
    }

    /** Subscribes to {@code types} and waits for the acknowledgement. */
    public StreamClient subscribe(String... types) {
        send("{\"type\":\"subscribe\",\"event_types\":" + array(types) + "}");
        await("subscribed");
        return this;
    }

    /** {@code values} as a JSON array of strings. */
    public static String array(String... values) {
        try {
            return JSON.writeValueAsString(values);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The next message, whatever it is; fails after {@code within}. */
    public JsonNode next(Duration within) {
        try {
            JsonNode m = inbox.poll(within.toMillis(), TimeUnit.MILLISECONDS);
            if (m == null) {
                throw new AssertionError("no message within " + within + "; received so far: " + received());
            }
            return m;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    /** Takes messages until one of {@code type} comes (the others are skipped, still in {@link #received()}). */
    public JsonNode await(String type) {
        return await(m -> m.path("type").asText().equals(type), DEADLINE, "a message of type " + type);
    }

    /** Takes messages until one matches {@code wanted}, within {@code within}. */
    public JsonNode await(Predicate<JsonNode> wanted, Duration within, String what) {
        long deadline = System.nanoTime() + within.toNanos();
        while (true) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                throw new AssertionError("no " + what + " within " + within + "; received: " + received());
            }
            JsonNode m = next(Duration.ofNanos(left));
            if (wanted.test(m)) {
                return m;
            }
        }
    }

    /** The next {@code n} events (other messages skipped), within the deadline. */
    public List<JsonNode> events(int n) {
        List<JsonNode> events = new ArrayList<>();
        while (events.size() < n) {
            events.add(await("event").get("event"));
        }
        return events;
    }

    /** When {@code message} (one this client received) arrived, by the wall clock. */
    public Instant arrivedAt(JsonNode message) {
        Instant at = arrivals.get(message);
        if (at == null) {
            throw new IllegalArgumentException("not a message this client received: " + message);
        }
        return at;
    }

    /** Every message received so far, in order. */
    public List<JsonNode> received() {
        synchronized (received) {
            return List.copyOf(received);
        }
    }

    /** Messages not taken by {@link #next}/{@link #await} yet. */
    public List<JsonNode> pending() {
        return List.copyOf(inbox);
    }

    /** The close code the server sent, waiting for it up to {@code within}. */
    public int closeCode(Duration within) {
        try {
            return closed.get(within.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException | TimeoutException e) {
            throw new AssertionError("the stream was not closed within " + within + "; received: " + received(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    /** Whether the server closed the stream. */
    public boolean isClosed() {
        return closed.isDone();
    }

    /** Closes from this side (normal closure) and drops the connection. */
    @Override
    public void close() {
        if (!socket.isOutputClosed()) {
            socket.sendClose(WebSocket.NORMAL_CLOSURE, "bye");
        }
        socket.abort();
    }

    /** Asserts that the stream is still open and answers a ping. */
    public void assertAlive() {
        String id = "alive-" + System.nanoTime();
        assertThat(send("{\"type\":\"ping\",\"id\":\"" + id + "\"}"))
                .as("the stream takes messages")
                .isTrue();
        await(
                m -> m.path("type").asText().equals("pong")
                        && m.path("id").asText().equals(id),
                DEADLINE,
                "pong " + id);
    }
}
