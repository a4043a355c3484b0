package dev.retrysafe.bench.ratelimit;

import dev.retrysafe.ratelimit.Charge;
import dev.retrysafe.ratelimit.Decision;
import dev.retrysafe.ratelimit.redis.RedisRateLimitStore;
import io.github.bucket4j.BucketConfiguration;
import io.github.bucket4j.distributed.BucketProxy;
import io.github.bucket4j.distributed.ExpirationAfterWriteStrategy;
import io.github.bucket4j.redis.lettuce.Bucket4jLettuce;
import io.github.bucket4j.redis.lettuce.cas.LettuceBasedProxyManager;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.ByteArrayCodec;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Redis decisions per second: {@code N} JMH threads ({@code -t N}, platform threads) are the
 * {@code N} concurrent callers, each making blocking decisions one after the other over one
 * shared, multiplexed Lettuce connection per library (Retrysafe's store opens exactly one;
 * Bucket4j's proxy manager is given one). Every decision is allowed ({@link Limits}); the keys
 * are {@code keys} distinct ones walked by each thread from its own offset. With
 * {@code -jvmArgsAppend -Djmh.executor=VIRTUAL} (JMH 1.37) the callers are virtual threads
 * instead, as the server's request handlers are (Jetty with virtual threads): a caller blocked
 * on Redis then yields its carrier instead of parking an OS thread ({@code bench/ratelimit/run.sh}
 * measures both).
 *
 * <p>Retrysafe: {@code RedisRateLimitStore.decide(key, List.of(charge))}: one {@code EVALSHA}
 * of {@code decide.lua}, timed by Redis's clock. Bucket4j: {@code BucketProxy.tryConsume(1)}
 * through {@code LettuceBasedProxyManager} (compare-and-swap: a {@code GET} of the state, then
 * an {@code EVAL} that swaps it, two round trips), with its default client-side clock (the
 * JVM's {@code currentTimeMillis}); the bucket proxies are built once per key before measuring.
 * Keys carry {@code keyPrefix}; the tear-down deletes them.
 *
 * <p>{@link #lettuceFloor} is no rate limiter: it is what the client library that the store is
 * built on reaches when Redis has nothing to do, the same call as the ceiling's
 * {@code redis-benchmark} rows ({@code EVALSHA} of {@code return 1} with one key and one argument)
 * made the way the store makes its calls (a byte-array connection of its own, on a client of its
 * own with the options the store gives its client, the asynchronous API awaited without a
 * timeout of its own, the client's command timeout bounding it; until 2026-12-06 with
 * {@code LettuceFutures.awaitOrCancel}, a timed wait). A store on Lettuce cannot beat it, so it
 * tells how much of the gap to the ceiling is the client's own (its thread hand-offs) rather than
 * the store's.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class RedisBenchmark {

    @Param({"redis://127.0.0.1:6379"})
    public String redisUri;

    /** Every key of the run starts with it; the tear-down deletes {@code keyPrefix*}. */
    @Param({"bench:rl:"})
    public String keyPrefix;

    @Param({"10000"})
    public int keys;

    private String[] keyNames = new String[0];
    private List<List<Charge>> charges = List.of();
    private BucketProxy[] buckets = new BucketProxy[0];
    private RedisRateLimitStore store = null;
    private RedisRateLimitStore storeLettuce = null;
    private RedisRateLimitStore storeAlone = null;
    private RedisClient client = null;
    private StatefulRedisConnection<byte[], byte[]> bucket4jConnection = null;
    private RedisClient floorClient = null;
    private StatefulRedisConnection<byte[], byte[]> floorConnection = null;
    private String trivialSha = "";
    private byte[][] floorKeys = new byte[0][];
    private static final byte[] FLOOR_ARGUMENT = {'1'};

    @Setup(Level.Trial)
    public void setUp() {
        keyNames = Limits.keys(keys);
        store = RedisRateLimitStore.builder()
                .redisUri(redisUri)
                .keyPrefix(keyPrefix + "rs:")
                // a run on a busy machine may see a slow answer: measure it, do not fail it open
                .commandTimeout(Duration.ofSeconds(5))
                .build();
        // the same store without its direct connection: every decision through Lettuce (as before 2026-12-04)
        storeLettuce = RedisRateLimitStore.builder()
                .redisUri(redisUri)
                .keyPrefix(keyPrefix + "rs:")
                .commandTimeout(Duration.ofSeconds(5))
                .directConnection(false)
                .build();
        // nor sharing calls: every decision a call of its own through Lettuce, as on a Redis Cluster
        storeAlone = RedisRateLimitStore.builder()
                .redisUri(redisUri)
                .keyPrefix(keyPrefix + "rs:")
                .commandTimeout(Duration.ofSeconds(5))
                .directConnection(false)
                .batching(false)
                .build();
        List<List<Charge>> lists = new ArrayList<>(keys);
        for (int i = 0; i < keys; i++) {
            lists.add(List.of(new Charge(Limits.policy(), keyNames[i], 1)));
        }
        charges = List.copyOf(lists);

        client = RedisClient.create(redisUri);
        bucket4jConnection = client.connect(ByteArrayCodec.INSTANCE);
        LettuceBasedProxyManager<byte[]> proxyManager = Bucket4jLettuce.casBasedBuilder(bucket4jConnection)
                .expirationAfterWrite(ExpirationAfterWriteStrategy.fixedTimeToLive(Duration.ofMinutes(10)))
                .build();
        // the floor's client is configured as the store configures its own (RedisRateLimitStore's
        // builder): reconnect, reject calls while disconnected, command timeouts on
        floorClient = RedisClient.create();
        floorClient.setOptions(ClientOptions.builder()
                .autoReconnect(true)
                .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
                .timeoutOptions(TimeoutOptions.enabled(Duration.ofSeconds(5)))
                .socketOptions(SocketOptions.builder()
                        .connectTimeout(Duration.ofSeconds(5))
                        .build())
                .build());
        RedisURI floorUri = RedisURI.create(redisUri);
        floorUri.setTimeout(Duration.ofSeconds(5));
        floorConnection = floorClient.connect(ByteArrayCodec.INSTANCE, floorUri);
        floorConnection.setTimeout(Duration.ofSeconds(5));
        trivialSha = floorConnection.sync().scriptLoad("return 1".getBytes(StandardCharsets.US_ASCII));
        floorKeys = new byte[keys][];
        for (int i = 0; i < keys; i++) {
            floorKeys[i] = (keyPrefix + "floor:{" + keyNames[i] + "}").getBytes(StandardCharsets.UTF_8);
        }
        BucketConfiguration configuration = Limits.bucketConfiguration();
        buckets = new BucketProxy[keys];
        for (int i = 0; i < keys; i++) {
            byte[] key = (keyPrefix + "b4j:" + keyNames[i]).getBytes(StandardCharsets.UTF_8);
            buckets[i] = proxyManager.builder().build(key, () -> configuration);
        }
        // both libraries must be deciding, not failing open: one allowed decision each
        if (!(store.decide(keyNames[0], charges.get(0)) instanceof Decision.Allowed allowed)
                || !allowed.states().get(0).known()) {
            throw new IllegalStateException("the Retrysafe store did not reach Redis at " + redisUri);
        }
        if (!buckets[0].tryConsume(1)) {
            throw new IllegalStateException("Bucket4j refused during set-up");
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        store.close();
        storeLettuce.close();
        storeAlone.close();
        bucket4jConnection.close();
        floorConnection.close();
        floorClient.shutdown();
        try (StatefulRedisConnection<String, String> cleanup = client.connect()) {
            RedisKeys.deleteByPrefix(cleanup.sync(), keyPrefix);
        }
        client.shutdown();
    }

    @Benchmark
    public Decision retrysafe(KeyCursor cursor) {
        int i = cursor.next(keys);
        return store.decide(keyNames[i], charges.get(i));
    }

    /** Reference: the store with {@code directConnection(false)}, every decision through Lettuce. */
    @Benchmark
    public Decision retrysafeLettuce(KeyCursor cursor) {
        int i = cursor.next(keys);
        return storeLettuce.decide(keyNames[i], charges.get(i));
    }

    /**
     * Reference: the store with {@code directConnection(false)} and {@code batching(false)}, every
     * decision a call of its own through Lettuce, the way it decides on a Redis Cluster (not in
     * {@code run.sh}'s rows).
     */
    @Benchmark
    public Decision retrysafeAlone(KeyCursor cursor) {
        int i = cursor.next(keys);
        return storeAlone.decide(keyNames[i], charges.get(i));
    }

    @Benchmark
    public boolean bucket4j(KeyCursor cursor) {
        return buckets[cursor.next(keys)].tryConsume(1);
    }

    @Benchmark
    public Long lettuceFloor(KeyCursor cursor) throws InterruptedException, ExecutionException {
        byte[][] key = {floorKeys[cursor.next(keys)]};
        // untimed, as the store waits since 2026-12-06 (the client's command timeout still applies)
        return floorConnection
                .async()
                .<Long>evalsha(trivialSha, ScriptOutputType.INTEGER, key, FLOOR_ARGUMENT)
                .get();
    }
}
