package dev.retrysafe.acceptance;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.retrysafe.webhooks.InMemoryWebhookDeduplicator;
import dev.retrysafe.webhooks.VerifiedWebhook;
import dev.retrysafe.webhooks.WebhookSecret;
import dev.retrysafe.webhooks.WebhookVerificationException;
import dev.retrysafe.webhooks.WebhookVerifier;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.jspecify.annotations.Nullable;

/**
 * A customer's webhook receiver on 127.0.0.1, as the seed writes it: it reads the raw body,
 * verifies it with the {@code webhooks} module (every secret it was given, so rotations verify),
 * answers according to a script of failures, and remembers each {@code webhook-id} it handled so a
 * second delivery of the same id is acknowledged and skipped. Threadsafe.
 */
final class WebhookReceiver implements AutoCloseable {

    /** What the receiver does with the next verified delivery. */
    enum Step {
        /** Pretends to crash before handling: {@code 500}. */
        CRASH,
        /** Says the endpoint is gone for good: {@code 410}. */
        GONE,
        /**
         * Handles the event, then fails before acknowledging it (a crash right after its own
         * commit, or a proxy losing the 200): the sender sees {@code 500} and tries again.
         */
        HANDLE_THEN_FAIL
    }

    private final HttpServer server;
    private final ExecutorService executor = Executors.newVirtualThreadPerTaskExecutor();
    private final AtomicReference<WebhookVerifier> verifier = new AtomicReference<>();
    private final InMemoryWebhookDeduplicator seen = InMemoryWebhookDeduplicator.create();
    private final ConcurrentLinkedQueue<Step> script = new ConcurrentLinkedQueue<>();
    private final ConcurrentLinkedQueue<String> handled = new ConcurrentLinkedQueue<>();
    private final AtomicInteger requests = new AtomicInteger();
    private final AtomicInteger rejected = new AtomicInteger();
    private final AtomicInteger duplicates = new AtomicInteger();
    private volatile boolean down;
    private volatile double crashShare;
    private volatile double handleThenFailShare;

    private WebhookReceiver(HttpServer server) {
        this.server = server;
    }

    /** Starts a receiver on a free loopback port. */
    static WebhookReceiver start() throws IOException {
        HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        WebhookReceiver receiver = new WebhookReceiver(server);
        server.createContext("/hooks", receiver::receive);
        server.setExecutor(receiver.executor);
        server.start();
        return receiver;
    }

    /** {@code http://127.0.0.1:<port>/hooks}. */
    URI url() {
        return URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/hooks");
    }

    /** Verifies with these secrets from now on (the current and, during a rotation, the previous one). */
    void trust(String... secrets) {
        WebhookVerifier.Builder b = WebhookVerifier.builder();
        for (String s : secrets) {
            b.secret(WebhookSecret.parse(s));
        }
        verifier.set(b.build());
    }

    /** Queues what happens to the next verified deliveries; after the script, every delivery is answered 200. */
    void script(Step... steps) {
        script.addAll(List.of(steps));
    }

    /** While down, every verified delivery is answered {@code 500} without being handled. */
    void down(boolean isDown) {
        this.down = isDown;
    }

    /**
     * Fails at random from now on, after the script: a share {@code crashShare} of verified
     * deliveries as {@link Step#CRASH}, a share {@code handleThenFailShare} as
     * {@link Step#HANDLE_THEN_FAIL} (the receiver of a fault-injection run).
     */
    void flaky(double crashShare, double handleThenFailShare) {
        this.crashShare = crashShare;
        this.handleThenFailShare = handleThenFailShare;
    }

    /** Bodies of the events handled, one per {@code webhook-id}. */
    List<String> handled() {
        return new ArrayList<>(handled);
    }

    int requests() {
        return requests.get();
    }

    int rejected() {
        return rejected.get();
    }

    int duplicates() {
        return duplicates.get();
    }

    private void receive(HttpExchange exchange) throws IOException {
        try (exchange) {
            requests.incrementAndGet();
            byte[] raw = exchange.getRequestBody().readAllBytes();
            WebhookVerifier v = verifier.get();
            VerifiedWebhook webhook;
            try {
                if (v == null) {
                    throw new IllegalStateException("no secret yet");
                }
                webhook = v.verify(exchange.getRequestHeaders()::getFirst, raw);
            } catch (WebhookVerificationException | IllegalStateException e) {
                rejected.incrementAndGet();
                answer(exchange, 400);
                return;
            }
            Step step = down ? Step.CRASH : script.poll();
            if (step == null) {
                step = randomFailure();
            }
            if (step == Step.CRASH) {
                answer(exchange, 500);
                return;
            }
            if (step == Step.GONE) {
                answer(exchange, 410);
                return;
            }
            if (!seen.firstTime(webhook.id())) {
                duplicates.incrementAndGet();
                answer(exchange, 200);
                return;
            }
            handled.add(webhook.bodyAsString());
            if (step == Step.HANDLE_THEN_FAIL) {
                answer(exchange, 500);
                return;
            }
            answer(exchange, 200);
        }
    }

    private @Nullable Step randomFailure() {
        double r = ThreadLocalRandom.current().nextDouble();
        if (r < crashShare) {
            return Step.CRASH;
        }
        return r < crashShare + handleThenFailShare ? Step.HANDLE_THEN_FAIL : null;
    }

    private static void answer(HttpExchange exchange, int status) throws IOException {
        exchange.sendResponseHeaders(status, -1);
        exchange.getResponseBody().close();
    }

    @Override
    public void close() {
        server.stop(0);
        executor.close();
    }
}
