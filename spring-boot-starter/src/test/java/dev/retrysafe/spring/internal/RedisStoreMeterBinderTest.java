package dev.retrysafe.spring.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.retrysafe.ratelimit.Charge;
import dev.retrysafe.ratelimit.Decision;
import dev.retrysafe.ratelimit.Policy;
import dev.retrysafe.ratelimit.redis.RedisRateLimitStore;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The Redis store's meters in Prometheus, under the names of the server's {@code /metrics}, on the
 * test Redis (a key prefix of this test's own, deleted afterwards).
 */
class RedisStoreMeterBinderTest {

    private static final String REDIS =
            System.getenv().getOrDefault("RETRYSAFE_TEST_REDIS_URL", "redis://127.0.0.1:6379");

    private final String prefix = "rs-test:" + UUID.randomUUID().toString().substring(0, 8) + ":";

    @AfterEach
    void deleteKeys() {
        RedisClient client = RedisClient.create(REDIS);
        try (StatefulRedisConnection<String, String> c = client.connect()) {
            List<String> keys = c.sync().keys(prefix + "*");
            if (!keys.isEmpty()) {
                c.sync().del(keys.toArray(String[]::new));
            }
        } finally {
            client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
        }
    }

    @Test
    void countsEveryCallToRedisAndShowsTheBreakerClosed() {
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        try (RedisRateLimitStore store = RedisRateLimitStore.builder()
                .redisUri(REDIS)
                .keyPrefix(prefix)
                .commandTimeout(Duration.ofSeconds(2))
                .build()) {
            new RedisStoreMeterBinder(store).bindTo(registry);
            Policy policy = Policy.builder("p").limit(10, Duration.ofMinutes(1)).build();
            for (int i = 0; i < 3; i++) {
                Decision decision = store.decide("a:acct_1", List.of(new Charge(policy, "k", 1)));
                assertThat(decision.states().getFirst().known())
                        .as("counted in Redis")
                        .isTrue();
            }

            String scrape = registry.scrape();
            assertThat(scrape)
                    .contains("retrysafe_ratelimit_redis_seconds_count 3")
                    .contains("retrysafe_ratelimit_redis_seconds_sum")
                    .contains("retrysafe_ratelimit_redis_breaker_open 0");
        }
    }
}
