package dev.retrysafe.ratelimit.redis;

import static dev.retrysafe.ratelimit.redis.Charges.charge;
import static dev.retrysafe.ratelimit.redis.Charges.policy;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.retrysafe.ratelimit.Algorithm;
import dev.retrysafe.ratelimit.Decision;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class StoreLifecycleTest {

    @Test
    void closeReleasesTheClientsThreads() {
        try (TestRedis redis = TestRedis.connect()) {
            Set<Thread> before = lettuceThreads();
            RedisRateLimitStore store = redis.store().build();
            Decision decision =
                    store.decide("a:1", List.of(charge(policy("p", Algorithm.GCRA, 1, Duration.ofSeconds(1)))));
            assertThat(decision.states().getFirst().known()).isTrue();
            assertThat(lettuceThreads()).isNotEqualTo(before);

            store.close();

            await().atMost(Duration.ofSeconds(10))
                    .untilAsserted(() -> assertThat(lettuceThreads()).isSubsetOf(before));
        }
    }

    @Test
    void theFirstDecisionAfterBuildingIsCountedNotFailedOpen() {
        // a regression: the first connection of a JVM took longer than the command timeout
        try (TestRedis redis = TestRedis.connect();
                RedisRateLimitStore store = redis.store().build()) {
            Decision first =
                    store.decide("a:1", List.of(charge(policy("p", Algorithm.GCRA, 1, Duration.ofSeconds(1)))));
            assertThat(first.states().getFirst().known()).isTrue();
        }
    }

    @Test
    void aCallerOwnedClientIsLeftRunning() {
        try (TestRedis redis = TestRedis.connect()) {
            io.lettuce.core.RedisClient client = io.lettuce.core.RedisClient.create();
            try {
                RedisRateLimitStore store = RedisRateLimitStore.builder()
                        .redisClient(client, TestRedis.URI)
                        .keyPrefix(redis.prefix())
                        .build();
                Decision decision =
                        store.decide("a:1", List.of(charge(policy("p", Algorithm.GCRA, 1, Duration.ofSeconds(1)))));
                assertThat(decision.states().getFirst().known()).isTrue();
                store.close();
                // the client still connects
                client.connect(io.lettuce.core.RedisURI.create(TestRedis.URI)).close();
            } finally {
                client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
            }
        }
    }

    @Test
    void theBuilderNamesBadSettings() {
        assertThatThrownBy(() -> RedisRateLimitStore.builder().commandTimeout(Duration.ZERO))
                .hasMessage("commandTimeout must be positive: PT0S");
        assertThatThrownBy(() -> RedisRateLimitStore.builder().circuitBreaker(0, Duration.ofSeconds(1)))
                .hasMessage("failuresToOpen must be at least 1: 0");
        assertThatThrownBy(() -> RedisRateLimitStore.builder().minimumKeyTtl(Duration.ofSeconds(-1)))
                .hasMessage("minimumKeyTtl must not be negative: PT-1S");
        assertThatThrownBy(() -> RedisRateLimitStore.builder()
                        .redisUri("redis://x")
                        .keyPrefix("a{b}")
                        .build())
                .hasMessage("key prefix must not contain '{' or '}': a{b}");
        assertThatThrownBy(() -> RedisRateLimitStore.builder().redisCluster(List.of()))
                .hasMessage("a Redis Cluster needs at least one seed node");
        assertThatThrownBy(() -> RedisRateLimitStore.builder().redisCluster(List.of("redis://h1:7000/2")))
                .hasMessageStartingWith("Redis Cluster has only database 0: redis://h1:7000/2");
        assertThatThrownBy(() -> RedisRateLimitStore.builder().topologyRefreshPeriod(Duration.ZERO))
                .hasMessage("topologyRefreshPeriod must be positive: PT0S");
        assertThatThrownBy(() -> RedisRateLimitStore.builder().build())
                .hasMessage(
                        "a Redis store needs redisUri(...), redisClient(...), redisCluster(...) or redisClusterClient(...)");
    }

    private static Set<Thread> lettuceThreads() {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.getName().startsWith("lettuce-") && t.isAlive())
                .collect(Collectors.toSet());
    }
}
