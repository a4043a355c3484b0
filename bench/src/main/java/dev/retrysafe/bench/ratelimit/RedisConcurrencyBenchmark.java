package dev.retrysafe.bench.ratelimit;

import dev.retrysafe.ratelimit.ConcurrencyDecision;
import dev.retrysafe.ratelimit.ConcurrencyPolicy;
import dev.retrysafe.ratelimit.ConcurrencySlot;
import dev.retrysafe.ratelimit.FailMode;
import dev.retrysafe.ratelimit.Permit;
import dev.retrysafe.ratelimit.redis.RedisConcurrencyStore;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
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
import org.openjdk.jmh.infra.BenchmarkParams;
import org.redisson.Redisson;
import org.redisson.api.RPermitExpirableSemaphore;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;
import org.redisson.config.Config;
import org.redisson.config.TransportMode;

/**
 * Concurrency-limit acquisitions and releases per second on Redis: {@code N} JMH threads
 * ({@code -t N}) are the {@code N} concurrent callers, each taking a slot of a key and giving it
 * back, one after the other, as {@link RedisBenchmark} makes its decisions. Every acquisition is
 * admitted (the limit, {@value ConcurrencyBenchmark#LIMIT} per key, is above any caller count); the
 * keys are {@code keys} distinct ones walked by each thread from its own offset ({@code keys=1}: one
 * hot key shared by every caller). Both libraries hold a slot as a lease of
 * {@value #LEASE_SECONDS} s that Redis forgets if its holder dies.
 *
 * <p>Retrysafe: {@code RedisConcurrencyStore.acquire(partition, List.of(slot))} then
 * {@code permit.release()}, two {@code EVALSHA}s of {@code concurrency.lua}; {@code retrysafeLettuce}
 * is the same store with {@code directConnection(false)} (every call through Lettuce's event loop),
 * for reference: what the direct connection buys. Redisson: one {@code RPermitExpirableSemaphore} per key, its permits set
 * ({@code trySetPermits}) before measuring, {@code tryAcquire(0, lease, ms)} (no wait, the same
 * lease) then {@code release(permitId)}, on Redisson's defaults (a pool of connections) with
 * {@link StringCodec} and the epoll transport that Lettuce uses here too. Keys carry
 * {@code keyPrefix}; the tear-down deletes them.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class RedisConcurrencyBenchmark {

    static final long LEASE_SECONDS = 10;

    private static final String PARTITION = "a:bench";

    @Param({"redis://127.0.0.1:6379"})
    public String redisUri;

    /** Every key of the run starts with it; the tear-down deletes {@code keyPrefix*}. */
    @Param({"bench:rlc:"})
    public String keyPrefix;

    @Param({"10000"})
    public int keys;

    private List<List<ConcurrencySlot>> slots = List.of();
    private @Nullable RedisConcurrencyStore store;
    private @Nullable RedisConcurrencyStore storeLettuce;
    private @Nullable RedissonClient redisson;
    private RPermitExpirableSemaphore[] semaphores = new RPermitExpirableSemaphore[0];

    /**
     * Sets up only what the measured method uses (a run is one method), so that a row's Redis
     * command counts are its own library's and its set-up does not write 10,000 keys it never reads.
     */
    @Setup(Level.Trial)
    public void setUp(BenchmarkParams params) throws InterruptedException {
        String method = params.getBenchmark().substring(params.getBenchmark().lastIndexOf('.') + 1);
        String[] keyNames = Limits.keys(keys);
        ConcurrencyPolicy policy = ConcurrencyPolicy.builder("bench")
                .limit(ConcurrencyBenchmark.LIMIT)
                .lease(Duration.ofSeconds(LEASE_SECONDS))
                // an unreachable Redis is then an Unavailable decision, which stops the run, not a
                // permit counted nowhere
                .failMode(FailMode.CLOSED)
                .build();
        List<List<ConcurrencySlot>> perKey = new ArrayList<>(keys);
        for (String name : keyNames) {
            perKey.add(List.of(new ConcurrencySlot(policy, name)));
        }
        slots = List.copyOf(perKey);
        switch (method) {
            case "retrysafe" -> store = checked(storeBuilder().build());
            // the same store without its direct connection: every call through Lettuce
            case "retrysafeLettuce" ->
                storeLettuce = checked(storeBuilder().directConnection(false).build());
            case "redisson" -> setUpRedisson(keyNames);
            default -> throw new IllegalStateException("no set-up for " + method);
        }
    }

    private RedisConcurrencyStore.Builder storeBuilder() {
        return RedisConcurrencyStore.builder()
                .redisUri(redisUri)
                .keyPrefix(keyPrefix + "rs:")
                // a run on a busy machine may see a slow answer: measure it, do not fail closed
                .commandTimeout(Duration.ofSeconds(5));
    }

    /** The store must be counting in Redis: one acquisition, seen there, then released. */
    private RedisConcurrencyStore checked(RedisConcurrencyStore built) {
        if (!(built.acquire(PARTITION, slots.get(0)) instanceof ConcurrencyDecision.Acquired acquired)
                || built.inFlight(PARTITION, slots.get(0).get(0)) != 1) {
            built.close();
            throw new IllegalStateException("the Retrysafe store did not reach Redis at " + redisUri);
        }
        acquired.permit().release();
        return built;
    }

    private void setUpRedisson(String[] keyNames) throws InterruptedException {
        Config config = new Config();
        config.setCodec(StringCodec.INSTANCE);
        config.setTransportMode(TransportMode.EPOLL);
        config.useSingleServer().setAddress(redisUri).setTimeout(5000);
        RedissonClient client = Redisson.create(config);
        redisson = client;
        semaphores = new RPermitExpirableSemaphore[keys];
        for (int i = 0; i < keys; i++) {
            // the braces keep Redisson's companion key ("<name>:timeout") under the prefix
            semaphores[i] = client.getPermitExpirableSemaphore(keyPrefix + "rdn:{" + keyNames[i] + "}");
            semaphores[i].trySetPermits(ConcurrencyBenchmark.LIMIT);
        }
        String permit = semaphores[0].tryAcquire(0, LEASE_SECONDS * 1000, TimeUnit.MILLISECONDS);
        if (permit == null) {
            throw new IllegalStateException("Redisson refused during set-up");
        }
        semaphores[0].release(permit);
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        if (store != null) {
            store.close();
        }
        if (storeLettuce != null) {
            storeLettuce.close();
        }
        if (redisson != null) {
            redisson.shutdown();
        }
        RedisClient client = RedisClient.create(redisUri);
        try (StatefulRedisConnection<String, String> cleanup = client.connect()) {
            RedisKeys.deleteByPrefix(cleanup.sync(), keyPrefix);
        } finally {
            client.shutdown();
        }
    }

    /** Retrysafe: take the key's slot, then release the permit. */
    @Benchmark
    public Permit retrysafe(KeyCursor cursor) {
        ConcurrencyDecision decision = store.acquire(PARTITION, slots.get(cursor.next(keys)));
        if (!(decision instanceof ConcurrencyDecision.Acquired(Permit permit))) {
            throw new IllegalStateException("every acquisition is admitted here, not: " + decision);
        }
        permit.release();
        return permit;
    }

    /** Reference: the store with {@code directConnection(false)}, every call through Lettuce. */
    @Benchmark
    public Permit retrysafeLettuce(KeyCursor cursor) {
        ConcurrencyDecision decision = storeLettuce.acquire(PARTITION, slots.get(cursor.next(keys)));
        if (!(decision instanceof ConcurrencyDecision.Acquired(Permit permit))) {
            throw new IllegalStateException("every acquisition is admitted here, not: " + decision);
        }
        permit.release();
        return permit;
    }

    /** Redisson: take a permit of the key's semaphore with a lease, without waiting, then release it. */
    @Benchmark
    public String redisson(KeyCursor cursor) throws InterruptedException {
        RPermitExpirableSemaphore semaphore = semaphores[cursor.next(keys)];
        String permit = semaphore.tryAcquire(0, LEASE_SECONDS * 1000, TimeUnit.MILLISECONDS);
        if (permit == null) {
            throw new IllegalStateException("every acquisition is admitted here, Redisson refused one");
        }
        semaphore.release(permit);
        return permit;
    }
}
