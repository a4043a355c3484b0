package dev.retrysafe.server;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A webhook receiver on 127.0.0.1 for tests that look at what the sender recorded: it answers
 * the queued answers in order, then the current default answer (status and body), whatever it is
 * sent; it verifies nothing. Threadsafe.
 */
public final class ScriptedReceiver implements AutoCloseable {

    /** A status and a body (sent as {@code text/html}, the way a stranger's error page is). */
    public record Answer(int status, String body) {}

    private final HttpServer server;
    private final ExecutorService executor = Executors.newVirtualThreadPerTaskExecutor();
    private final ConcurrentLinkedQueue<Answer> queued = new ConcurrentLinkedQueue<>();
    private final AtomicReference<Answer> fallback;
    private final AtomicInteger requests = new AtomicInteger();

    private ScriptedReceiver(HttpServer server, Answer fallback) {
        this.server = server;
        this.fallback = new AtomicReference<>(fallback);
    }

    /** Starts a receiver on a free loopback port answering {@code status} with {@code body}. */
    public static ScriptedReceiver start(int status, String body) throws IOException {
        HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        ScriptedReceiver receiver = new ScriptedReceiver(server, new Answer(status, body));
        server.createContext("/hooks", receiver::receive);
        server.setExecutor(receiver.executor);
        server.start();
        return receiver;
    }

    /** {@code http://127.0.0.1:<port>/hooks}. */
    public URI url() {
        return URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/hooks");
    }

    /** Answers {@code status} with {@code body} from now on (after the queued answers). */
    public void answer(int status, String body) {
        fallback.set(new Answer(status, body));
    }

    /** Answers these next, in order. */
    public void queue(Answer... answers) {
        queued.addAll(java.util.List.of(answers));
    }

    /** Requests received so far. */
    public int requests() {
        return requests.get();
    }

    private void receive(HttpExchange exchange) throws IOException {
        try (exchange) {
            exchange.getRequestBody().readAllBytes();
            requests.incrementAndGet();
            Answer next = queued.poll();
            Answer a = next != null ? next : fallback.get();
            byte[] body = a.body().getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().set("Content-Type", "text/html; charset=utf-8");
            exchange.sendResponseHeaders(a.status(), body.length == 0 ? -1 : body.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(body);
            }
        }
    }

    @Override
    public void close() {
        server.stop(0);
        executor.close();
    }
}
