package dev.retrysafe.acceptance;

import static dev.retrysafe.acceptance.Answers.assertSameAnswer;
import static dev.retrysafe.acceptance.Answers.json;
import static dev.retrysafe.acceptance.Answers.replayed;
import static dev.retrysafe.acceptance.Answers.text;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.retrysafe.server.bank.Bank;
import java.net.http.HttpClient;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The seed's story, end to end over real HTTP, on H2 and on PostgreSQL: a client's first try at
 * {@code POST /v1/payments} times out while the bank is still working, and every retry with the
 * same {@code Idempotency-Key} must lead to exactly one charge and the same answer.
 *
 * <p>"The retry arrives while the first try is still at the bank" is reached without timing: the
 * simulated bank holds the first charge on a latch until the test has seen the retry answered,
 * and only then spends its 100 ms of processing time.
 */
class LostAnswerScenarioTest {

    private static final Duration BANK_LATENCY = Duration.ofMillis(100);
    private static final Duration CLIENT_TIMEOUT = Duration.ofMillis(50);
    /** Upper bound of every wait in this test; a correct server needs a small fraction of it. */
    private static final Duration DEADLINE = Duration.ofSeconds(15);

    private static final String PAYMENT = "{\"amount\": 500, \"currency\": \"eur\", \"description\": \"order 1\"}";
    /** The same request re-serialised by a retrying client: other member order and spacing. */
    private static final String PAYMENT_RESERIALISED =
            "{ \"currency\":\"eur\",\"description\":\"order 1\", \"amount\":500 }";

    private static final String OTHER_AMOUNT = "{\"amount\": 700, \"currency\": \"eur\", \"description\": \"order 1\"}";

    @ParameterizedTest(name = "on {0}")
    @EnumSource(Storage.class)
    void aTimedOutPaymentRetriedWithItsKeyIsChargedOnceAndEveryTryGetsTheSameAnswer(Storage storage) throws Exception {
        CountDownLatch firstChargeAtBank = new CountDownLatch(1);
        CountDownLatch releaseFirstCharge = new CountDownLatch(1);
        AtomicBoolean firstCharge = new AtomicBoolean(true);
        AtomicBoolean holdRanOut = new AtomicBoolean();
        Bank.Processing holdFirstCharge = (chargeKey, latency) -> {
            if (firstCharge.compareAndSet(true, false)) {
                firstChargeAtBank.countDown();
                if (!releaseFirstCharge.await(DEADLINE.toMillis(), TimeUnit.MILLISECONDS)) {
                    holdRanOut.set(true); // the test never released it: it fails below
                }
            }
            Bank.Processing.SLEEP.process(chargeKey, latency); // the bank's own processing time
        };

        try (Deployment d = Deployment.start(
                        storage, b -> b.bankLatency(BANK_LATENCY).bankProcessing(holdFirstCharge));
                HttpClient http = PaymentsClient.newHttpClient()) {
            PaymentsClient client = PaymentsClient.of(http, d.server, DEADLINE);
            try {
                // warm the connection and the server so the 50 ms timeout is spent at the bank
                assertThat(client.get("/v1/payments").statusCode()).isEqualTo(200);

                // 1. the first try: the client gives up after 50 ms, the bank takes (at least) 100 ms
                assertThatThrownBy(() -> client.pay("k1", PAYMENT, CLIENT_TIMEOUT))
                        .isInstanceOf(HttpTimeoutException.class);
                assertThat(firstChargeAtBank.await(DEADLINE.toMillis(), TimeUnit.MILLISECONDS))
                        .as("the first try reached the bank")
                        .isTrue();

                // 2. retries while the first try is still at the bank
                HttpResponse<byte[]> during = client.pay("k1", PAYMENT_RESERIALISED);
                assertInUse(during);
                HttpResponse<byte[]> changedDuring = client.pay("k1", OTHER_AMOUNT);
                assertProblem(changedDuring, 422, "/problems/idempotency-key-reused");
                assertThat(d.count("SELECT COUNT(*) FROM payments"))
                        .as("nothing committed yet")
                        .isZero();
            } finally {
                releaseFirstCharge.countDown();
            }

            // 3. the retry after the work: the first try's answer, replayed
            HttpResponse<byte[]> after = await("the first try's answer")
                    .atMost(DEADLINE)
                    .pollDelay(Duration.ZERO)
                    .pollInterval(Duration.ofMillis(20))
                    .pollInSameThread()
                    .until(() -> client.pay("k1", PAYMENT), r -> r.statusCode() != 409);
            assertThat(after.statusCode()).as(text(after)).isEqualTo(201);
            assertThat(replayed(after)).as("a replay of the first try's answer").isTrue();
            JsonNode payment = json(after);
            String id = payment.get("id").asText();
            assertThat(id).matches("pay_[0-9a-z]{26}");
            assertThat(payment.get("amount").asLong()).isEqualTo(500);
            assertThat(payment.get("currency").asText()).isEqualTo("eur");
            assertThat(payment.get("status").asText()).isEqualTo("succeeded");
            assertThat(after.headers().firstValue("Location")).hasValue("/v1/payments/" + id);
            assertThat(d.paymentIdsByKey()).as("the payment the first try made").isEqualTo(Map.of("k1", id));

            // every later retry repeats exactly this answer, and it is the stored payment
            HttpResponse<byte[]> again = client.pay("k1", PAYMENT_RESERIALISED);
            assertSameAnswer(again, after);
            assertThat(replayed(again)).isTrue();
            HttpResponse<byte[]> read = client.get("/v1/payments/" + id);
            assertThat(read.statusCode()).isEqualTo(200);
            assertThat(json(read)).isEqualTo(payment);

            // 4. the same key with another amount, and no key at all
            assertProblem(client.pay("k1", OTHER_AMOUNT), 422, "/problems/idempotency-key-reused");
            assertProblem(client.pay(null, PAYMENT), 400, "/problems/idempotency-key-missing");

            // 5. two tries of one new payment at the same moment
            List<HttpResponse<byte[]>> both = inParallel(2, () -> client.pay("k2", PAYMENT));
            List<HttpResponse<byte[]>> created =
                    both.stream().filter(r -> r.statusCode() == 201).toList();
            assertThat(created)
                    .as("at least one of two parallel tries succeeds: %s", statuses(both))
                    .isNotEmpty();
            List<HttpResponse<byte[]>> originals =
                    created.stream().filter(r -> !replayed(r)).toList();
            assertThat(originals)
                    .as("exactly one of the parallel tries ran the payment: %s", statuses(both))
                    .hasSize(1);
            HttpResponse<byte[]> original = originals.get(0);
            String secondId = json(original).get("id").asText();
            assertThat(secondId).isNotEqualTo(id);
            for (HttpResponse<byte[]> r : both) {
                if (r == original) {
                    continue;
                }
                if (r.statusCode() == 409) {
                    assertInUse(r);
                } else {
                    assertThat(r.statusCode()).as(text(r)).isEqualTo(201);
                    assertSameAnswer(r, original);
                    assertThat(replayed(r)).isTrue();
                }
            }

            // 6. exactly two payments, two charges at the bank
            assertThat(d.paymentIdsByKey()).isEqualTo(Map.of("k1", id, "k2", secondId));
            assertThat(d.count("SELECT COUNT(*) FROM payments")).isEqualTo(2);
            assertThat(d.count("SELECT COUNT(*) FROM bank_charges")).isEqualTo(2);
            JsonNode list = json(client.get("/v1/payments?limit=100"));
            assertThat(list.get("has_more").asBoolean()).isFalse();
            assertThat(list.get("data").findValuesAsText("id")).containsExactlyInAnyOrder(id, secondId);
            assertThat(holdRanOut)
                    .as("the first charge was released by the test")
                    .isFalse();
        }
    }

    private static void assertInUse(HttpResponse<byte[]> r) {
        assertProblem(r, 409, "/problems/idempotency-key-in-use");
        assertThat(r.headers().firstValue("Retry-After")).hasValue("1");
    }

    private static void assertProblem(HttpResponse<byte[]> r, int status, String type) {
        assertThat(r.statusCode()).as(text(r)).isEqualTo(status);
        assertThat(r.headers().firstValue("Content-Type"))
                .hasValueSatisfying(ct -> assertThat(ct).startsWith("application/problem+json"));
        JsonNode problem = json(r);
        assertThat(problem.get("type").asText()).isEqualTo(type);
        assertThat(problem.get("status").asInt()).isEqualTo(status);
        assertThat(problem.get("title").asText()).isNotBlank();
        assertThat(problem.get("detail").asText()).isNotBlank();
    }

    /** Runs {@code task} on {@code n} threads released together; fails if any fails or hangs. */
    private static <T> List<T> inParallel(int n, Callable<T> task) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(n);
        try {
            CountDownLatch ready = new CountDownLatch(n);
            CountDownLatch gate = new CountDownLatch(1);
            List<Future<T>> futures = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                futures.add(pool.submit(() -> {
                    ready.countDown();
                    if (!gate.await(DEADLINE.toMillis(), TimeUnit.MILLISECONDS)) {
                        throw new AssertionError("the start gate never opened");
                    }
                    return task.call();
                }));
            }
            assertThat(ready.await(DEADLINE.toMillis(), TimeUnit.MILLISECONDS))
                    .as("workers ready")
                    .isTrue();
            gate.countDown();
            List<T> results = new ArrayList<>();
            for (Future<T> f : futures) {
                results.add(f.get(DEADLINE.toMillis(), TimeUnit.MILLISECONDS));
            }
            return results;
        } finally {
            pool.shutdownNow();
            assertThat(pool.awaitTermination(DEADLINE.toMillis(), TimeUnit.MILLISECONDS))
                    .isTrue();
        }
    }

    private static List<String> statuses(List<HttpResponse<byte[]>> answers) {
        return answers.stream()
                .map(r -> r.statusCode() + (replayed(r) ? " replayed" : ""))
                .toList();
    }
}
