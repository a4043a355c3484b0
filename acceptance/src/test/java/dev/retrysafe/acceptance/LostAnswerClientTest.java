package dev.retrysafe.acceptance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.retrysafe.client.Attempt;
import dev.retrysafe.client.CallResult;
import dev.retrysafe.client.RetryPolicy;
import dev.retrysafe.client.RetryReason;
import dev.retrysafe.client.RetryingHttpClient;
import dev.retrysafe.client.Sleeper;
import dev.retrysafe.sdk.Payment;
import dev.retrysafe.sdk.RetrysafeClient;
import dev.retrysafe.server.bank.Bank;
import dev.retrysafe.testkit.FakeClock;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The lost answer, handled by the retrying client instead of by hand (issue 7): against the real
 * server, over real HTTP, on H2 and on PostgreSQL, the client's timeout is shorter than the bank's
 * latency, so the first attempt's answer is lost; the client retries on its own with the one key
 * it generated, and the caller gets {@code 201}, exactly one payment exists, and every answer names
 * the same payment.
 *
 * <p>No timing decides the story: the simulated bank holds the first charge until the client has
 * been told {@code 409} (key in use) and waits its {@code Retry-After}; that wait, instead of
 * sleeping, releases the charge and waits (with a deadline) until the payment is committed.
 */
class LostAnswerClientTest {

    private static final Duration BANK_LATENCY = Duration.ofMillis(500);
    private static final Duration CLIENT_TIMEOUT = Duration.ofMillis(250);
    /** Upper bound of every wait in this test; a correct server needs a small fraction of it. */
    private static final Duration DEADLINE = Duration.ofSeconds(15);

    /** Holds the first charge at the bank until the test releases it. */
    private static final class HeldBank implements Bank.Processing {
        final CountDownLatch firstAtBank = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);
        final AtomicBoolean first = new AtomicBoolean(true);
        final AtomicBoolean holdRanOut = new AtomicBoolean();

        @Override
        public void process(String chargeKey, Duration latency) throws InterruptedException {
            if (first.compareAndSet(true, false)) {
                firstAtBank.countDown();
                if (!release.await(DEADLINE.toMillis(), TimeUnit.MILLISECONDS)) {
                    holdRanOut.set(true); // the test never released it: it fails below
                }
            }
            Bank.Processing.SLEEP.process(chargeKey, latency);
        }
    }

    @ParameterizedTest(name = "on {0}")
    @EnumSource(Storage.class)
    void aPaymentWhoseAnswerIsLostIsRetriedWithOneGeneratedKeyChargedOnceAndAnsweredWith201(Storage storage)
            throws Exception {
        HeldBank bank = new HeldBank();
        FakeClock clock = new FakeClock();
        List<Duration> waits = Collections.synchronizedList(new ArrayList<>());
        List<Attempt> attempts = Collections.synchronizedList(new ArrayList<>());

        try (Deployment d = Deployment.start(
                        storage, b -> b.bankLatency(BANK_LATENCY).bankProcessing(bank));
                HttpClient plain = PaymentsClient.newHttpClient()) {
            PaymentsClient check = PaymentsClient.of(plain, d.server, DEADLINE);
            Sleeper sleeper = new Sleeper() {
                @Override
                public void sleep(Duration duration) {
                    waits.add(duration);
                    clock.advance(duration);
                    if (duration.compareTo(Duration.ofSeconds(1)) >= 0) {
                        // the 409's Retry-After: the bank finishes the first charge meanwhile
                        bank.release.countDown();
                        await("the first attempt's payment committed")
                                .atMost(DEADLINE)
                                .pollDelay(Duration.ZERO)
                                .pollInterval(Duration.ofMillis(20))
                                .pollInSameThread()
                                .until(() -> Answers.json(check.get("/v1/payments"))
                                                .get("data")
                                                .size()
                                        == 1);
                    }
                }

                @Override
                public CompletableFuture<Void> delay(Duration duration) {
                    sleep(duration);
                    return CompletableFuture.completedFuture(null);
                }
            };
            RetryPolicy policy =
                    RetryPolicy.builder().attemptTimeout(CLIENT_TIMEOUT).build();
            try (HttpClient http = PaymentsClient.newHttpClient();
                    RetryingHttpClient client = RetryingHttpClient.builder()
                            .httpClient(http)
                            .policy(policy)
                            .clock(clock)
                            .sleeper(sleeper)
                            .listener(attempts::add)
                            .build();
                    RetrysafeClient api = RetrysafeClient.builder()
                            .baseUri(d.server.baseUri())
                            .apiKey(d.server.apiKey())
                            .http(client)
                            .build()) {
                // warm the connection and the server, so that the first attempt's timeout is spent at the bank
                assertThat(api.listPayments(1, null).isEmpty()).isTrue();
                attempts.clear();
                waits.clear();

                // the caller sends one payment, without a key: the client makes one and keeps it
                CallResult<String> result = client.send(
                        HttpRequest.newBuilder(d.server.uri("/v1/payments"))
                                .header("Authorization", "Bearer " + d.server.apiKey())
                                .header("Content-Type", "application/json")
                                .POST(HttpRequest.BodyPublishers.ofString(
                                        "{\"amount\": 500, \"currency\": \"eur\", \"description\": \"order 1\"}"))
                                .build(),
                        HttpResponse.BodyHandlers.ofString());

                String why =
                        "attempts " + attempts.stream().map(Attempt::describe).toList();
                assertThat(bank.firstAtBank.getCount())
                        .as("the first attempt reached the bank")
                        .isZero();
                assertThat(result.statusCode()).as(why).isEqualTo(201);
                assertThat(result.attempts()).as(why).hasSizeBetween(3, policy.maxAttempts());
                assertThat(result.attempts().getFirst().failure())
                        .as("the first answer was lost; " + why)
                        .isInstanceOf(HttpTimeoutException.class);
                assertThat(result.retryReasons()).as(why).contains(new RetryReason.Status(409, Duration.ofSeconds(1)));
                String key = result.idempotencyKey();
                assertThat(key).isNotNull();
                assertThat(result.attempts())
                        .as("one key on every attempt")
                        .allSatisfy(a -> assertThat(a.idempotencyKey()).isEqualTo(key));
                assertThat(waits.stream().filter(w -> w.compareTo(Duration.ofSeconds(1)) >= 0))
                        .as("the Retry-After of the 409 was honoured; waits " + waits)
                        .isNotEmpty();
                String id = new ObjectMapper().readTree(result.body()).get("id").asText();
                assertThat(id).matches("pay_[0-9a-z]{26}");
                assertThat(result.response().headers().firstValue("Idempotent-Replayed"))
                        .as("the first attempt's answer, replayed")
                        .hasValue("true");

                // every later answer to the same key names the same payment
                for (int i = 0; i < 2; i++) {
                    Payment again = api.createPayment(500, "eur", "order 1", key);
                    assertThat(again.id()).isEqualTo(id);
                    assertThat(again.status()).isEqualTo("succeeded");
                }
                // exactly one payment, seen through the API and in the database; one charge at the bank
                List<Payment> listed = api.listPayments(100, null).data();
                assertThat(listed).extracting(Payment::id).containsExactly(id);
                assertThat(d.paymentIdsByKey()).isEqualTo(Map.of(key, id));
                assertThat(d.count("SELECT COUNT(*) FROM bank_charges")).isEqualTo(1);
                assertThat(bank.holdRanOut)
                        .as("the first charge was released by the test")
                        .isFalse();
            } finally {
                bank.release.countDown();
            }
        }
    }
}
