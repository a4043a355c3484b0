package dev.retrysafe.ratelimit.redis;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisException;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanIterator;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * The shared test Redis ({@code RETRYSAFE_TEST_REDIS_URL}, default {@code redis://127.0.0.1:6379})
 * seen through a key prefix of this test's own, with a connection for looking at keys. Closing
 * deletes every key under the prefix. Redis being down fails the test: it is never skipped.
 */
final class TestRedis implements AutoCloseable {

    static final String URI = env("RETRYSAFE_TEST_REDIS_URL", "redis://127.0.0.1:6379");

    private final String prefix = "rs-test:" + UUID.randomUUID().toString().substring(0, 8) + ":";
    private final RedisClient client;
    private final StatefulRedisConnection<String, String> connection;

    private TestRedis(RedisClient client, StatefulRedisConnection<String, String> connection) {
        this.client = client;
        this.connection = connection;
    }

    static TestRedis connect() {
        return connect(URI);
    }

    static TestRedis connect(String uri) {
        RedisClient client = RedisClient.create(uri);
        try {
            StatefulRedisConnection<String, String> connection = client.connect();
            connection.setTimeout(Duration.ofSeconds(5));
            return new TestRedis(client, connection);
        } catch (RedisException e) {
            client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
            throw new IllegalStateException("Redis at " + uri + " is required by this test and cannot be reached"
                    + " (./test starts it; or run redis-server --daemonize yes; set RETRYSAFE_TEST_REDIS_URL"
                    + " to use another): " + e.getMessage(), e);
        }
    }

    String prefix() {
        return prefix;
    }

    RedisCommands<String, String> redis() {
        return connection.sync();
    }

    /** A store on this Redis, under this test's prefix. */
    RedisRateLimitStore.Builder store() {
        return RedisRateLimitStore.builder().redisUri(URI).keyPrefix(prefix);
    }

    /** Every key under this test's prefix. */
    List<String> keys() {
        List<String> keys = new ArrayList<>();
        ScanIterator.scan(redis(), ScanArgs.Builder.matches(prefix + "*").limit(500)).forEachRemaining(keys::add);
        return keys;
    }

    @Override
    public void close() {
        try {
            List<String> keys = keys();
            if (!keys.isEmpty()) {
                redis().unlink(keys.toArray(String[]::new));
            }
        } finally {
            connection.close();
            client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
        }
    }

    private static String env(String name, String fallback) {
        String value = System.getenv(name);
        return value == null || value.isBlank() ? fallback : value;
    }
}
