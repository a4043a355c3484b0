package dev.retrysafe.acceptance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The example Spring Boot application ({@code examples/spring-boot-payments}), packaged and run as
 * a process, against the payments contract of the Retrysafe server over real HTTP. One application
 * serves the ordered tests; the last one stops it with SIGTERM. The crash test starts its own. A
 * subclass names the store: the embedded H2 file (the default) or PostgreSQL.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@Timeout(value = 300, unit = TimeUnit.SECONDS)
abstract class ExampleAppContract {

    /** Slow enough that a second request with the key arrives while the first is at the bank. */
    static final Duration BANK_LATENCY = Duration.ofMillis(1500);
    /** What makes the example's service throw after its insert (its {@code payments.demo} setting). */
    static final String FAIL_AFTER_INSERT = "fail after insert";

    final String keyA = "example_key_a_" + UUID.randomUUID().toString().replace("-", "");
    final String keyB = "example_key_b_" + UUID.randomUUID().toString().replace("-", "");

    /** The class's temporary folder (a parameter of {@link #startApp}: fields are not injected before it). */
    private @Nullable Path dir;

    private final List<ExampleApp.Store> stores = new java.util.ArrayList<>();
    private ExampleApp.@Nullable Store store;
    private @Nullable ExampleApp app;
    private @Nullable ExampleHttp http;

    /** A new, empty store, whose files (if any) go under {@code dir}. */
    abstract ExampleApp.Store newStore(Path dir);

    /** Drops what {@link #newStore} made. */
    abstract void drop(ExampleApp.Store store);

    /** A new store, dropped after the tests. */
    ExampleApp.Store store(Path dir) {
        ExampleApp.Store made = newStore(dir);
        stores.add(made);
        return made;
    }

    @BeforeAll
    void startApp(@TempDir Path temp) throws IOException {
        dir = temp;
        store = store(temp.resolve("shared"));
        app = ExampleApp.start(
                "example",
                store,
                temp,
                List.of(keyA, keyB),
                BANK_LATENCY,
                Map.of(),
                "--payments.demo.fail-after-insert-when-description=" + FAIL_AFTER_INSERT,
                // the test's webhook endpoint is on loopback, over plain http
                "--retrysafe.webhooks.out.ssrf.allow-private-targets=127.0.0.0/8",
                "--retrysafe.webhooks.out.ssrf.require-https=false");
        http = new ExampleHttp(app.base);
    }

    @AfterAll
    void stopApp() {
        try {
            if (app != null) {
                app.close();
            }
        } finally {
            stores.forEach(this::drop);
        }
    }

    ExampleHttp http() {
        return java.util.Objects.requireNonNull(http);
    }

    ExampleApp.Store sharedStore() {
        return java.util.Objects.requireNonNull(store);
    }

    ExampleApp app() {
        return java.util.Objects.requireNonNull(app);
    }

    @Test
    @Order(1)
    void answersThePaymentsContractOfTheServerPerAccount() throws Exception {
        HttpResponse<String> created =
                http().pay(keyA, newKey(), "{\"amount\": 500, \"currency\": \"eur\", \"description\": \"tea\"}");
        assertThat(created.statusCode()).as(created.body()).isEqualTo(201);
        JsonNode payment = ExampleHttp.json(created);
        String id = payment.get("id").asText();
        assertThat(id).matches("pay_[0-9a-hjkmnp-tv-z]{26}");
        assertThat(created.headers().firstValue("Location")).contains("/v1/payments/" + id);
        assertThat(payment.get("object").asText()).isEqualTo("payment");
        assertThat(payment.get("amount").asLong()).isEqualTo(500);
        assertThat(payment.get("amount_refunded").asLong()).isZero();
        assertThat(payment.get("currency").asText()).isEqualTo("eur");
        assertThat(payment.get("status").asText()).isEqualTo("succeeded");
        assertThat(payment.get("description").asText()).isEqualTo("tea");
        assertThat(payment.get("created_at").asText()).matches("\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d(\\.\\d+)?Z");

        HttpResponse<String> read = http().get("/v1/payments/" + id, keyA);
        assertThat(read.statusCode()).isEqualTo(200);
        assertThat(ExampleHttp.json(read)).isEqualTo(payment);

        HttpResponse<String> list = http().get("/v1/payments?limit=5", keyA);
        assertThat(list.statusCode()).isEqualTo(200);
        assertThat(ExampleHttp.json(list).get("data").get(0)).isEqualTo(payment);
        assertThat(ExampleHttp.json(list).has("has_more")).isTrue();

        // another account: the payment does not exist for it
        HttpResponse<String> foreign = http().get("/v1/payments/" + id, keyB);
        assertProblem(foreign, 404, "/problems/not-found");
        assertThat(foreign.body()).doesNotContain("tea");
        JsonNode foreignList = ExampleHttp.json(http().get("/v1/payments", keyB));
        assertThat(foreignList.get("data").findValuesAsText("id")).doesNotContain(id);

        // no key, an unknown key: 401 with the challenge
        for (HttpResponse<String> refused : List.of(
                http().get("/v1/payments", null),
                http().get("/v1/payments", "not_a_key_of_this_app_0123456789"),
                http().pay(null, newKey(), "{\"amount\": 500, \"currency\": \"eur\"}"))) {
            assertProblem(refused, 401, "/problems/unauthorized");
            assertThat(refused.headers().firstValue("WWW-Authenticate")).contains("Bearer");
        }

        // invalid fields: every one named
        HttpResponse<String> invalid = http().pay(keyA, newKey(), "{\"amount\": 0, \"currency\": \"EUR\", \"x\": 1}");
        assertProblem(invalid, 400, "/problems/validation-failed");
        assertThat(ExampleHttp.json(invalid).get("errors").findValuesAsText("field"))
                .containsExactlyInAnyOrder("amount", "currency", "x");
        assertProblem(http().pay(keyA, newKey(), "{\"amount\": "), 400, "/problems/malformed-json");
        assertProblem(http().get("/v1/payments?limit=101", keyA), 400, "/problems/validation-failed");
    }

    @Test
    @Order(2)
    void threeConcurrentRequestsWithOneKeyMakeOnePaymentAndTheReplayCarriesTheHeader() throws Exception {
        String key = newKey();
        String body = "{\"amount\": 700, \"currency\": \"eur\", \"description\": \"three at once\"}";
        List<CompletableFuture<HttpResponse<String>>> sent = new java.util.ArrayList<>();
        java.util.concurrent.CountDownLatch gate = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(3);
        try {
            for (int i = 0; i < 3; i++) {
                sent.add(CompletableFuture.supplyAsync(
                        () -> {
                            try {
                                gate.await();
                                return http().pay(keyA, key, body);
                            } catch (Exception e) {
                                throw new java.util.concurrent.CompletionException(e);
                            }
                        },
                        pool));
            }
            gate.countDown();
            List<HttpResponse<String>> answers = new java.util.ArrayList<>();
            for (CompletableFuture<HttpResponse<String>> f : sent) {
                answers.add(f.get(60, TimeUnit.SECONDS));
            }

            // exactly one ran; the others were told to wait (409) or got its answer replayed
            List<HttpResponse<String>> ran = answers.stream()
                    .filter(r -> r.statusCode() == 201
                            && r.headers().firstValue("Idempotent-Replayed").isEmpty())
                    .toList();
            assertThat(ran)
                    .as("answers that ran the payment: %s", bodies(answers))
                    .hasSize(1);
            String id = ExampleHttp.json(ran.get(0)).get("id").asText();
            for (HttpResponse<String> other : answers) {
                if (other == ran.get(0)) {
                    continue;
                }
                if (other.statusCode() == 409) {
                    assertProblem(other, 409, "/problems/idempotency-key-in-use");
                    assertThat(other.headers().firstValue("Retry-After")).isPresent();
                } else {
                    assertThat(other.statusCode()).as(other.body()).isEqualTo(201);
                    assertThat(other.headers().firstValue("Idempotent-Replayed"))
                            .contains("true");
                    assertThat(ExampleHttp.json(other).get("id").asText()).isEqualTo(id);
                }
            }
            assertThat(count(sharedStore(), "SELECT COUNT(*) FROM payments WHERE idempotency_key = ?", key))
                    .isEqualTo(1);

            HttpResponse<String> replay = http().pay(keyA, key, body);
            assertThat(replay.statusCode()).isEqualTo(201);
            assertThat(replay.headers().firstValue("Idempotent-Replayed")).contains("true");
            assertThat(replay.headers().firstValue("Location")).contains("/v1/payments/" + id);
            assertThat(ExampleHttp.json(replay)).isEqualTo(ExampleHttp.json(ran.get(0)));

            HttpResponse<String> otherBody = http().pay(keyA, key, body.replace("700", "701"));
            assertProblem(otherBody, 422, "/problems/idempotency-key-reused");
            assertThat(count(sharedStore(), "SELECT COUNT(*) FROM payments WHERE idempotency_key = ?", key))
                    .isEqualTo(1);
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    @Order(3)
    void aRequestWhileTheFirstWithItsKeyStillRunsIs409() throws Exception {
        String key = newKey();
        String body = "{\"amount\": 800, \"currency\": \"eur\"}";
        CompletableFuture<HttpResponse<String>> first = http().payAsync(keyA, key, body);
        awaitAtTheBank(sharedStore(), key); // held there for the bank's latency

        HttpResponse<String> second = http().pay(keyA, key, body);

        assertProblem(second, 409, "/problems/idempotency-key-in-use");
        assertThat(second.headers().firstValue("Retry-After")).isPresent();
        HttpResponse<String> answer = first.get(60, TimeUnit.SECONDS);
        assertThat(answer.statusCode()).as(answer.body()).isEqualTo(201);
        assertThat(answer.headers().firstValue("Idempotent-Replayed")).isEmpty();
        assertThat(count(sharedStore(), "SELECT COUNT(*) FROM payments WHERE idempotency_key = ?", key))
                .isEqualTo(1);
    }

    @Test
    @Order(4)
    void aControllerThatThrowsAfterItsInsertLeavesNoPaymentNoStoredAnswerAndNoOutboxRow() throws Exception {
        // an endpoint subscribed to payment.succeeded, so that each payment makes one outbox row
        HttpResponse<String> endpoint = http().post(
                        "/v1/webhook_endpoints",
                        keyA,
                        "{\"url\": \"http://127.0.0.1:" + ServerProcess.freePort()
                                + "/hooks\", \"event_types\": [\"payment.succeeded\"]}");
        assertThat(endpoint.statusCode()).as(endpoint.body()).isEqualTo(201);
        long outboxBefore =
                count(sharedStore(), "SELECT COUNT(*) FROM deliveries WHERE event_type = ?", "payment.succeeded");
        HttpResponse<String> paid = http().pay(keyA, newKey(), "{\"amount\": 300, \"currency\": \"eur\"}");
        assertThat(paid.statusCode()).as(paid.body()).isEqualTo(201);
        long outboxAfterOne =
                count(sharedStore(), "SELECT COUNT(*) FROM deliveries WHERE event_type = ?", "payment.succeeded");
        assertThat(outboxAfterOne).as("outbox rows of a committed payment").isEqualTo(outboxBefore + 1);

        String key = newKey();
        String body = "{\"amount\": 300, \"currency\": \"eur\", \"description\": \"" + FAIL_AFTER_INSERT + "\"}";
        HttpResponse<String> failed = http().pay(keyA, key, body);

        assertProblem(failed, 500, "/problems/internal-error");
        assertThat(count(sharedStore(), "SELECT COUNT(*) FROM payments WHERE idempotency_key = ?", key))
                .as("payments")
                .isZero();
        assertThat(count(sharedStore(), "SELECT COUNT(*) FROM idempotency_keys WHERE idem_key = ?", key))
                .as("stored answers and claims of the key")
                .isZero();
        assertThat(count(sharedStore(), "SELECT COUNT(*) FROM deliveries WHERE event_type = ?", "payment.succeeded"))
                .as("outbox rows")
                .isEqualTo(outboxAfterOne);
        // the key was let go: the same request runs again (and fails again), it is neither 409 nor a replay
        HttpResponse<String> again = http().pay(keyA, key, body);
        assertProblem(again, 500, "/problems/internal-error");
        assertThat(again.headers().firstValue("Idempotent-Replayed")).isEmpty();
    }

    private static List<String> bodies(List<HttpResponse<String>> answers) {
        return answers.stream().map(r -> r.statusCode() + " " + r.body()).toList();
    }

    @Test
    @Order(10)
    void sigtermLetsTheRequestInFlightFinishAndStops() throws Exception {
        String key = newKey();
        CompletableFuture<HttpResponse<String>> inFlight =
                http().payAsync(keyA, key, "{\"amount\": 900, \"currency\": \"eur\"}");
        awaitAtTheBank(sharedStore(), key);

        int exit = app().process.terminate(Duration.ofSeconds(60));

        assertThat(exit)
                .as("exit code after SIGTERM\n" + app().process.describe())
                .isEqualTo(ServerProcess.EXIT_SIGTERM);
        HttpResponse<String> answer = inFlight.get(10, TimeUnit.SECONDS);
        assertThat(answer.statusCode()).as(answer.body()).isEqualTo(201);
        assertThat(app().process.stdout()).contains("Graceful shutdown complete");
    }

    @Test
    @Order(5)
    void killDuringARequestThenTheClientsRetryMakesExactlyOnePayment() throws Exception {
        Path dir = java.util.Objects.requireNonNull(this.dir);
        ExampleApp.Store crashStore = store(dir.resolve("crash"));
        // a claim left by the killed process is taken over once its lease has run out
        Map<String, String> env = Map.of("RETRYSAFE_IDEMPOTENCY_LEASE", "2s");
        String key = newKey();
        String body = "{\"amount\": 4200, \"currency\": \"eur\", \"description\": \"crash\"}";
        ExampleApp first = null;
        ExampleApp second = null;
        try {
            first = ExampleApp.start("crash-1", crashStore, dir, List.of(keyA), Duration.ofSeconds(20), env);
            CompletableFuture<HttpResponse<String>> lost = new ExampleHttp(first.base).payAsync(keyA, key, body);
            awaitAtTheBank(crashStore, key);

            first.process.kill9();

            assertFailedToConnectOrReset(lost);
            second = ExampleApp.start("crash-2", crashStore, dir, List.of(keyA), Duration.ofMillis(50), env);
            ExampleHttp client = new ExampleHttp(second.base);
            // the client retries with the same key until it has its answer (409 while the lease runs)
            HttpResponse<String> answer = retryUntilAnswered(client, key, body);
            assertThat(answer.statusCode()).as(answer.body()).isEqualTo(201);
            String id = ExampleHttp.json(answer).get("id").asText();
            assertThat(count(crashStore, "SELECT COUNT(*) FROM payments WHERE idempotency_key = ?", key))
                    .as("payments made with the key")
                    .isEqualTo(1);
            assertThat(count(crashStore, "SELECT COUNT(*) FROM payments WHERE id = ?", id))
                    .isEqualTo(1);
            assertThat(count(
                            crashStore, "SELECT COUNT(*) FROM bank_charges WHERE charge_key = ?", chargeKey(keyA, key)))
                    .as("charges at the bank")
                    .isEqualTo(1);
        } catch (Throwable t) {
            ExampleApp.attachLogs(t, first, second);
            throw t;
        } finally {
            if (second != null) {
                second.close();
            }
            if (first != null) {
                first.close();
            }
        }
    }

    private HttpResponse<String> retryUntilAnswered(ExampleHttp client, String key, String body) {
        java.util.concurrent.atomic.AtomicReference<HttpResponse<String>> last =
                new java.util.concurrent.atomic.AtomicReference<>();
        await("a final answer to the retried payment")
                .atMost(Duration.ofSeconds(60))
                .pollInterval(Duration.ofMillis(200))
                .until(() -> {
                    HttpResponse<String> answer = client.pay(keyA, key, body);
                    last.set(answer);
                    return answer.statusCode() != 409 && answer.statusCode() < 500;
                });
        return last.get();
    }

    /** Waits until the request with {@code idempotencyKey} has reached the bank (its charge is recorded). */
    void awaitAtTheBank(ExampleApp.Store on, String idempotencyKey) {
        await("the request with key " + idempotencyKey + " at the bank")
                .atMost(Duration.ofSeconds(30))
                .pollInterval(Duration.ofMillis(20))
                .until(() -> count(
                                on,
                                "SELECT COUNT(*) FROM bank_charges WHERE charge_key = ?",
                                chargeKey(keyA, idempotencyKey))
                        == 1);
    }

    /** The single number {@code sql} returns on {@code on} with the one parameter {@code value}. */
    static long count(ExampleApp.Store on, String sql, String value) throws SQLException {
        try (Connection c = on.connect();
                PreparedStatement ps = c.prepareStatement(sql)) {
            ps.setString(1, value);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }

    /** The example's charge key: the account id is derived from the API key as the example does. */
    static String chargeKey(String apiKey, String idempotencyKey) throws Exception {
        java.security.MessageDigest sha = java.security.MessageDigest.getInstance("SHA-256");
        String account = "acct_"
                + java.util.HexFormat.of()
                        .formatHex(sha.digest(apiKey.getBytes(java.nio.charset.StandardCharsets.UTF_8)), 0, 10);
        byte[] digest = java.security.MessageDigest.getInstance("SHA-256")
                .digest((account.length() + ":" + account + ":" + idempotencyKey)
                        .getBytes(java.nio.charset.StandardCharsets.UTF_8));
        return "ch_" + java.util.HexFormat.of().formatHex(digest);
    }

    static String newKey() {
        return UUID.randomUUID().toString();
    }

    static void assertProblem(HttpResponse<String> response, int status, String type) {
        assertThat(response.statusCode()).as(response.body()).isEqualTo(status);
        assertThat(response.headers().firstValue("Content-Type"))
                .hasValueSatisfying(ct -> assertThat(ct).startsWith("application/problem+json"));
        JsonNode problem = ExampleHttp.json(response);
        assertThat(problem.get("type").asText()).isEqualTo(type);
        assertThat(problem.get("status").asInt()).isEqualTo(status);
        assertThat(problem.has("title")).isTrue();
        assertThat(problem.has("detail")).isTrue();
    }

    static void assertFailedToConnectOrReset(CompletableFuture<HttpResponse<String>> request) {
        assertThatThrownBy(() -> request.get(30, TimeUnit.SECONDS))
                .isInstanceOf(ExecutionException.class)
                .hasCauseInstanceOf(IOException.class);
    }
}
