package dev.retrysafe.server.cli;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.retrysafe.webhooks.InMemoryWebhookDeduplicator;
import dev.retrysafe.webhooks.VerifiedWebhook;
import dev.retrysafe.webhooks.WebhookDeduplicator;
import dev.retrysafe.webhooks.WebhookSecret;
import dev.retrysafe.webhooks.WebhookVerificationException;
import dev.retrysafe.webhooks.WebhookVerifier;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Clock;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.jspecify.annotations.Nullable;

/**
 * {@code webhooks listen}: a webhook receiver on this machine, for trying webhooks out and as a
 * complete example of receiving them with the {@code webhooks} library. The JDK's HTTP server on
 * 127.0.0.1 takes every {@code POST}: it reads the raw body, verifies it, skips a
 * {@code webhook-id} it has already taken, and prints one line per request ({@code <id>
 * verified: <body>}, {@code <id> duplicate}, or {@code <id> rejected: <REASON>}). Threadsafe.
 */
final class WebhookListener implements AutoCloseable {

    /** Largest body read; our events are far smaller. */
    static final int MAX_BODY = 1024 * 1024;
    /** Longest {@code webhook-id} printed as received. */
    private static final int MAX_PRINTED_ID = WebhookVerifier.MAX_ID_LENGTH;

    private final HttpServer server;
    private final ExecutorService executor = Executors.newVirtualThreadPerTaskExecutor();
    private final WebhookVerifier verifier;
    private final WebhookDeduplicator seen = InMemoryWebhookDeduplicator.create();
    private final PrintStream out;

    private WebhookListener(HttpServer server, List<WebhookSecret> secrets, PrintStream out, Clock clock) {
        this.server = server;
        this.verifier = WebhookVerifier.builder().secrets(secrets).clock(clock).build();
        this.out = out;
    }

    /**
     * Listens on 127.0.0.1:{@code port} (0: a free port), verifying with {@code secrets} and
     * printing to {@code out}.
     *
     * @throws IOException if the port cannot be had
     */
    static WebhookListener start(int port, List<WebhookSecret> secrets, PrintStream out, Clock clock)
            throws IOException {
        HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 0);
        WebhookListener listener = new WebhookListener(server, secrets, out, clock);
        server.setExecutor(listener.executor);
        server.createContext("/", listener::receive);
        server.start();
        return listener;
    }

    /** The port it listens on. */
    int port() {
        return server.getAddress().getPort();
    }

    /** The URL to register for it: {@code http://127.0.0.1:<port>/webhooks}. */
    String url() {
        return "http://127.0.0.1:" + port() + "/webhooks";
    }

    private void receive(HttpExchange exchange) throws IOException {
        try (exchange) {
            if (!exchange.getRequestMethod().equals("POST")) {
                answer(exchange, 405);
                return;
            }
            byte[] body = exchange.getRequestBody().readNBytes(MAX_BODY + 1); // the raw bytes, before any parsing
            if (body.length > MAX_BODY) {
                answer(exchange, 413);
                return;
            }
            VerifiedWebhook webhook;
            try {
                webhook = verifier.verify(exchange.getRequestHeaders()::getFirst, body);
            } catch (WebhookVerificationException e) {
                print(exchange.getRequestHeaders().getFirst("webhook-id"), "rejected: " + e.reason());
                answer(exchange, 400);
                return;
            }
            if (!seen.firstTime(webhook.id())) {
                print(webhook.id(), "duplicate"); // taken on before: acknowledge, do not handle again
                answer(exchange, 200);
                return;
            }
            print(webhook.id(), "verified: " + webhook.bodyAsString()); // a real handler: quick, or enqueue
            answer(exchange, 204);
        }
    }

    private static void answer(HttpExchange exchange, int status) throws IOException {
        exchange.sendResponseHeaders(status, -1);
    }

    /** One line; what a stranger sent is printed without control characters and bounded. */
    private void print(@Nullable String id, String what) {
        String shownId =
                id == null ? "-" : printable(id.length() > MAX_PRINTED_ID ? id.substring(0, MAX_PRINTED_ID) : id);
        synchronized (out) {
            out.println(shownId + " " + printable(what));
            out.flush();
        }
    }

    private static String printable(String text) {
        StringBuilder sb = new StringBuilder(text.length());
        text.codePoints().forEach(c -> sb.appendCodePoint(Character.isISOControl(c) ? '?' : c));
        return sb.toString();
    }

    @Override
    public void close() {
        server.stop(0);
        executor.close();
    }
}
