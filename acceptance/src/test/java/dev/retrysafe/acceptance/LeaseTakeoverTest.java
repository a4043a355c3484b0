package dev.retrysafe.acceptance;

import static dev.retrysafe.acceptance.Answers.json;
import static dev.retrysafe.acceptance.Answers.replayed;
import static dev.retrysafe.acceptance.Answers.text;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.retrysafe.server.bank.Bank;
import dev.retrysafe.server.config.IdempotencyConfig;
import dev.retrysafe.testkit.FakeClock;
import java.net.http.HttpClient;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Leases and retention of idempotency keys, driven by a {@link FakeClock} that the server reads
 * for every lease and retention decision: time passes only when the test moves it.
 */
class LeaseTakeoverTest {

    private static final Duration LEASE = Duration.ofSeconds(5);
    private static final Duration RETENTION = Duration.ofHours(24);
    private static final Duration MILLI = Duration.ofMillis(1);
    private static final Duration DEADLINE = Duration.ofSeconds(15);
    private static final String PAYMENT = "{\"amount\": 500, \"currency\": \"eur\"}";
    private static final String OTHER_PAYMENT = "{\"amount\": 700, \"currency\": \"eur\"}";

    /**
     * The first try of a payment is stuck at the bank past its 5 s lease (a GC pause, a slow bank).
     * A retry takes the claim over and makes the payment; when the first try finally comes back,
     * its completion finds the claim gone, so it rolls back and answers {@code 409}
     * (docs/concurrency.md): one payment, and the retry's answer is the one replayed. Leases on the
     * server's clock: claims in process on the embedded database, claim rows on PostgreSQL (its
     * advisory locks have a real-time lease: the next test).
     */
    @ParameterizedTest(name = "on {0}")
    @EnumSource(Storage.class)
    void aRetryTakesOverAnExpiredLeaseAndTheStaleFirstTryMakesNoSecondPayment(Storage storage) throws Exception {
        FakeClock clock = new FakeClock();
        FirstChargeHold holdFirst = new FirstChargeHold();
        ExecutorService firstClient = Executors.newSingleThreadExecutor();
        IdempotencyConfig.Claims claims =
                storage == Storage.H2 ? IdempotencyConfig.Claims.AUTO : IdempotencyConfig.Claims.ROWS;
        try (Deployment d = Deployment.start(
                        storage,
                        b -> b.clock(clock)
                                .lease(LEASE)
                                .bankProcessing(holdFirst)
                                .claims(claims));
                HttpClient http = PaymentsClient.newHttpClient()) {
            PaymentsClient client = PaymentsClient.of(http, d.server, DEADLINE);
            Future<HttpResponse<byte[]>> firstTry;
            HttpResponse<byte[]> takeover;
            try {
                firstTry = firstClient.submit(() -> client.pay("k", PAYMENT));
                assertThat(holdFirst.firstAtBank.await(DEADLINE.toMillis(), TimeUnit.MILLISECONDS))
                        .as("the first try reached the bank")
                        .isTrue();

                // just before the lease runs out the key is still held
                clock.advance(LEASE.minus(MILLI));
                assertInUse(client.pay("k", PAYMENT));

                // past the lease: a retry takes the claim over and runs the payment
                clock.advance(MILLI.multipliedBy(2));
                takeover = client.pay("k", PAYMENT);
                assertThat(takeover.statusCode()).as(text(takeover)).isEqualTo(201);
                assertThat(replayed(takeover))
                        .as("the takeover ran the payment itself")
                        .isFalse();
            } finally {
                holdFirst.releaseFirst.countDown();
            }

            // the first try comes back from the bank: its claim was taken over
            HttpResponse<byte[]> stale = firstTry.get(DEADLINE.toMillis(), TimeUnit.MILLISECONDS);
            assertInUse(stale);

            String id = json(takeover).get("id").asText();
            assertThat(d.paymentIdsByKey()).isEqualTo(Map.of("k", id));
            assertThat(d.count("SELECT COUNT(*) FROM payments")).isEqualTo(1);
            assertThat(d.count("SELECT COUNT(*) FROM events"))
                    .as("events of payments")
                    .isEqualTo(1);
            assertThat(d.count("SELECT COUNT(*) FROM bank_charges")).isEqualTo(1);

            HttpResponse<byte[]> later = client.pay("k", PAYMENT);
            assertThat(later.statusCode()).as(text(later)).isEqualTo(201);
            assertThat(replayed(later)).isTrue();
            assertThat(later.body()).as("the replay is the takeover's answer").isEqualTo(takeover.body());
            assertThat(later.headers().firstValue("Location"))
                    .isEqualTo(takeover.headers().firstValue("Location"));
            assertThat(holdFirst.holdRanOut).isFalse();
        } finally {
            firstClient.shutdownNow();
            assertThat(firstClient.awaitTermination(DEADLINE.toMillis(), TimeUnit.MILLISECONDS))
                    .isTrue();
        }
    }

    /**
     * With advisory locks (PostgreSQL's default) the lease is how long the first try's transaction
     * may sit idle: stuck at the bank past it, PostgreSQL ends its session, and with it the lock.
     * Until then a retry gets {@code 409}; after, a retry makes the payment. The first try, back
     * from the bank, finds its connection gone and answers {@code 503} (retryable, nothing changed):
     * one payment, one charge, and the retry's answer is the one replayed.
     */
    @Test
    void onPostgresAFirstTryIdlePastTheLeaseLosesItsLockAndARetryRuns() throws Exception {
        Duration lease = Duration.ofSeconds(1); // real time: the transaction's idle timeout
        FirstChargeHold holdFirst = new FirstChargeHold();
        ExecutorService firstClient = Executors.newSingleThreadExecutor();
        try (Deployment d =
                        Deployment.start(Storage.POSTGRESQL, b -> b.lease(lease).bankProcessing(holdFirst));
                HttpClient http = PaymentsClient.newHttpClient()) {
            PaymentsClient client = PaymentsClient.of(http, d.server, DEADLINE);
            Future<HttpResponse<byte[]>> firstTry;
            HttpResponse<byte[]> takeover;
            try {
                firstTry = firstClient.submit(() -> client.pay("k", PAYMENT));
                assertThat(holdFirst.firstAtBank.await(DEADLINE.toMillis(), TimeUnit.MILLISECONDS))
                        .isTrue();
                assertInUse(client.pay("k", PAYMENT));

                // PostgreSQL ends the idle session about a lease later: retry until a try runs
                AtomicReference<HttpResponse<byte[]>> retry = new AtomicReference<>();
                Awaitility.await("a retry that runs")
                        .atMost(DEADLINE)
                        .pollInterval(Duration.ofMillis(100))
                        .until(() -> {
                            retry.set(client.pay("k", PAYMENT));
                            return retry.get().statusCode() != 409;
                        });
                takeover = retry.get();
                assertThat(takeover.statusCode()).as(text(takeover)).isEqualTo(201);
                assertThat(replayed(takeover)).isFalse();
            } finally {
                holdFirst.releaseFirst.countDown();
            }

            HttpResponse<byte[]> stale = firstTry.get(DEADLINE.toMillis(), TimeUnit.MILLISECONDS);
            assertThat(stale.statusCode()).as(text(stale)).isEqualTo(503);
            assertThat(json(stale).get("type").asText()).isEqualTo("/problems/service-unavailable");

            assertThat(d.count("SELECT COUNT(*) FROM payments")).isEqualTo(1);
            assertThat(d.count("SELECT COUNT(*) FROM bank_charges")).isEqualTo(1);
            assertThat(d.count("SELECT COUNT(*) FROM idempotency_keys")).isEqualTo(1);
            HttpResponse<byte[]> later = client.pay("k", PAYMENT);
            assertThat(replayed(later)).isTrue();
            assertThat(later.body()).isEqualTo(takeover.body());
        } finally {
            firstClient.shutdownNow();
            assertThat(firstClient.awaitTermination(DEADLINE.toMillis(), TimeUnit.MILLISECONDS))
                    .isTrue();
        }
    }

    /**
     * A key is kept 24 hours from its first use (docs/idempotency.md): until then another request
     * under it is refused with {@code 422}; after that the key is forgotten, so the same key with
     * another body is a new request that makes a new payment.
     */
    @ParameterizedTest(name = "on {0}")
    @EnumSource(Storage.class)
    void aKeyIsForgottenOnceItsRetentionHasPassed(Storage storage) throws Exception {
        FakeClock clock = new FakeClock();
        try (Deployment d = Deployment.start(storage, b -> b.clock(clock));
                HttpClient http = PaymentsClient.newHttpClient()) {
            PaymentsClient client = PaymentsClient.of(http, d.server, DEADLINE);
            HttpResponse<byte[]> original = client.pay("kept-24h", PAYMENT);
            assertThat(original.statusCode()).as(text(original)).isEqualTo(201);

            clock.advance(RETENTION.minus(MILLI));
            HttpResponse<byte[]> replay = client.pay("kept-24h", PAYMENT);
            assertThat(replay.statusCode()).isEqualTo(201);
            assertThat(replayed(replay)).isTrue();
            assertThat(replay.body()).isEqualTo(original.body());
            HttpResponse<byte[]> refused = client.pay("kept-24h", OTHER_PAYMENT);
            assertThat(refused.statusCode()).as(text(refused)).isEqualTo(422);
            assertThat(json(refused).get("type").asText()).isEqualTo("/problems/idempotency-key-reused");

            clock.advance(MILLI.multipliedBy(2));
            HttpResponse<byte[]> renewed = client.pay("kept-24h", OTHER_PAYMENT);
            assertThat(renewed.statusCode())
                    .as("the same key after 24 h: a new request, %s", text(renewed))
                    .isEqualTo(201);
            assertThat(replayed(renewed)).isFalse();
            JsonNode payment = json(renewed);
            assertThat(payment.get("id").asText())
                    .isNotEqualTo(json(original).get("id").asText());
            assertThat(payment.get("amount").asLong()).isEqualTo(700);
            assertThat(d.count("SELECT COUNT(*) FROM payments")).isEqualTo(2);
            // the bank, like a real processor, forgets charge keys after the same retention: its one
            // record for the key now describes the new charge of 700 instead of the old one of 500
            assertThat(d.count("SELECT COUNT(*) FROM bank_charges")).isEqualTo(1);
            assertThat(d.count("SELECT COUNT(*) FROM bank_charges WHERE amount = 700"))
                    .as("a new charge at the bank")
                    .isEqualTo(1);

            HttpResponse<byte[]> renewedReplay = client.pay("kept-24h", OTHER_PAYMENT);
            assertThat(replayed(renewedReplay)).isTrue();
            assertThat(renewedReplay.body()).isEqualTo(renewed.body());
        }
    }

    /** The bank holds the first charge until released (or the deadline), then processes every charge as usual. */
    private static final class FirstChargeHold implements Bank.Processing {
        final CountDownLatch firstAtBank = new CountDownLatch(1);
        final CountDownLatch releaseFirst = new CountDownLatch(1);
        final AtomicBoolean holdRanOut = new AtomicBoolean();
        private final AtomicBoolean first = new AtomicBoolean(true);

        @Override
        public void process(String chargeKey, Duration latency) throws InterruptedException {
            if (first.compareAndSet(true, false)) {
                firstAtBank.countDown();
                if (!releaseFirst.await(DEADLINE.toMillis(), TimeUnit.MILLISECONDS)) {
                    holdRanOut.set(true);
                }
            }
            Bank.Processing.SLEEP.process(chargeKey, latency);
        }
    }

    private static void assertInUse(HttpResponse<byte[]> r) {
        assertThat(r.statusCode()).as(text(r)).isEqualTo(409);
        assertThat(r.headers().firstValue("Retry-After")).hasValue("1");
        assertThat(json(r).get("type").asText()).isEqualTo("/problems/idempotency-key-in-use");
    }
}
