package dev.retrysafe.acceptance;

import static org.assertj.core.api.Assertions.assertThat;

import dev.retrysafe.acceptance.BudgetHeaders.Allowance;
import dev.retrysafe.acceptance.BudgetHeaders.Budget;
import dev.retrysafe.ratelimit.Policy;
import dev.retrysafe.ratelimit.Scope;
import dev.retrysafe.server.Api;
import dev.retrysafe.server.TestServer;
import dev.retrysafe.server.config.RateLimitConfig;
import dev.retrysafe.server.config.RedisConfig;
import dev.retrysafe.server.config.ServerConfig;
import dev.retrysafe.testkit.PostgresTestDatabase;
import dev.retrysafe.testkit.RedisServerProcess;
import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.stream.Collectors;
import java.util.stream.LongStream;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

/**
 * Three server instances sharing one PostgreSQL database (so an API key is the same key on all
 * three) and one Redis: many clients of one key, spread over the three, get the key's quota once
 * in total, not once per instance, and concurrent requests never spend the same unit twice.
 */
class SharedRateLimitTest {

    private static final String POLICY = "key";
    private static final long QUOTA = 30;
    /** One unit comes back every 48 minutes: none does during the test, whatever Redis's clock says. */
    private static final Duration WINDOW = Duration.ofHours(24);

    private static final long UNIT_SECONDS = WINDOW.toSeconds() / QUOTA;
    private static final int CLIENTS = 24;
    /** 144 requests in all, 48 per instance: each instance alone could have allowed the whole quota. */
    private static final int REQUESTS_PER_CLIENT = 6;
    /**
     * This test is about exact counting, not outages: on a busy machine a Redis call can exceed
     * the default 100 ms, and a fail-open policy would then let the request through uncounted.
     * {@link RedisOutageTest} covers the short timeout.
     */
    private static final Duration REDIS_TIMEOUT = Duration.ofSeconds(5);

    private static final Duration DEADLINE = Duration.ofSeconds(20);
    private static final Duration RUN_DEADLINE = Duration.ofSeconds(60);

    /** One request of the run: which instance answered, what, and when it was sent and answered. */
    private record Sent(int instance, Instant sentAt, Instant answeredAt, Api.Answer answer) {}

    @Test
    void concurrentClientsOfOneKeyOnThreeInstancesGetTheQuotaOnceInTotal() throws Exception {
        Policy perKey = Policy.builder(POLICY)
                .scope(Scope.apiKey())
                .limit(QUOTA, WINDOW)
                .build();
        RateLimitConfig limits = new RateLimitConfig(
                true,
                RateLimitConfig.Store.REDIS,
                List.of(perKey),
                ServerConfig.defaults().rateLimits().plans(),
                Duration.ZERO,
                REDIS_TIMEOUT,
                "rs-test:",
                true,
                List.of());
        Set<Thread> redisClientThreads = RedisClientThreads.alive();
        try (RedisServerProcess redis = RedisServerProcess.start();
                PostgresTestDatabase db = PostgresTestDatabase.create();
                TestServer first = instance(db, limits, redis, null);
                // the first instance's bootstrap keys, as instances of one deployment share them
                TestServer second = instance(db, limits, redis, first);
                TestServer third = instance(db, limits, redis, first)) {
            List<TestServer> instances = List.of(first, second, third);
            String key = first.apiKey();
            String otherKey = first.otherApiKey();

            // when: every client sends to the three instances in turn, all starting together
            Queue<Sent> sent = new ConcurrentLinkedQueue<>();
            List<Callable<Void>> clients = new ArrayList<>();
            for (int c = 0; c < CLIENTS; c++) {
                int client = c;
                clients.add(() -> {
                    for (int i = 0; i < REQUESTS_PER_CLIENT; i++) {
                        int instance = (client + i) % instances.size();
                        sent.add(get(instances.get(instance), key, instance));
                    }
                    return null;
                });
            }
            ParallelTasks.runTogether(clients, CLIENTS, DEADLINE, RUN_DEADLINE);

            // then: the quota once in total, one unit per success
            assertThat(sent).hasSize(CLIENTS * REQUESTS_PER_CLIENT);
            assertThat(sent.stream().collect(Collectors.groupingBy(Sent::instance, Collectors.counting())))
                    .as("requests per instance")
                    .allSatisfy((instance, count) -> assertThat(count).isGreaterThan(QUOTA));
            Map<Integer, List<Sent>> byStatus =
                    sent.stream().collect(Collectors.groupingBy(s -> s.answer().status()));
            assertThat(byStatus.keySet()).as("statuses").containsOnly(200, 429);
            List<Sent> allowed = byStatus.getOrDefault(200, List.of());
            assertThat(allowed.size())
                    .as(
                            "successes on all three instances together (by instance: %s)",
                            allowed.stream().collect(Collectors.groupingBy(Sent::instance, Collectors.counting())))
                    .isEqualTo(QUOTA);
            assertThat(allowed.stream()
                            .map(s -> checkedBudget(s).remaining())
                            .sorted()
                            .toList())
                    .as("the budget each success left: every unit spent by exactly one request")
                    .isEqualTo(LongStream.range(0, QUOTA).boxed().toList());
            for (Sent refusal : byStatus.getOrDefault(429, List.of())) {
                Api.Answer answer = refusal.answer();
                assertThat(checkedBudget(refusal).remaining()).as("r of a 429").isZero();
                assertThat(BudgetHeaders.retryAfter(answer))
                        .as("Retry-After: the next unit is at most %d s away", UNIT_SECONDS)
                        .isLessThanOrEqualTo(UNIT_SECONDS);
                assertThat(answer.contentType()).startsWith("application/problem+json");
                assertThat(answer.body().path("type").asText()).isEqualTo("/problems/rate-limited");
                assertThat(answer.body().path("policy").asText()).isEqualTo(POLICY);
                assertThat(answer.body().path("retry_after").asLong()).isEqualTo(BudgetHeaders.retryAfter(answer));
            }

            // and: the key stays refused everywhere, while the other account's key has its own
            // budget, shared by the three instances in the same way
            for (int i = 0; i < instances.size(); i++) {
                assertThat(get(instances.get(i), key, i).answer().status())
                        .as("instance %d, spent key", i)
                        .isEqualTo(429);
            }
            for (int i = 0; i < instances.size(); i++) {
                Sent other = get(instances.get(i), otherKey, i);
                assertThat(other.answer().status())
                        .as("instance %d, other account", i)
                        .isEqualTo(200);
                assertThat(checkedBudget(other).remaining())
                        .as("instance %d, other account", i)
                        .isEqualTo(QUOTA - 1 - i);
            }
        }
        RedisClientThreads.assertNoneLeftSince(redisClientThreads);
    }

    /** An instance on {@code db} and {@code redis}; with the bootstrap keys of {@code keysOf} if given. */
    private static TestServer instance(
            PostgresTestDatabase db, RateLimitConfig limits, RedisServerProcess redis, @Nullable TestServer keysOf) {
        RedisConfig shared = new RedisConfig(URI.create(redis.uri()));
        return TestServer.postgres(db)
                .rateLimits(limits)
                .configure(c -> keysOf == null
                        ? c.withRedis(shared)
                        : c.withRedis(shared)
                                .withBootstrapApiKeys(keysOf.config().bootstrapApiKeys()))
                .start();
    }

    private static Sent get(TestServer server, String key, int instance) {
        Instant sentAt = Instant.now();
        Api.Answer answer = new Api(server.baseUri(), key).get("/v1/payments");
        return new Sent(instance, sentAt, Instant.now(), answer);
    }

    /**
     * The budget an answer reports, after checking every rate-limit header: the policy as
     * configured, a known budget, and a reset that matches the units spent (GCRA gives one unit
     * back every {@link #UNIT_SECONDS}; the run is far shorter than a minute).
     */
    private static Budget checkedBudget(Sent sent) {
        Api.Answer answer = sent.answer();
        assertThat(BudgetHeaders.allowances(answer))
                .as("RateLimit-Policy on a %d", answer.status())
                .containsExactly(Map.entry(POLICY, new Allowance(QUOTA, WINDOW.toSeconds())));
        Budget budget = BudgetHeaders.known(answer, POLICY, sent.sentAt(), sent.answeredAt());
        long untilWhole = (QUOTA - budget.remaining()) * UNIT_SECONDS;
        assertThat(budget.resetSeconds())
                .as("t with %d units spent", QUOTA - budget.remaining())
                .isBetween(untilWhole - 60, untilWhole);
        return budget;
    }
}
