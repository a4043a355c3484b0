package dev.retrysafe.server.cli;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;

/**
 * The retry demo's server: the JDK's HTTP server on 127.0.0.1 and a free port, answering each
 * request with the next scripted answer (the last one repeats). Threadsafe.
 */
final class FlakyServer implements AutoCloseable {

    /**
     * One scripted answer.
     *
     * @param status the status
     * @param retryAfter the {@code Retry-After} value, or {@code null} for none
     */
    record Answer(int status, @Nullable String retryAfter) {}

    private final HttpServer server;
    private final ExecutorService executor = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "retrysafe-demo-server");
        t.setDaemon(true);
        return t;
    });
    private final List<Answer> script;
    private final AtomicInteger requests = new AtomicInteger();

    FlakyServer(List<Answer> script) throws IOException {
        this.script = List.copyOf(script);
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.setExecutor(executor);
        server.createContext("/", this::answer);
        server.start();
    }

    private void answer(HttpExchange exchange) throws IOException {
        try (exchange) {
            exchange.getRequestBody().readAllBytes();
            Answer a = script.get(Math.min(requests.getAndIncrement(), script.size() - 1));
            if (a.retryAfter() != null) {
                exchange.getResponseHeaders().add("Retry-After", a.retryAfter());
            }
            byte[] body = ("{\"status\":" + a.status() + "}\n").getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().add("Content-Type", "application/json");
            exchange.sendResponseHeaders(a.status(), body.length);
            exchange.getResponseBody().write(body);
        }
    }

    /** {@code http://127.0.0.1:<port><path>}. */
    URI uri(String path) {
        return URI.create("http://127.0.0.1:" + server.getAddress().getPort() + path);
    }

    /** How many requests arrived. */
    int requests() {
        return requests.get();
    }

    @Override
    public void close() {
        server.stop(0);
        executor.shutdown();
        try {
            executor.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
