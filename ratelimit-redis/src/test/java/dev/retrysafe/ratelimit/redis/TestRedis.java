package dev.retrysafe.ratelimit.redis;

import dev.retrysafe.testkit.RedisClusterProcess;
import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanIterator;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.api.sync.RedisKeyCommands;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.sync.RedisAdvancedClusterCommands;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.function.Supplier;

/**
 * The shared test Redis ({@code RETRYSAFE_TEST_REDIS_URL}, default {@code redis://127.0.0.1:6379}),
 * or a test's own Redis Cluster, seen through a key prefix of this test's own, with a connection
 * for looking at keys. Closing deletes every key under the prefix. Redis being down fails the
 * test: it is never skipped.
 */
final class TestRedis implements AutoCloseable {

    static final String URI = env("RETRYSAFE_TEST_REDIS_URL", "redis://127.0.0.1:6379");

    private final String prefix = "rs-test:" + UUID.randomUUID().toString().substring(0, 8) + ":";
    private final AbstractRedisClient client;
    private final StatefulConnection<String, String> connection;
    private final RedisKeyCommands<String, String> keyCommands;
    private final Supplier<RedisRateLimitStore.Builder> target;

    private TestRedis(
            AbstractRedisClient client,
            StatefulConnection<String, String> connection,
            RedisKeyCommands<String, String> keyCommands,
            Supplier<RedisRateLimitStore.Builder> target) {
        this.client = client;
        this.connection = connection;
        this.keyCommands = keyCommands;
        this.target = target;
        connection.setTimeout(Duration.ofSeconds(5));
    }

    static TestRedis connect() {
        return connect(URI);
    }

    static TestRedis connect(String uri) {
        RedisClient client = RedisClient.create(uri);
        try {
            StatefulRedisConnection<String, String> connection = client.connect();
            return new TestRedis(
                    client,
                    connection,
                    connection.sync(),
                    () -> RedisRateLimitStore.builder().redisUri(uri));
        } catch (RedisException e) {
            client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
            throw new IllegalStateException(
                    "Redis at " + uri + " is required by this test and cannot be reached"
                            + " (./test starts it; or run redis-server --daemonize yes; set RETRYSAFE_TEST_REDIS_URL"
                            + " to use another): " + e.getMessage(),
                    e);
        }
    }

    /** The Redis Cluster {@code cluster}, through a cluster client of its own. */
    static TestRedis connect(RedisClusterProcess cluster) {
        List<RedisURI> seeds = cluster.uris().stream().map(RedisURI::create).toList();
        RedisClusterClient client = RedisClusterClient.create(seeds);
        try {
            StatefulRedisClusterConnection<String, String> connection = client.connect();
            return new TestRedis(
                    client,
                    connection,
                    connection.sync(),
                    () -> RedisRateLimitStore.builder().redisCluster(cluster.uris()));
        } catch (RedisException e) {
            client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
            throw new IllegalStateException("cannot connect to the test's Redis Cluster " + cluster.uris(), e);
        }
    }

    String prefix() {
        return prefix;
    }

    /** The commands of a standalone Redis. */
    @SuppressWarnings("unchecked")
    RedisCommands<String, String> redis() {
        if (!(connection instanceof StatefulRedisConnection<?, ?> standalone)) {
            throw new IllegalStateException("a Redis Cluster: use cluster()");
        }
        return ((StatefulRedisConnection<String, String>) standalone).sync();
    }

    /** The commands of a Redis Cluster, routed by key (and to every node where Lettuce does so). */
    @SuppressWarnings("unchecked")
    RedisAdvancedClusterCommands<String, String> cluster() {
        if (!(connection instanceof StatefulRedisClusterConnection<?, ?> cluster)) {
            throw new IllegalStateException("a standalone Redis: use redis()");
        }
        return ((StatefulRedisClusterConnection<String, String>) cluster).sync();
    }

    /** A store on this Redis, under this test's prefix. */
    RedisRateLimitStore.Builder store() {
        return target.get().keyPrefix(prefix);
    }

    /**
     * A store deciding at {@code clock}'s time, for tests of agreement rather than latency: keys
     * live an hour at least (the clock's time does not pass with Redis's), and a GC pause does not
     * turn into "unknown" (a 5 s command timeout).
     */
    RedisRateLimitStore.Builder storeAtTimeOf(Clock clock) {
        return store().timeSource(clock).minimumKeyTtl(Duration.ofHours(1)).commandTimeout(Duration.ofSeconds(5));
    }

    /** Every key under this test's prefix (on every master of a Cluster). */
    List<String> keys() {
        return keys(keyCommands);
    }

    /** The keys under this test's prefix that the one Redis server at {@code uri} holds. */
    List<String> keysOn(String uri) {
        RedisClient node = RedisClient.create(uri);
        try (StatefulRedisConnection<String, String> c = node.connect()) {
            return keys(c.sync());
        } finally {
            node.shutdown(Duration.ZERO, Duration.ofSeconds(2));
        }
    }

    private List<String> keys(RedisKeyCommands<String, String> commands) {
        List<String> keys = new ArrayList<>();
        ScanIterator.scan(commands, ScanArgs.Builder.matches(prefix + "*").limit(500))
                .forEachRemaining(keys::add);
        return keys;
    }

    /** Deletes every key under this test's prefix. */
    void deleteKeys() {
        List<String> keys = keys();
        if (!keys.isEmpty()) {
            keyCommands.unlink(keys.toArray(String[]::new));
        }
    }

    @Override
    public void close() {
        try {
            deleteKeys();
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
