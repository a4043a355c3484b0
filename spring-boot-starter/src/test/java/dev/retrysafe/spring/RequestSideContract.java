package dev.retrysafe.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.retrysafe.spring.app.Gates;
import dev.retrysafe.spring.app.TestApp;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * The request side of the starter against a real server on a random port: idempotency in the
 * application's own transaction, rate limits, health and meters. Subclasses choose the database.
 */
@SpringBootTest(
        classes = TestApp.class,
        webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {
            "retrysafe.rate-limits.policies.payments.scope=account",
            "retrysafe.rate-limits.policies.payments.quota=5",
            "retrysafe.rate-limits.policies.payments.window=1h",
            "retrysafe.rate-limits.policies.reads.scope=account",
            "retrysafe.rate-limits.policies.reads.quota=2",
            "retrysafe.rate-limits.policies.reads.window=1h",
            "management.endpoints.web.exposure.include=health,prometheus",
            "management.endpoint.health.show-details=always"
        })
abstract class RequestSideContract {

    private static final ExecutorService CLIENTS = Executors.newVirtualThreadPerTaskExecutor();
    private static final HttpClient HTTP = HttpClient.newBuilder()
            .connectTimeout(Duration.ofSeconds(5))
            .executor(CLIENTS)
            .build();

    @LocalServerPort
    int port;

    @Autowired
    JdbcTemplate jdbc;

    @Autowired
    Gates gates;

    @AfterAll
    static void stopClients() {
        CLIENTS.shutdownNow();
    }

    @Test
    void concurrentRetriesHaveOneEffectAndReplaysAnswerTheSame() throws Exception {
        String account = account();
        String key = UUID.randomUUID().toString();
        int commitsBefore = gates.afterCommits.get();
        CountDownLatch start = new CountDownLatch(1);
        List<CompletableFuture<HttpResponse<String>>> sent = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            sent.add(CompletableFuture.supplyAsync(
                    () -> {
                        try {
                            start.await();
                            return pay(account, key, "{\"amount\": 100}");
                        } catch (Exception e) {
                            throw new IllegalStateException(e);
                        }
                    },
                    CLIENTS));
        }
        start.countDown();
        List<HttpResponse<String>> answers = new ArrayList<>();
        for (CompletableFuture<HttpResponse<String>> future : sent) {
            answers.add(future.get());
        }
        assertThat(answers).allSatisfy(answer -> assertThat(answer.statusCode()).isIn(201, 409));
        assertThat(answers.stream()
                        .filter(a -> a.statusCode() == 201
                                && a.headers().firstValue("Idempotent-Replayed").isEmpty())
                        .count())
                .isEqualTo(1);
        assertThat(payments(account)).isEqualTo(1);
        assertThat(gates.afterCommits.get()).isEqualTo(commitsBefore + 1);
        String first = answers.stream()
                .filter(a -> a.statusCode() == 201)
                .findFirst()
                .orElseThrow()
                .body();

        HttpResponse<String> replay = pay(account, key, "{\"amount\": 100}");
        assertThat(replay.statusCode()).isEqualTo(201);
        assertThat(replay.headers().firstValue("Idempotent-Replayed")).contains("true");
        assertThat(replay.headers().firstValue("Location")).isPresent();
        assertThat(replay.body()).isEqualTo(first);

        HttpResponse<String> changed = pay(account, key, "{\"amount\": 999}");
        assertThat(changed.statusCode()).isEqualTo(422);
        assertThat(changed.headers().firstValue("Content-Type")).contains("application/problem+json");
        assertThat(payments(account)).isEqualTo(1);
        assertThat(gates.afterCommits.get()).isEqualTo(commitsBefore + 1);
    }

    @Test
    void aRequestWhileTheFirstStillRunsAnswers409() throws Exception {
        String account = account();
        String key = UUID.randomUUID().toString();
        gates.arm();
        CompletableFuture<HttpResponse<String>> first = CompletableFuture.supplyAsync(
                () -> {
                    try {
                        return pay(account, key, "{\"amount\": 5, \"then\": \"hold\"}");
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                },
                CLIENTS);
        gates.awaitEntered();
        HttpResponse<String> second = pay(account, key, "{\"amount\": 5, \"then\": \"hold\"}");
        gates.release();
        assertThat(second.statusCode()).isEqualTo(409);
        assertThat(second.headers().firstValue("Retry-After")).contains("1");
        assertThat(first.get().statusCode()).isEqualTo(201);
        assertThat(payments(account)).isEqualTo(1);
    }

    @Test
    void aControllerThatThrowsAfterItsInsertLeavesNoRowAndNoStoredAnswer() throws Exception {
        String account = account();
        String key = UUID.randomUUID().toString();
        int commitsBefore = gates.afterCommits.get();
        HttpResponse<String> failed = pay(account, key, "{\"amount\": 7, \"then\": \"throw\"}");
        assertThat(failed.statusCode()).isEqualTo(500);
        assertThat(payments(account)).isZero();
        assertThat(storedAnswers(account)).isZero();
        assertThat(gates.afterCommits.get()).isEqualTo(commitsBefore);

        HttpResponse<String> retry = pay(account, key, "{\"amount\": 7, \"then\": \"throw\"}");
        assertThat(retry.statusCode())
                .as("the key was let go: the retry runs again")
                .isEqualTo(500);
        assertThat(payments(account)).isZero();
    }

    @Test
    void aControllerAnswering5xxRollsBackItsOwnTransactionalWork() throws Exception {
        String account = account();
        String key = UUID.randomUUID().toString();
        HttpResponse<String> failed = pay(account, key, "{\"amount\": 8, \"then\": \"fail\"}");
        assertThat(failed.statusCode()).isEqualTo(503);
        assertThat(payments(account)).isZero();
        assertThat(storedAnswers(account)).isZero();

        HttpResponse<String> retry = pay(account, key, "{\"amount\": 8, \"then\": \"fail\"}");
        assertThat(retry.statusCode()).isEqualTo(503);
        assertThat(retry.headers().firstValue("Idempotent-Replayed")).isEmpty();
    }

    @Test
    void aTransactionalMethodThatThrewIntoA4xxStoresNothing() throws Exception {
        String account = account();
        String key = UUID.randomUUID().toString();
        HttpResponse<String> rejected = pay(account, key, "{\"amount\": 9, \"then\": \"reject\"}");
        assertThat(rejected.statusCode()).isEqualTo(400);
        assertThat(rejected.body()).contains("declined");
        assertThat(payments(account)).isZero();
        assertThat(storedAnswers(account)).isZero();

        HttpResponse<String> retry = pay(account, key, "{\"amount\": 9, \"then\": \"reject\"}");
        assertThat(retry.statusCode()).isEqualTo(400);
        assertThat(retry.headers().firstValue("Idempotent-Replayed"))
                .as("ran again")
                .isEmpty();
    }

    @Test
    void keysFollowTheAnnotationAndTheMappingPattern() throws Exception {
        String account = account();
        HttpResponse<String> missing = send(post("/v1/payments", account, null, "{\"amount\": 1}"));
        assertThat(missing.statusCode()).isEqualTo(400);
        assertThat(missing.body()).contains("Idempotency-Key");

        HttpResponse<String> optional = send(post("/v1/payments/A/capture", account, null, "{}"));
        assertThat(optional.statusCode()).isEqualTo(200);

        String key = UUID.randomUUID().toString();
        assertThat(send(post("/v1/payments/A/capture", account, key, "{}")).statusCode())
                .isEqualTo(200);
        HttpResponse<String> otherPayment = send(post("/v1/payments/B/capture", account, key, "{}"));
        assertThat(otherPayment.statusCode())
                .as("same pattern, same key, another path: another request")
                .isEqualTo(422);
        assertThat(storedRoute(account, key)).isEqualTo("POST /v1/payments/{id}/capture");

        String plainKey = UUID.randomUUID().toString();
        send(post("/v1/plain", account, plainKey, "{}"));
        HttpResponse<String> plain = send(post("/v1/plain", account, plainKey, "{}"));
        assertThat(plain.headers().firstValue("Idempotent-Replayed"))
                .as("no @Idempotent: untouched")
                .isEmpty();
    }

    @Test
    void limitedAnswersCarryTheHeadersAndA429IsAProblemWithRetryAfter() throws Exception {
        String account = account();
        HttpResponse<String> allowed = send(get("/v1/payments/p1", account));
        assertThat(allowed.statusCode()).isEqualTo(200);
        assertThat(allowed.headers().firstValue("RateLimit-Policy"))
                .hasValueSatisfying(v -> assertThat(v).contains("\"reads\";q=2;w=3600"));
        assertThat(allowed.headers().firstValue("RateLimit")).isPresent();
        assertThat(send(get("/v1/payments/p1", account)).statusCode()).isEqualTo(200);

        HttpResponse<String> refused = send(get("/v1/payments/p1", account));
        assertThat(refused.statusCode()).isEqualTo(429);
        assertThat(refused.headers().firstValue("Retry-After"))
                .hasValueSatisfying(v -> assertThat(Long.parseLong(v)).isPositive());
        assertThat(refused.headers().firstValue("Content-Type")).contains("application/problem+json");
        assertThat(refused.body())
                .contains("\"status\":429")
                .contains("\"type\":\"/problems/rate-limited\"")
                .contains("\"policy\":\"reads\"")
                .contains("\"title\":")
                .contains("\"detail\":");

        HttpResponse<String> unlimited = send(post("/v1/plain", account, null, "{}"));
        assertThat(unlimited.headers().firstValue("RateLimit-Policy")).isEmpty();
    }

    @Test
    void replaysAnd409sGiveTheirChargeBack() throws Exception {
        String account = account();
        String key = UUID.randomUUID().toString();
        HttpResponse<String> first = pay(account, key, "{\"amount\": 3}");
        assertThat(first.statusCode()).isEqualTo(201);
        assertThat(first.headers().firstValue("RateLimit"))
                .hasValueSatisfying(v -> assertThat(v).contains("r=4"));
        for (int i = 0; i < 6; i++) {
            HttpResponse<String> replay = pay(account, key, "{\"amount\": 3}");
            assertThat(replay.statusCode()).as("replay %d", i).isEqualTo(201);
            assertThat(replay.headers().firstValue("RateLimit"))
                    .hasValueSatisfying(v -> assertThat(v).contains("r=4"));
        }

        gates.arm();
        String held = UUID.randomUUID().toString();
        CompletableFuture<HttpResponse<String>> running = CompletableFuture.supplyAsync(
                () -> {
                    try {
                        return pay(account, held, "{\"amount\": 4, \"then\": \"hold\"}");
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                },
                CLIENTS);
        gates.awaitEntered();
        for (int i = 0; i < 6; i++) {
            assertThat(pay(account, held, "{\"amount\": 4, \"then\": \"hold\"}").statusCode())
                    .isEqualTo(409);
        }
        gates.release();
        assertThat(running.get().statusCode()).isEqualTo(201);
        HttpResponse<String> next = pay(account, UUID.randomUUID().toString(), "{\"amount\": 3}");
        assertThat(next.statusCode()).isEqualTo(201);
        assertThat(next.headers().firstValue("RateLimit"))
                .hasValueSatisfying(v -> assertThat(v).contains("r=2"));
    }

    @Test
    void healthListsRetrysafeAndPrometheusShowsTheMeters() throws Exception {
        String account = account();
        String key = UUID.randomUUID().toString();
        pay(account, key, "{\"amount\": 2}");
        pay(account, key, "{\"amount\": 2}");
        pay(account, key, "{\"amount\": 3}");

        HttpResponse<String> health =
                send(HttpRequest.newBuilder(uri("/actuator/health")).build());
        assertThat(health.statusCode()).isEqualTo(200);
        assertThat(health.body()).contains("\"retrysafe\":{").contains("idempotency_keys");

        HttpResponse<String> metrics =
                send(HttpRequest.newBuilder(uri("/actuator/prometheus")).build());
        assertThat(metrics.body())
                .contains("retrysafe_idempotency_claims_total{outcome=\"acquired\"}")
                .contains("retrysafe_idempotency_claims_total{outcome=\"replayed\"}")
                .contains("retrysafe_idempotency_claims_total{outcome=\"mismatch\"}")
                .contains("retrysafe_ratelimit_decisions_total{outcome=\"allowed\",policy=\"payments\"}")
                .contains("retrysafe_ratelimit_refunds_total{policy=\"payments\"}");
    }

    private static String account() {
        return "acct_" + UUID.randomUUID();
    }

    private int payments(String account) {
        return jdbc.queryForObject("SELECT COUNT(*) FROM payments WHERE account = ?", Integer.class, account);
    }

    private int storedAnswers(String account) {
        return jdbc.queryForObject(
                "SELECT COUNT(*) FROM idempotency_keys WHERE account = ? AND completed_at IS NOT NULL",
                Integer.class,
                account);
    }

    private String storedRoute(String account, String key) {
        return jdbc.queryForObject(
                "SELECT route FROM idempotency_keys WHERE account = ? AND idem_key = ?", String.class, account, key);
    }

    private HttpResponse<String> pay(String account, String key, String json) throws IOException, InterruptedException {
        return send(post("/v1/payments", account, key, json));
    }

    private HttpRequest post(String path, String account, String key, String json) {
        HttpRequest.Builder builder = HttpRequest.newBuilder(uri(path))
                .timeout(Duration.ofSeconds(30))
                .header("Content-Type", "application/json")
                .header("X-Account", account)
                .POST(HttpRequest.BodyPublishers.ofString(json));
        if (key != null) {
            builder.header("Idempotency-Key", key);
        }
        return builder.build();
    }

    private HttpRequest get(String path, String account) {
        return HttpRequest.newBuilder(uri(path))
                .timeout(Duration.ofSeconds(30))
                .header("X-Account", account)
                .build();
    }

    private URI uri(String path) {
        return URI.create("http://127.0.0.1:" + port + path);
    }

    private static HttpResponse<String> send(HttpRequest request) throws IOException, InterruptedException {
        return HTTP.send(request, HttpResponse.BodyHandlers.ofString());
    }
}
