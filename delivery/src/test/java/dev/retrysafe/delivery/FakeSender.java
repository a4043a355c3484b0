package dev.retrysafe.delivery;

import dev.retrysafe.delivery.AttemptResult.Outcome;
import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;

/**
 * An {@link AttemptSender} that answers what the test says and remembers every attempt; it
 * detects two attempts of one delivery in flight at once, and counts attempts in flight per URL.
 * Threadsafe.
 */
final class FakeSender implements AttemptSender {

    /** Decides the answer to one attempt (may block, to simulate a slow receiver). */
    @FunctionalInterface
    interface Responder {
        AttemptResult answer(URI url, String deliveryId) throws InterruptedException;
    }

    /** One attempt as it was sent. */
    record Sent(URI url, Map<String, String> headers, byte[] body, Instant at) {
        String deliveryId() {
            return headers.get("webhook-id");
        }
    }

    private final Clock clock;
    private final Queue<Sent> sent = new ConcurrentLinkedQueue<>();
    private final Map<String, AtomicInteger> inFlightByDelivery = new ConcurrentHashMap<>();
    private final Map<URI, AtomicInteger> inFlightByUrl = new ConcurrentHashMap<>();
    private final Map<URI, AtomicInteger> maxInFlightByUrl = new ConcurrentHashMap<>();
    private final AtomicInteger inFlight = new AtomicInteger();
    private final Queue<String> overlaps = new ConcurrentLinkedQueue<>();
    private volatile Responder responder = (url, id) -> ok();

    FakeSender(Clock clock) {
        this.clock = clock;
    }

    void respond(Responder responder) {
        this.responder = responder;
    }

    @Override
    public AttemptResult send(URI url, Map<String, String> headers, byte[] body) {
        Sent attempt = new Sent(url, Map.copyOf(headers), body.clone(), clock.instant());
        sent.add(attempt);
        String id = attempt.deliveryId();
        if (inFlightByDelivery.computeIfAbsent(id, k -> new AtomicInteger()).incrementAndGet() > 1) {
            overlaps.add(id);
        }
        int perUrl =
                inFlightByUrl.computeIfAbsent(url, k -> new AtomicInteger()).incrementAndGet();
        maxInFlightByUrl.computeIfAbsent(url, k -> new AtomicInteger()).accumulateAndGet(perUrl, Math::max);
        inFlight.incrementAndGet();
        try {
            return responder.answer(url, id);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new AttemptResult(Outcome.TIMEOUT, null, Duration.ZERO, "", null, "interrupted");
        } finally {
            inFlight.decrementAndGet();
            inFlightByUrl.get(url).decrementAndGet();
            inFlightByDelivery.get(id).decrementAndGet();
        }
    }

    @Override
    public void close() {}

    List<Sent> sent() {
        return List.copyOf(sent);
    }

    List<Sent> sentTo(URI url) {
        return sent.stream().filter(s -> s.url().equals(url)).toList();
    }

    int inFlight() {
        return inFlight.get();
    }

    int inFlight(URI url) {
        AtomicInteger n = inFlightByUrl.get(url);
        return n == null ? 0 : n.get();
    }

    int maxInFlight(URI url) {
        AtomicInteger n = maxInFlightByUrl.get(url);
        return n == null ? 0 : n.get();
    }

    /** Delivery ids that had two attempts in flight at once. */
    List<String> overlaps() {
        return List.copyOf(overlaps);
    }

    static AttemptResult ok() {
        return status(200, null);
    }

    static AttemptResult status(int status) {
        return status(status, null);
    }

    static AttemptResult status(int status, @Nullable Duration retryAfter) {
        Outcome outcome = status >= 200 && status <= 299 ? Outcome.SUCCESS : Outcome.HTTP_ERROR;
        return new AttemptResult(outcome, status, Duration.ofMillis(3), "answer " + status, retryAfter, "");
    }

    static AttemptResult timeout() {
        return new AttemptResult(Outcome.TIMEOUT, null, Duration.ofSeconds(5), "", null, "no answer within 5 s");
    }
}
