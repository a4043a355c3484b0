package dev.retrysafe.server;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * A webhook receiver on 127.0.0.1 (the only place tests deliver to) on a random port: it keeps
 * every request it gets, with its Standard Webhooks headers, and answers {@code 204}. Threadsafe.
 */
public final class LoopbackReceiver implements AutoCloseable {

    /** One request as the receiver got it. @param headers the webhook-* headers @param body the bytes */
    public record Received(Map<String, String> headers, byte[] body) {}

    private final ConcurrentLinkedQueue<Received> received = new ConcurrentLinkedQueue<>();
    private final ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor();
    private final HttpServer server;

    private LoopbackReceiver() {
        try {
            server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        server.setExecutor(threads);
        server.createContext("/", exchange -> {
            Map<String, String> headers = new HashMap<>();
            for (String name : List.of("webhook-id", "webhook-timestamp", "webhook-signature")) {
                headers.put(name, exchange.getRequestHeaders().getFirst(name));
            }
            received.add(new Received(headers, exchange.getRequestBody().readAllBytes()));
            exchange.sendResponseHeaders(204, -1);
            exchange.close();
        });
        server.start();
    }

    /** A started receiver. */
    public static LoopbackReceiver start() {
        return new LoopbackReceiver();
    }

    /** {@code http://127.0.0.1:<port>/<path>}. */
    public String url(String path) {
        return "http://127.0.0.1:" + server.getAddress().getPort() + "/" + path;
    }

    /** Everything received so far, oldest first. */
    public List<Received> received() {
        return List.copyOf(received);
    }

    @Override
    public void close() {
        server.stop(0);
        threads.close();
    }
}
