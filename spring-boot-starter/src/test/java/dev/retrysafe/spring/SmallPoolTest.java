package dev.retrysafe.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.retrysafe.spring.app.TestApp;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;

/**
 * Many more keyed requests in flight than the pool has connections: each holds one connection,
 * never two at once, so none waits for a connection that no other gives back. (With claims as
 * committed rows, each would hold its transaction's connection and wait for a second one for its
 * claim: with a pool of two, requests failed with 503 after the pool's timeout.)
 */
@SpringBootTest(
        classes = TestApp.class,
        webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {
            "spring.datasource.url=jdbc:h2:mem:small_pool;MODE=PostgreSQL;DB_CLOSE_DELAY=-1",
            "spring.datasource.hikari.maximum-pool-size=2",
            "spring.datasource.hikari.connection-timeout=2000",
            "retrysafe.rate-limits.policies.payments.scope=account",
            "retrysafe.rate-limits.policies.payments.quota=100000",
            "retrysafe.rate-limits.policies.payments.window=1h",
            "retrysafe.rate-limits.policies.reads.quota=100000",
            "retrysafe.rate-limits.policies.reads.window=1h"
        })
class SmallPoolTest {

    private static final int IN_FLIGHT = 32;

    @LocalServerPort
    int port;

    @Test
    void thirtyTwoKeyedRequestsOnAPoolOfTwoAllSucceed() throws Exception {
        ExecutorService clients = Executors.newVirtualThreadPerTaskExecutor();
        try (HttpClient http = HttpClient.newBuilder().executor(clients).build()) {
            CountDownLatch start = new CountDownLatch(1);
            List<CompletableFuture<Integer>> sent = new ArrayList<>();
            for (int i = 0; i < IN_FLIGHT; i++) {
                HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/v1/payments"))
                        .timeout(Duration.ofSeconds(60))
                        .header("Content-Type", "application/json")
                        .header("X-Account", "acct_small_pool")
                        .header("Idempotency-Key", UUID.randomUUID().toString())
                        .POST(HttpRequest.BodyPublishers.ofString("{\"amount\": 100}"))
                        .build();
                sent.add(CompletableFuture.supplyAsync(
                        () -> {
                            try {
                                start.await();
                                return http.send(request, HttpResponse.BodyHandlers.discarding())
                                        .statusCode();
                            } catch (Exception e) {
                                throw new IllegalStateException(e);
                            }
                        },
                        clients));
            }
            start.countDown();
            Map<Integer, Long> statuses = sent.stream()
                    .map(CompletableFuture::join)
                    .collect(Collectors.groupingBy(Function.identity(), Collectors.counting()));
            assertThat(statuses).as("statuses of %d keyed requests", IN_FLIGHT).containsOnlyKeys(201);
        } finally {
            clients.shutdownNow();
        }
    }
}
