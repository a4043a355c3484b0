package dev.retrysafe.server.ratelimits;

import static org.assertj.core.api.Assertions.assertThat;

import dev.retrysafe.ratelimit.ConcurrencyPolicy;
import dev.retrysafe.ratelimit.Policy;
import dev.retrysafe.ratelimit.Scope;
import dev.retrysafe.server.Api;
import dev.retrysafe.server.TestServer;
import dev.retrysafe.server.config.RateLimitConfig;
import dev.retrysafe.server.config.ServerConfig;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A {@code kind: concurrency} policy on the server, in memory: payments held in the bank keep
 * their slots, the next request answers {@code 429 concurrency-limited} while the budget report
 * stays free, and finished payments give their slots back.
 */
class ConcurrencyLimitsApiTest {

    private static final String PAYMENT = "{\"amount\":500,\"currency\":\"eur\"}";
    private static final Duration DEADLINE = Duration.ofSeconds(20);

    @Test
    void paymentsInFlightBeyondTheLimitAreRefusedUntilOneEnds() throws Exception {
        Semaphore inBank = new Semaphore(0);
        Semaphore leave = new Semaphore(0);
        ConcurrencyPolicy twoAtOnce = ConcurrencyPolicy.builder("in-flight")
                .scope(Scope.apiKey())
                .limit(2)
                .build();
        Policy perKey = Policy.builder("key")
                .scope(Scope.apiKey())
                .limit(100, Duration.ofHours(1))
                .build();
        RateLimitConfig limits = ServerConfig.defaults()
                .rateLimits()
                .withPolicies(List.of(perKey))
                .withStore(RateLimitConfig.Store.MEMORY)
                .withConcurrencyPolicies(List.of(twoAtOnce));
        ExecutorService clients = Executors.newVirtualThreadPerTaskExecutor();
        try (TestServer server = TestServer.h2()
                .rateLimits(limits)
                .bankProcessing((chargeKey, latency) -> {
                    inBank.release();
                    if (!leave.tryAcquire(DEADLINE.toSeconds(), TimeUnit.SECONDS)) {
                        throw new IllegalStateException("never let out of the bank");
                    }
                })
                .start()) {
            Api alice = Api.of(server);
            List<Future<Api.Answer>> held = new ArrayList<>();
            for (int i = 0; i < 2; i++) {
                held.add(clients.submit(() -> alice.post("/v1/payments", PAYMENT)));
            }
            assertThat(inBank.tryAcquire(2, DEADLINE.toSeconds(), TimeUnit.SECONDS))
                    .isTrue();

            Api.Answer refused = alice.post("/v1/payments", PAYMENT);
            assertThat(refused.status()).isEqualTo(429);
            assertThat(refused.header("Retry-After")).isEqualTo("1");
            assertThat(refused.body().path("type").asText()).isEqualTo("/problems/concurrency-limited");
            assertThat(refused.body().path("policy").asText()).isEqualTo("in-flight");
            assertThat(refused.body().path("limit").asInt()).isEqualTo(2);
            assertThat(refused.header("X-RateLimit-Remaining"))
                    .as("the refusal spent nothing: two payments charged")
                    .isEqualTo("98");
            assertThat(alice.get("/v1/rate_limit").status())
                    .as("the budget report takes no slot")
                    .isEqualTo(200);
            assertThat(new Api(server.baseUri(), server.otherApiKey())
                            .get("/v1/payments")
                            .status())
                    .as("another key")
                    .isEqualTo(200);

            leave.release(2);
            for (Future<Api.Answer> payment : held) {
                assertThat(payment.get(DEADLINE.toSeconds(), TimeUnit.SECONDS).status())
                        .isEqualTo(201);
            }
            leave.release(1);
            assertThat(alice.post("/v1/payments", PAYMENT).status()).isEqualTo(201);
            assertThat(new Api(server.baseUri(), null).get("/metrics").raw().body())
                    .contains("retrysafe_ratelimit_decisions_total{outcome=\"rejected\",policy=\"in-flight\"} 1")
                    .contains("retrysafe_ratelimit_decisions_total{outcome=\"allowed\",policy=\"in-flight\"} 4");
        } finally {
            leave.release(100);
            clients.shutdownNow();
        }
    }
}
