package dev.retrysafe.bench.ratelimit;

import dev.retrysafe.ratelimit.Charge;
import dev.retrysafe.ratelimit.Decision;
import dev.retrysafe.ratelimit.InMemoryRateLimitStore;
import dev.retrysafe.ratelimit.LocalRateLimiter;
import io.github.bucket4j.Bucket;
import io.github.bucket4j.local.SynchronizationStrategy;
import io.github.resilience4j.ratelimiter.RateLimiter;
import io.github.resilience4j.ratelimiter.RateLimiterConfig;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
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
import org.openjdk.jmh.annotations.Warmup;

/**
 * In-process decisions per second, one unit per decision, all allowed ({@link Limits}): a hot
 * key shared by every thread ({@code keys=1}) or 100,000 keys walked by each thread from its own
 * offset. Every library reads the system clock at millisecond resolution: Retrysafe's
 * {@code System.currentTimeMillis()}, Bucket4j's default {@code TimeMeter.SYSTEM_MILLISECONDS}.
 * Resilience4j reads {@code System.nanoTime()} (it has no other clock). Every key is tracked
 * before measuring, so that the steady state (a lookup and an update) is what is measured.
 *
 * <p>Thread counts come from the command line ({@code -t 1}, {@code -t 2}).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(
        value = 1,
        jvmArgsAppend = {"-Xms2g", "-Xmx2g"})
public class InMemoryBenchmark {

    @Param({"1", "100000"})
    public int keys;

    private String[] keyNames = new String[0];
    private long fixedNow;

    private LocalRateLimiter retrysafe =
            InMemoryRateLimitStore.builder().build().limiter(Limits.policy());
    private InMemoryRateLimitStore store = InMemoryRateLimitStore.builder().build();
    private List<List<Charge>> charges = List.of();

    /** Bucket4j as its documentation suggests for per-key limits: buckets in a concurrent map. */
    private final ConcurrentHashMap<String, Bucket> lockFreeBuckets = new ConcurrentHashMap<>();

    private final ConcurrentHashMap<String, Bucket> synchronizedBuckets = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<String, RateLimiter> resilience4j = new ConcurrentHashMap<>();

    private final RateLimiterConfig rateLimiterConfig = Limits.resilience4jConfig();
    // created once: a capturing lambda per call would allocate on the map's miss path
    private final Function<String, Bucket> newLockFreeBucket = k -> Bucket.builder()
            .addLimit(Limits.bandwidth())
            .withMillisecondPrecision()
            .build();
    private final Function<String, Bucket> newSynchronizedBucket = k -> Bucket.builder()
            .addLimit(Limits.bandwidth())
            .withMillisecondPrecision()
            .withSynchronizationStrategy(SynchronizationStrategy.SYNCHRONIZED)
            .build();
    private final Function<String, RateLimiter> newRateLimiter = k -> RateLimiter.of(k, rateLimiterConfig);

    @Setup(Level.Trial)
    public void setUp() {
        keyNames = Limits.keys(keys);
        retrysafe = InMemoryRateLimitStore.builder()
                .maxKeys(2L * keys + 1000)
                .build()
                .limiter(Limits.policy());
        store = InMemoryRateLimitStore.builder().maxKeys(2L * keys + 1000).build();
        List<List<Charge>> lists = new ArrayList<>(keys);
        for (int i = 0; i < keys; i++) {
            lists.add(List.of(new Charge(Limits.policy(), keyNames[i], 1)));
        }
        charges = List.copyOf(lists);
        fixedNow = retrysafe.nowMicros() + 1_000_000L;
        // track every key first: the measurement is the steady state, not the first use
        for (String key : keyNames) {
            require(retrysafe.tryAcquire(key, 1), "retrysafe");
            lockFreeBuckets.computeIfAbsent(key, newLockFreeBucket).tryConsume(1);
            synchronizedBuckets.computeIfAbsent(key, newSynchronizedBucket).tryConsume(1);
            resilience4j.computeIfAbsent(key, newRateLimiter).acquirePermission();
        }
        for (List<Charge> c : charges) {
            require(store.decide("p", c) instanceof Decision.Allowed, "retrysafe decide");
        }
    }

    private static void require(boolean condition, String what) {
        if (!condition) {
            throw new IllegalStateException(what + ": the benchmark limit refused a decision during set-up");
        }
    }

    /** Retrysafe's allocation-free path: {@code LocalRateLimiter.tryAcquire}, system clock. */
    @Benchmark
    public boolean retrysafe(KeyCursor cursor) {
        return retrysafe.tryAcquire(keyNames[cursor.next(keys)], 1);
    }

    /**
     * Reference, not a comparison: the same decision at a time read once at set-up
     * ({@code tryAcquireOrWaitMicros(key, cost, nowMicros)}), i.e. without the clock read that
     * every other row pays. The difference to {@link #retrysafe} is the price of the clock.
     */
    @Benchmark
    public long retrysafeNoClock(KeyCursor cursor) {
        return retrysafe.tryAcquireOrWaitMicros(keyNames[cursor.next(keys)], 1, fixedNow);
    }

    /**
     * Retrysafe's general path, for reference: {@code decide(partition, List.of(charge))}, which
     * returns a {@link Decision} with the policy's state (what the HTTP filter renders as headers).
     */
    @Benchmark
    public Decision retrysafeDecide(KeyCursor cursor) {
        return store.decide("p", charges.get(cursor.next(keys)));
    }

    /** Bucket4j's default local bucket (lock-free, compare-and-swap of a copied state). */
    @Benchmark
    public boolean bucket4j(KeyCursor cursor) {
        String key = keyNames[cursor.next(keys)];
        Bucket bucket = lockFreeBuckets.get(key);
        if (bucket == null) {
            bucket = lockFreeBuckets.computeIfAbsent(key, newLockFreeBucket);
        }
        return bucket.tryConsume(1);
    }

    /** Bucket4j's local bucket with {@code SynchronizationStrategy.SYNCHRONIZED}. */
    @Benchmark
    public boolean bucket4jSynchronized(KeyCursor cursor) {
        String key = keyNames[cursor.next(keys)];
        Bucket bucket = synchronizedBuckets.get(key);
        if (bucket == null) {
            bucket = synchronizedBuckets.computeIfAbsent(key, newSynchronizedBucket);
        }
        return bucket.tryConsume(1);
    }

    /** Resilience4j: one {@code RateLimiter} per key in a concurrent map (it limits one thing each). */
    @Benchmark
    public boolean resilience4j(KeyCursor cursor) {
        String key = keyNames[cursor.next(keys)];
        RateLimiter limiter = resilience4j.get(key);
        if (limiter == null) {
            limiter = resilience4j.computeIfAbsent(key, newRateLimiter);
        }
        return limiter.acquirePermission();
    }
}
