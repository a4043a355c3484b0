package dev.retrysafe.acceptance;

import static org.assertj.core.api.Assertions.assertThat;

import dev.retrysafe.ratelimit.Policy;
import dev.retrysafe.ratelimit.Scope;
import dev.retrysafe.server.Api;
import dev.retrysafe.server.TestServer;
import dev.retrysafe.server.config.RateLimitConfig;
import dev.retrysafe.server.config.RedisConfig;
import dev.retrysafe.server.config.ServerConfig;
import dev.retrysafe.testkit.RedisServerProcess;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * {@code rate_limits.redis_direct_connection} reaches the Redis store: seen from a private Redis,
 * with it on the server's decisions run on the store's own connection (named
 * {@code retrysafe-rl-direct}), with it off no such connection exists and the script ran on
 * Lettuce's.
 */
class RedisDirectConnectionSettingTest {

    private static final String LANE = " name=retrysafe-rl-direct ";

    @Test
    void onTheServersLoneDecisionsGoOverTheDirectConnection() {
        List<String> clients = clientsAfterRequests(true);

        assertThat(clients)
                .filteredOn(c -> c.contains(LANE))
                .singleElement()
                .satisfies(c -> assertThat(c).contains(" cmd=evalsha "));
    }

    @Test
    void offEveryDecisionGoesThroughLettuce() {
        List<String> clients = clientsAfterRequests(false);

        assertThat(clients).noneMatch(c -> c.contains(LANE));
        assertThat(clients).anyMatch(c -> c.contains(" cmd=evalsha ") || c.contains(" cmd=eval "));
    }

    /** Starts a private Redis and a server counting in it, sends it two requests one after the other, and lists Redis's clients. */
    private static List<String> clientsAfterRequests(boolean direct) {
        Set<Thread> before = RedisClientThreads.alive();
        Policy policy = Policy.builder("key")
                .scope(Scope.apiKey())
                .limit(100, Duration.ofHours(1))
                .build();
        RateLimitConfig limits = new RateLimitConfig(
                true,
                RateLimitConfig.Store.REDIS,
                List.of(policy),
                ServerConfig.defaults().rateLimits().plans(),
                Duration.ZERO,
                Duration.ofSeconds(2),
                "rs-test:",
                direct,
                List.of());
        try (RedisServerProcess redis = RedisServerProcess.start()) {
            try (TestServer server = TestServer.h2()
                    .rateLimits(limits)
                    .configure(c -> c.withRedis(new RedisConfig(URI.create(redis.uri()))))
                    .start()) {
                Api api = Api.of(server);
                // the first may find the lane still connecting; a lone decision takes it once it is up
                for (long left : new long[] {99, 98}) {
                    Api.Answer answer = api.get("/v1/payments");
                    assertThat(answer.status()).as(answer.raw().body()).isEqualTo(200);
                    assertThat(answer.header("X-RateLimit-Remaining")).isEqualTo(Long.toString(left));
                }
                return clientList(redis);
            }
        } finally {
            RedisClientThreads.assertNoneLeftSince(before);
        }
    }

    /** {@code CLIENT LIST}, one line per connection, each padded with spaces for whole-field matching. */
    private static List<String> clientList(RedisServerProcess redis) {
        RedisClient client = RedisClient.create(redis.uri());
        try (StatefulRedisConnection<String, String> connection = client.connect()) {
            return connection
                    .sync()
                    .clientList()
                    .lines()
                    .map(line -> " " + line + " ")
                    .toList();
        } finally {
            client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
        }
    }
}
