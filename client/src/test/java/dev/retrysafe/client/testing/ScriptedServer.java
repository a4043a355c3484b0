package dev.retrysafe.client.testing;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * A real HTTP server on 127.0.0.1 and a free port (the JDK's {@code com.sun.net.httpserver}) that
 * answers from a script: each request takes the next {@link Answer}, the last one repeats. It
 * records every request. {@link #close()} stops it and fails if a handler thread is still busy.
 */
public final class ScriptedServer implements AutoCloseable {

    /**
     * One scripted answer.
     *
     * @param status the status; 0 means: close the connection without answering
     * @param headers the response headers
     * @param body the response body
     * @param hold a latch the handler waits on (with a deadline) before answering, or {@code null}
     */
    public record Answer(
            int status,
            Map<String, String> headers,
            String body,
            @Nullable CountDownLatch hold) {
        public static Answer of(int status) {
            return new Answer(status, Map.of(), "", null);
        }

        public static Answer of(int status, String header, String value) {
            return new Answer(status, Map.of(header, value), "", null);
        }

        public static Answer withBody(int status, String body) {
            return new Answer(status, Map.of("Content-Type", "application/json"), body, null);
        }

        public static Answer hangUp() {
            return new Answer(0, Map.of(), "", null);
        }

        public static Answer after(CountDownLatch hold, int status) {
            return new Answer(status, Map.of(), "", hold);
        }
    }

    /**
     * One received request.
     *
     * @param method the method
     * @param path the path and query
     * @param headers the headers (first value of each, names in lower case)
     * @param body the body as text
     */
    public record Received(String method, String path, Map<String, String> headers, String body) {
        public @Nullable String header(String name) {
            return headers.get(name.toLowerCase(java.util.Locale.ROOT));
        }
    }

    private static final long HOLD_DEADLINE_SECONDS = 15;

    private final HttpServer server;
    private final ExecutorService executor;
    private final List<Answer> script;
    private final Function<Received, Answer> router;
    private final List<Received> received = Collections.synchronizedList(new ArrayList<>());
    private final ConcurrentLinkedQueue<Throwable> handlerFailures = new ConcurrentLinkedQueue<>();
    private int next;

    private ScriptedServer(List<Answer> script, @Nullable Function<Received, Answer> router) {
        this.script = List.copyOf(script);
        this.router = router != null ? router : r -> nextAnswer();
        try {
            server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        executor = Executors.newFixedThreadPool(4);
        server.setExecutor(executor);
        server.createContext("/", this::handle);
        server.start();
    }

    /** A server answering {@code answers} in order, then the last one forever. */
    public static ScriptedServer answering(Answer... answers) {
        return new ScriptedServer(List.of(answers), null);
    }

    /** A server answering each request with what {@code router} says. */
    public static ScriptedServer routing(Function<Received, Answer> router) {
        return new ScriptedServer(List.of(), router);
    }

    private synchronized Answer nextAnswer() {
        Answer a = script.get(Math.min(next, script.size() - 1));
        next++;
        return a;
    }

    private void handle(HttpExchange exchange) throws IOException {
        try (exchange) {
            Map<String, String> headers = new java.util.TreeMap<>();
            exchange.getRequestHeaders()
                    .forEach((k, v) -> headers.put(k.toLowerCase(java.util.Locale.ROOT), v.getFirst()));
            String body = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
            Received request = new Received(
                    exchange.getRequestMethod(), exchange.getRequestURI().toString(), headers, body);
            received.add(request);
            Answer answer = router.apply(request);
            if (answer.hold() != null && !answer.hold().await(HOLD_DEADLINE_SECONDS, TimeUnit.SECONDS)) {
                throw new AssertionError("the test never released a held answer");
            }
            if (answer.status() == 0) {
                return; // closing the exchange without response headers drops the connection
            }
            answer.headers().forEach((k, v) -> exchange.getResponseHeaders().add(k, v));
            byte[] bytes = answer.body().getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(answer.status(), bytes.length == 0 ? -1 : bytes.length);
            if (bytes.length > 0) {
                exchange.getResponseBody().write(bytes);
            }
        } catch (IOException e) {
            // the client gave up on this exchange (a timeout): not a failure of the server
        } catch (Throwable t) {
            handlerFailures.add(t);
            throw t instanceof RuntimeException r ? r : new RuntimeException(t);
        }
    }

    /** {@code http://127.0.0.1:<port><path>}. */
    public URI uri(String path) {
        return URI.create("http://127.0.0.1:" + server.getAddress().getPort() + path);
    }

    /** Every request so far, in arrival order. */
    public List<Received> received() {
        synchronized (received) {
            return List.copyOf(received);
        }
    }

    @Override
    public void close() {
        server.stop(0);
        // not shutdownNow: an interrupt could race a just-released hold
        executor.shutdown();
        try {
            if (!executor.awaitTermination(HOLD_DEADLINE_SECONDS, TimeUnit.SECONDS)) {
                throw new AssertionError("handler threads still running after close");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted while stopping the server", e);
        }
        if (!handlerFailures.isEmpty()) {
            AssertionError failure = new AssertionError("a handler failed");
            handlerFailures.forEach(failure::addSuppressed);
            throw failure;
        }
    }
}
