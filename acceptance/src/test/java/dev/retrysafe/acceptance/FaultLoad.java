package dev.retrysafe.acceptance;

import dev.retrysafe.client.Attempt;
import dev.retrysafe.client.RetryPolicy;
import dev.retrysafe.client.RetryingHttpClient;
import dev.retrysafe.sdk.AcceptedJob;
import dev.retrysafe.sdk.ApiException;
import dev.retrysafe.sdk.Payment;
import dev.retrysafe.sdk.Refund;
import dev.retrysafe.sdk.RetrysafeClient;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;

/**
 * The mixed load of a fault-injection run, all through nginx: payments and refunds with the
 * retrying client ({@link RetrysafeClient}) and keys of our own, so that every key's fate can be
 * checked in the database; reports followed to their end; and a steady probe of the shared rate
 * limit with a plain client that never retries. Every attempt of the retrying client is recorded
 * (its status or failure and when), as is every probe answer. Threadsafe.
 */
final class FaultLoad implements AutoCloseable {

    /** What a call is about. */
    enum Kind {
        PAYMENT,
        REFUND,
        REPORT,
        PROBE
    }

    /** One attempt's answer ({@code status} -1: no answer, {@code failure} says why). */
    record AttemptRecord(
            Instant at, Kind kind, int status, @Nullable String failure) {}

    /**
     * The final answer of the client for one idempotency key: {@code id} of what was made, or the
     * final error {@code status}, or 0 when the client gave up without an answer.
     */
    record KeyOutcome(
            Kind kind,
            String key,
            String target,
            long amount,
            @Nullable String id,
            int status) {

        boolean gaveUp() {
            return id == null && (status == 0 || status >= 500 || status == 409 || status == 429);
        }
    }

    /**
     * One probe answer: {@code decided} when the server's limiter spoke (a {@code RateLimit-Policy}
     * header), {@code counted} when it counted the request (a {@code RateLimit} budget for the
     * probe policy).
     */
    record ProbeAnswer(Instant sentAt, Instant answeredAt, int status, boolean decided, boolean counted) {

        /** Let through by the limiter, counted or not. */
        boolean allowed() {
            return decided && status != 429;
        }
    }

    /** Every call's deadline: long enough to ride out any one fault of the suite. */
    static final Duration CALL_DEADLINE = Duration.ofSeconds(60);

    private static final Duration ATTEMPT_TIMEOUT = Duration.ofSeconds(5);
    private static final Duration PROBE_INTERVAL = Duration.ofMillis(150);
    private static final long REFUND_AMOUNT = 10;

    private final FaultCluster cluster;
    private final RetryingHttpClient http;
    private final RetrysafeClient api;
    private final HttpClient probeHttp = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(1))
            .build();
    private final Queue<AttemptRecord> attempts = new ConcurrentLinkedQueue<>();
    private final Queue<ProbeAnswer> probes = new ConcurrentLinkedQueue<>();
    private final Map<String, KeyOutcome> outcomes = new ConcurrentHashMap<>();
    private final List<String> paidIds = new CopyOnWriteArrayList<>();
    private final Queue<String> jobIds = new ConcurrentLinkedQueue<>();
    private final AtomicInteger reportsGivenUp = new AtomicInteger();
    private final Queue<Throwable> failures = new ConcurrentLinkedQueue<>();
    private final AtomicInteger paymentCounter = new AtomicInteger();
    private final AtomicInteger refundCounter = new AtomicInteger();
    private final List<Thread> threads = new ArrayList<>();
    private volatile boolean running = true;

    FaultLoad(FaultCluster cluster) {
        this.cluster = cluster;
        this.http = RetryingHttpClient.builder()
                .policy(RetryPolicy.builder()
                        .maxAttempts(40)
                        .baseDelay(Duration.ofMillis(100))
                        .maxDelay(Duration.ofSeconds(2))
                        .deadline(CALL_DEADLINE)
                        .attemptTimeout(ATTEMPT_TIMEOUT)
                        .build())
                .listener(this::record)
                .build();
        this.api = RetrysafeClient.builder()
                .baseUri(cluster.entry())
                .apiKey(cluster.loadKey)
                .http(http)
                .requestTimeout(ATTEMPT_TIMEOUT)
                .build();
    }

    /** Starts {@code paymentWorkers} payment threads, one refund, one report and one probe thread. */
    void start(int paymentWorkers) {
        for (int i = 0; i < paymentWorkers; i++) {
            spawn("payments-" + i, this::payOnce);
        }
        spawn("refunds", this::refundOnce);
        spawn("reports", this::reportOnce);
        spawn("probe", this::probeOnce);
    }

    /** Payments answered so far (by id). */
    int paid() {
        return paidIds.size();
    }

    /** Stops every thread after its current call and waits for them, bounded by the call deadline. */
    void stop() throws InterruptedException {
        running = false;
        for (Thread t : threads) {
            t.join(CALL_DEADLINE.plusSeconds(30).toMillis());
            if (t.isAlive()) {
                throw new AssertionError("load thread " + t.getName() + " did not stop");
            }
        }
    }

    /** The first unexpected exception of a load thread, as a failure, or nothing. */
    List<Throwable> failures() {
        return new ArrayList<>(failures);
    }

    List<AttemptRecord> attempts() {
        return new ArrayList<>(attempts);
    }

    List<ProbeAnswer> probes() {
        return new ArrayList<>(probes);
    }

    Map<String, KeyOutcome> outcomes() {
        return Map.copyOf(outcomes);
    }

    List<String> jobIds() {
        return new ArrayList<>(jobIds);
    }

    int reportsGivenUp() {
        return reportsGivenUp.get();
    }

    /**
     * Calls again, with the same key and body, every key whose call ended without a final answer,
     * as a client does once the outage is over; returns how many there were.
     */
    int reconcile() throws InterruptedException {
        int again = 0;
        for (KeyOutcome o : List.copyOf(outcomes.values())) {
            if (o.gaveUp()) {
                again++;
                if (o.kind() == Kind.PAYMENT) {
                    pay(o.key(), o.amount());
                } else {
                    refund(o.key(), o.target());
                }
            }
        }
        return again;
    }

    private void spawn(String name, Step step) {
        Thread t = Thread.ofPlatform().name("fault-load-" + name).daemon().start(() -> {
            while (running) {
                try {
                    step.run();
                } catch (InterruptedException e) {
                    return;
                } catch (RuntimeException | Error e) {
                    failures.add(new AssertionError("load thread " + name + " failed", e));
                    return;
                }
            }
        });
        threads.add(t);
    }

    private interface Step {
        void run() throws InterruptedException;
    }

    private void payOnce() throws InterruptedException {
        int n = paymentCounter.incrementAndGet();
        pay("pay-" + n, 100 + n % 900);
    }

    private void pay(String key, long amount) throws InterruptedException {
        try {
            Payment p = api.createPayment(amount, "eur", "fault suite", key);
            outcomes.put(key, new KeyOutcome(Kind.PAYMENT, key, "", amount, p.id(), 201));
            if (p.status().equals("succeeded")) {
                paidIds.add(p.id());
            }
        } catch (ApiException e) {
            outcomes.put(key, new KeyOutcome(Kind.PAYMENT, key, "", amount, null, e.status()));
        } catch (IOException e) {
            outcomes.put(key, new KeyOutcome(Kind.PAYMENT, key, "", amount, null, 0));
        }
    }

    private void refundOnce() throws InterruptedException {
        if (paidIds.isEmpty()) {
            Thread.sleep(50); // pacing: nothing to refund yet
            return;
        }
        String paymentId = paidIds.get(ThreadLocalRandom.current().nextInt(paidIds.size()));
        refund("ref-" + refundCounter.incrementAndGet(), paymentId);
    }

    private void refund(String key, String paymentId) throws InterruptedException {
        try {
            Refund r = api.createRefund(paymentId, REFUND_AMOUNT, key);
            outcomes.put(key, new KeyOutcome(Kind.REFUND, key, paymentId, REFUND_AMOUNT, r.id(), 201));
        } catch (ApiException e) {
            outcomes.put(key, new KeyOutcome(Kind.REFUND, key, paymentId, REFUND_AMOUNT, null, e.status()));
        } catch (IOException e) {
            outcomes.put(key, new KeyOutcome(Kind.REFUND, key, paymentId, REFUND_AMOUNT, null, 0));
        }
    }

    private void reportOnce() throws InterruptedException {
        try {
            AcceptedJob accepted = api.createReport(null, null);
            jobIds.add(accepted.job().id());
            // following the job paces the reports: one at a time
            api.awaitJob(accepted, CALL_DEADLINE);
        } catch (IOException e) {
            reportsGivenUp.incrementAndGet();
        }
    }

    private void probeOnce() throws InterruptedException {
        URI uri = cluster.entry().resolve("/v1/payments?limit=1");
        Instant sent = Instant.now();
        int status;
        boolean decided = false;
        boolean counted = false;
        try {
            HttpResponse<Void> r = probeHttp.send(
                    HttpRequest.newBuilder(uri)
                            .timeout(ATTEMPT_TIMEOUT)
                            .header("Authorization", "Bearer " + cluster.probeKey)
                            .GET()
                            .build(),
                    HttpResponse.BodyHandlers.discarding());
            status = r.statusCode();
            decided = r.headers().firstValue("RateLimit-Policy").isPresent();
            counted = r.headers()
                    .firstValue("RateLimit")
                    .filter(v -> v.contains(FaultCluster.PROBE_POLICY))
                    .isPresent();
        } catch (IOException e) {
            status = -1;
        }
        Instant answered = Instant.now();
        probes.add(new ProbeAnswer(sent, answered, status, decided, counted));
        attempts.add(new AttemptRecord(answered, Kind.PROBE, status, status == -1 ? "no answer" : null));
        Thread.sleep(PROBE_INTERVAL.toMillis()); // pacing of the probe's steady rate
    }

    private void record(Attempt a) {
        String path = a.uri().getPath();
        Kind kind = path.startsWith("/v1/refunds")
                ? Kind.REFUND
                : path.startsWith("/v1/reports") || path.startsWith("/v1/jobs") ? Kind.REPORT : Kind.PAYMENT;
        attempts.add(new AttemptRecord(
                Instant.now(),
                kind,
                a.status().orElse(-1),
                a.failure() == null ? null : a.failure().getClass().getSimpleName()));
    }

    @Override
    public void close() {
        running = false;
        api.close();
        http.close();
        probeHttp.close();
    }
}
