package dev.retrysafe.server.ratelimits;

import static org.assertj.core.api.Assertions.assertThat;

import dev.retrysafe.ratelimit.Policy;
import dev.retrysafe.ratelimit.Scope;
import dev.retrysafe.server.Api;
import dev.retrysafe.server.TestServer;
import dev.retrysafe.server.config.RateLimitConfig;
import dev.retrysafe.server.config.RedisConfig;
import dev.retrysafe.server.config.ServerConfig;
import dev.retrysafe.server.ratelimits.RateLimitHeadersCheck.Budget;
import dev.retrysafe.testkit.FakeClock;
import dev.retrysafe.testkit.RedisClusterProcess;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** Rate limits over real HTTP against the server, with its clock held still. */
class RateLimitsApiTest {

    private static final String PAYMENT = "{\"amount\":500,\"currency\":\"eur\",\"description\":\"limits\"}";
    private final FakeClock clock = new FakeClock(Instant.parse("2026-12-02T10:00:03Z"));

    private static RateLimitConfig limits(Policy... policies) {
        return ServerConfig.defaults()
                .rateLimits()
                .withPolicies(List.of(policies))
                .withStore(RateLimitConfig.Store.MEMORY);
    }

    private TestServer.Builder server(Policy... policies) {
        return TestServer.h2().clock(clock).bankLatency(Duration.ZERO).rateLimits(limits(policies));
    }

    @Test
    void aRedisClusterUrlPutsTheCountersInTheCluster() {
        Policy perKey = Policy.builder("default")
                .scope(Scope.apiKey())
                .limit(3, Duration.ofHours(1))
                .build();
        try (RedisClusterProcess cluster = RedisClusterProcess.start();
                TestServer server = server(perKey)
                        // where the counters go is under test, not how fast: the default 100 ms
                        // failed open while a loaded machine held the cluster's first connections
                        .rateLimits(limits(perKey)
                                .withStore(RateLimitConfig.Store.REDIS)
                                .withRedisTimeout(Duration.ofSeconds(5)))
                        .configure(c ->
                                c.withRedis(new RedisConfig(URI.create("redis-cluster://" + cluster.hostsAndPorts()))))
                        .start()) {
            Api alice = Api.of(server);
            for (long remaining = 2; remaining >= 0; remaining--) {
                Api.Answer answer = alice.get("/v1/payments");
                assertThat(answer.status()).isEqualTo(200);
                // counted (a store that cannot count sends no RateLimit header), by the cluster's clock
                assertThat(answer.header("RateLimit")).as("RateLimit header").contains("r=" + remaining);
            }
            // a store that fails open would let the fourth through
            assertThat(alice.get("/v1/payments").status()).isEqualTo(429);
        }
    }

    /** The seeds' run: alice sends seven requests, then bob one; 5 per 10 s per key. */
    @Test
    void aliceCountsDownToARefusalWhileBobKeepsHisOwnBudget() {
        Policy perKey = Policy.builder("default")
                .scope(Scope.apiKey())
                .limit(5, Duration.ofSeconds(10))
                .build();
        try (TestServer server = server(perKey).start()) {
            Api alice = Api.of(server);
            Api bob = new Api(server.baseUri(), server.otherApiKey());
            long[] expected = {4, 3, 2, 1, 0};
            for (long remaining : expected) {
                Api.Answer answer = alice.get("/v1/payments");
                assertThat(answer.status()).isEqualTo(200);
                assertThat(answer.header("Retry-After")).isNull();
                Budget budget = RateLimitHeadersCheck.only(answer, clock.instant());
                assertThat(budget).isEqualTo(new Budget("default", 5, 10, remaining, budget.resetSeconds()));
                assertThat(budget.resetSeconds()).isBetween(1L, 10L);
            }
            for (int refused = 0; refused < 2; refused++) {
                Api.Answer sixth = alice.get("/v1/payments");
                assertThat(sixth.status()).isEqualTo(429);
                assertThat(RateLimitHeadersCheck.only(sixth, clock.instant()).remaining())
                        .isZero();
                long retryAfter = Long.parseLong(sixth.header("Retry-After"));
                assertThat(retryAfter).as("5 per 10 s: one unit back every 2 s").isEqualTo(2);
                assertThat(sixth.contentType()).startsWith("application/problem+json");
                assertThat(sixth.body().path("type").asText()).isEqualTo("/problems/rate-limited");
                assertThat(sixth.body().path("policy").asText()).isEqualTo("default");
                assertThat(sixth.body().path("retry_after").asLong()).isEqualTo(retryAfter);
                assertThat(sixth.raw().body()).doesNotContain(server.apiKey()).doesNotContain(server.otherApiKey());
            }

            Api.Answer bobs = bob.get("/v1/payments");
            assertThat(bobs.status()).isEqualTo(200);
            assertThat(RateLimitHeadersCheck.only(bobs, clock.instant()).remaining())
                    .isEqualTo(4);

            clock.advance(Duration.ofSeconds(2));
            assertThat(alice.get("/v1/payments").status())
                    .as("after Retry-After")
                    .isEqualTo(200);
        }
    }

    /**
     * Every kind of error answer a client can provoke carries its budget, parsed like any other
     * answer's, and each one spends a unit: the headers are written before the server routes,
     * validates or reads the body, so no error path can drop them.
     */
    @Test
    void errorAnswersCarryTheBudgetToo() {
        Policy perKey = Policy.builder("key")
                .scope(Scope.apiKey())
                .limit(10, Duration.ofSeconds(10))
                .build();
        try (TestServer server =
                server(perKey).configure(c -> c.withMaxBodyBytes(1024)).start()) {
            Api api = Api.of(server);
            byte[] tooLarge = ("{\"description\": \"" + "x".repeat(2048) + "\"}").getBytes(StandardCharsets.UTF_8);
            Map<Integer, Api.Answer> answers = new java.util.LinkedHashMap<>();
            answers.put(404, api.get("/v1/payments/pay_nobodys"));
            answers.put(405, api.send("DELETE", "/v1/payments", null, new byte[0]));
            answers.put(415, api.send("POST", "/v1/payments", "text/plain", "{}".getBytes(StandardCharsets.UTF_8)));
            answers.put(413, api.send("POST", "/v1/payments", "application/json", tooLarge));
            answers.put(
                    400,
                    api.send(
                            "POST",
                            "/v1/payments",
                            "application/json",
                            "{\"amount\":".getBytes(StandardCharsets.UTF_8)));

            long remaining = 9;
            for (Map.Entry<Integer, Api.Answer> e : answers.entrySet()) {
                Api.Answer answer = e.getValue();
                assertThat(answer.status()).as(answer.raw().body()).isEqualTo(e.getKey());
                assertThat(answer.contentType()).startsWith("application/problem+json");
                Budget budget = RateLimitHeadersCheck.only(answer, clock.instant());
                assertThat(budget.policy()).isEqualTo("key");
                assertThat(budget.remaining()).as("after the %d", e.getKey()).isEqualTo(remaining--);
            }
        }
    }

    @Test
    void replayedPaymentsSpendNothingAndARefusedKeyRunsLater() {
        Policy perKey = Policy.builder("key")
                .scope(Scope.apiKey())
                .limit(2, Duration.ofSeconds(10))
                .build();
        try (TestServer server = server(perKey).start()) {
            Api api = Api.of(server);
            String key = UUID.randomUUID().toString();
            Api.Answer first = api.post("/v1/payments", PAYMENT, key);
            assertThat(first.status()).isEqualTo(201);
            for (int i = 0; i < 4; i++) {
                Api.Answer replay = api.post("/v1/payments", PAYMENT, key);
                assertThat(replay.status()).isEqualTo(201);
                assertThat(replay.header("Idempotent-Replayed")).isEqualTo("true");
                assertThat(RateLimitHeadersCheck.only(replay, clock.instant()).remaining())
                        .isEqualTo(1);
            }
            assertThat(api.post("/v1/payments", PAYMENT, UUID.randomUUID().toString())
                            .status())
                    .isEqualTo(201);

            String late = UUID.randomUUID().toString();
            Api.Answer refused = api.post("/v1/payments", PAYMENT, late);
            assertThat(refused.status()).isEqualTo(429);
            clock.advance(Duration.ofSeconds(Long.parseLong(refused.header("Retry-After"))));
            Api.Answer retried = api.post("/v1/payments", PAYMENT, late);

            assertThat(retried.status())
                    .as("the 429 was not stored under the key")
                    .isEqualTo(201);
            assertThat(retried.header("Idempotent-Replayed")).isNull();
            clock.advance(Duration.ofSeconds(10));
            Api.Answer list = api.get("/v1/payments?limit=100");
            assertThat(list.status()).isEqualTo(200);
            assertThat(list.body().path("data"))
                    .as("one payment per key, none for a refusal")
                    .hasSize(3);
        }
    }

    @Test
    void rateLimitEndpointReportsEveryBudgetAndIsFree() {
        Policy perKey = Policy.builder("key")
                .scope(Scope.apiKey())
                .limit(5, Duration.ofSeconds(10))
                .build();
        Policy perAccount = Policy.builder("account")
                .scope(Scope.account())
                .limit(100, Duration.ofMinutes(1))
                .build();
        try (TestServer server = server(perKey, perAccount).start()) {
            Api api = Api.of(server);
            api.get("/v1/payments");
            for (int i = 0; i < 10; i++) {
                Api.Answer report = api.get("/v1/rate_limit");
                assertThat(report.status()).isEqualTo(200);
                Map<String, Budget> headers = RateLimitHeadersCheck.budgets(report, clock.instant());
                assertThat(headers.get("key").remaining()).isEqualTo(4);
                assertThat(report.body().path("enabled").asBoolean()).isTrue();
                assertThat(report.body().path("policies")).hasSize(2);
                assertThat(report.body().path("policies").get(0).path("name").asText())
                        .isEqualTo("key");
                assertThat(report.body()
                                .path("policies")
                                .get(0)
                                .path("remaining")
                                .asLong())
                        .isEqualTo(4);
                assertThat(report.body().path("policies").get(0).path("limit").asLong())
                        .isEqualTo(5);
                assertThat(report.body()
                                .path("policies")
                                .get(0)
                                .path("window_seconds")
                                .asLong())
                        .isEqualTo(10);
                assertThat(report.body()
                                .path("policies")
                                .get(1)
                                .path("remaining")
                                .asLong())
                        .isEqualTo(99);
            }
            assertThat(api.get("/v1/payments").status()).isEqualTo(200);
        }
    }

    @Test
    void guessingKeysIsLimitedByAddressAndTheRefusalsCarryHeadersToo() {
        Policy anonymous = ServerConfig.defaults().rateLimits().policies().stream()
                .filter(p -> p.name().equals("anonymous"))
                .findFirst()
                .orElseThrow();
        Policy small = new Policy(
                "anonymous",
                anonymous.scope(),
                anonymous.algorithm(),
                3,
                Duration.ofMinutes(1),
                3,
                1,
                anonymous.failMode(),
                null);
        Policy perKey = Policy.builder("key")
                .scope(Scope.apiKey())
                .limit(5, Duration.ofSeconds(10))
                .build();
        try (TestServer server = server(perKey, small).start()) {
            Api guesser = new Api(server.baseUri(), "not-a-key-" + UUID.randomUUID());
            for (int i = 0; i < 3; i++) {
                Api.Answer answer = guesser.get("/v1/payments");
                assertThat(answer.status()).isEqualTo(401);
                assertThat(RateLimitHeadersCheck.only(answer, clock.instant()).policy())
                        .isEqualTo("anonymous");
            }
            Api.Answer fourth = guesser.get("/v1/payments");
            assertThat(fourth.status()).isEqualTo(429);
            assertThat(fourth.body().path("policy").asText()).isEqualTo("anonymous");

            Api.Answer owner = Api.of(server).get("/v1/payments");
            assertThat(owner.status())
                    .as("a valid key is not counted as anonymous")
                    .isEqualTo(200);
            assertThat(RateLimitHeadersCheck.only(owner, clock.instant()).policy())
                    .isEqualTo("key");
            assertThat(new Api(server.baseUri(), null).get("/health").header("RateLimit"))
                    .as("probes are never limited")
                    .isNull();
        }
    }

    @Test
    void guessingKeysWithAnIdempotencyKeyIsLimitedByAddressToo() {
        // regression: the rate limit of a keyed request waits for the idempotency filter, which a
        // request without a valid API key never reached, so it was neither counted nor given headers
        Policy anonymous = ServerConfig.defaults().rateLimits().policies().stream()
                .filter(p -> p.name().equals("anonymous"))
                .findFirst()
                .orElseThrow();
        Policy small = new Policy(
                "anonymous",
                anonymous.scope(),
                anonymous.algorithm(),
                2,
                Duration.ofMinutes(1),
                2,
                1,
                anonymous.failMode(),
                null);
        try (TestServer server = server(small).start()) {
            Api guesser = new Api(server.baseUri(), "not-a-key-" + UUID.randomUUID());
            for (int i = 0; i < 2; i++) {
                Api.Answer answer = guesser.post("/v1/payments", "{\"amount\": 100, \"currency\": \"eur\"}");
                assertThat(answer.status()).isEqualTo(401);
                assertThat(RateLimitHeadersCheck.only(answer, clock.instant()).policy())
                        .isEqualTo("anonymous");
            }
            Api.Answer third = guesser.post("/v1/payments", "{\"amount\": 100, \"currency\": \"eur\"}");
            assertThat(third.status()).isEqualTo(429);
            assertThat(third.body().path("policy").asText()).isEqualTo("anonymous");
        }
    }
}
