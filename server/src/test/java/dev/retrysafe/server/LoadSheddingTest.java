package dev.retrysafe.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.retrysafe.server.config.DatabaseConfig;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * Issue 34's shedding acceptance: with the request pool saturated by slow payments (held at the
 * bank, each holding its connection), low-priority routes answer {@code 503 overloaded} at once
 * while critical payments and normal routes keep being served once a connection is free; the
 * budget report is never shed, and a replay of a stored answer is not either. (A keyed request
 * is judged only after its lookup, which needs a connection: servlet's LoadShedderTest shows that
 * with the load under its control.)
 */
class LoadSheddingTest {

    private static final String PAYMENT = "{\"amount\": 500, \"currency\": \"eur\"}";
    private static final String REPORT = "{\"kind\": \"payments_csv\"}";

    @Test
    void withThePoolSaturatedLowRoutesAreShedAndCriticalOnesServed() throws Exception {
        AtomicInteger atBank = new AtomicInteger();
        AtomicReference<CountDownLatch> release = new AtomicReference<>(new CountDownLatch(1));
        try (TestServer server = TestServer.h2()
                .bankProcessing((chargeKey, latency) -> {
                    atBank.incrementAndGet();
                    if (!release.get().await(30, TimeUnit.SECONDS)) {
                        throw new IllegalStateException("test never released the bank");
                    }
                })
                .configure(c -> c.withDatabase(new DatabaseConfig(null, "", "", 2))
                        .withLimits(
                                c.limits().withShedding(c.limits().shedding().withBounds(2, 1000))))
                .start()) {
            Api api = Api.of(server);
            release.get().countDown(); // not held yet
            Api.Answer before = api.post("/v1/reports", REPORT, "report-before");
            assertThat(before.status()).isEqualTo(202);
            CountDownLatch hold = new CountDownLatch(1);
            List<CompletableFuture<Api.Answer>> payments = new ArrayList<>();
            CompletableFuture<Api.Answer> events;
            CompletableFuture<Api.Answer> replay;
            release.set(hold);
            try {
                // the first two hold the pool's two connections at the bank, the next two wait
                for (int i = 0; i < 2; i++) {
                    String key = "shed-" + i;
                    payments.add(CompletableFuture.supplyAsync(() -> api.post("/v1/payments", PAYMENT, key)));
                }
                await().atMost(Duration.ofSeconds(10)).until(() -> atBank.get() == 2);
                for (int i = 2; i < 4; i++) {
                    String key = "shed-" + i;
                    payments.add(CompletableFuture.supplyAsync(() -> api.post("/v1/payments", PAYMENT, key)));
                }
                await().atMost(Duration.ofSeconds(4)).until(() -> server.waitingForConnection() >= 2);

                Api.Answer report = api.get("/v1/jobs");
                assertThat(report.status()).as("low: shed at once").isEqualTo(503);
                assertThat(report.header("Retry-After")).isEqualTo("2");
                assertThat(report.body().get("type").asText()).isEqualTo("/problems/overloaded");
                assertThat(report.body().get("priority").asText()).isEqualTo("low");
                assertThat(report.body().get("retryable").asBoolean()).isTrue();
                assertThat(api.get("/v1/rate_limit").status()).as("never shed").isEqualTo(200);
                events = CompletableFuture.supplyAsync(() -> api.get("/v1/events"));
                replay = CompletableFuture.supplyAsync(() -> api.post("/v1/reports", REPORT, "report-before"));
            } finally {
                hold.countDown();
            }
            for (CompletableFuture<Api.Answer> payment : payments) {
                assertThat(payment.get(30, TimeUnit.SECONDS).status())
                        .as("critical: served")
                        .isEqualTo(201);
            }
            assertThat(events.get(30, TimeUnit.SECONDS).status())
                    .as("normal, below its bound: served")
                    .isEqualTo(200);
            Api.Answer replayed = replay.get(30, TimeUnit.SECONDS);
            assertThat(replayed.status()).as("a replay is never shed").isEqualTo(202);
            assertThat(replayed.header("Idempotent-Replayed")).isEqualTo("true");
            Api.Answer metrics = api.get("/metrics");
            assertThat(metrics.raw().body()).contains("retrysafe_http_requests_shed_total{priority=\"low\"} 1");
        }
    }
}
