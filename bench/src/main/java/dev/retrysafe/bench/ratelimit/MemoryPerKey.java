package dev.retrysafe.bench.ratelimit;

import dev.retrysafe.ratelimit.InMemoryRateLimitStore;
import dev.retrysafe.ratelimit.LocalRateLimiter;
import dev.retrysafe.ratelimit.Policy;
import io.github.bucket4j.Bandwidth;
import io.github.bucket4j.Bucket;
import io.github.bucket4j.local.SynchronizationStrategy;
import io.github.resilience4j.ratelimiter.RateLimiter;
import io.github.resilience4j.ratelimiter.RateLimiterConfig;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.lang.ref.Reference;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Bytes of limiter state per tracked key, measured on the heap: create the key strings, collect
 * garbage until the used heap settles, read it; track every key in the library (one allowed
 * decision each); collect and read again. The difference over the number of keys is the cost of
 * tracking a key: the library's per-key objects or arrays and, for the map-based libraries, the
 * {@code ConcurrentHashMap} entry that finds them; not the key string, which the caller has
 * anyway. Run with {@code -XX:+UseSerialGC} (exact used-heap figures after a full collection)
 * and a heap that holds everything without growing during the fill.
 *
 * <p>The limit is 1 unit per hour: every key stays active (none is idle or droppable) for the
 * whole measurement. The per-key state does not depend on the limit's values.
 *
 * <p>Usage: {@code MemoryPerKey <retrysafe|bucket4j|bucket4j-synchronized|resilience4j> <keys>};
 * prints one line {@code library keys bytesPerKey [reported]}.
 */
public final class MemoryPerKey {

    private MemoryPerKey() {}

    public static void main(String[] args) {
        if (args.length != 2) {
            System.err.println("usage: MemoryPerKey <retrysafe|bucket4j|bucket4j-synchronized|resilience4j> <keys>");
            System.exit(2);
        }
        String library = args[0];
        int count = Integer.parseInt(args[1]);
        String[] keys = Limits.keys(count);
        long before = settledHeapUsed();
        Object tracked;
        String reported = "";
        switch (library) {
            case "retrysafe" -> {
                InMemoryRateLimitStore store =
                        InMemoryRateLimitStore.builder().maxKeys(2L * count).build();
                LocalRateLimiter limiter = store.limiter(
                        Policy.builder("memory").limit(1, Duration.ofHours(1)).build());
                for (String key : keys) {
                    require(limiter.tryAcquire(key, 1));
                }
                require(store.trackedKeys() == count);
                reported =
                        String.format(Locale.ROOT, " (store.stateBytes(): %.1f)", store.stateBytes() / (double) count);
                tracked = store;
            }
            case "bucket4j", "bucket4j-synchronized" -> {
                Bandwidth limit = Bandwidth.builder()
                        .capacity(1)
                        .refillGreedy(1, Duration.ofHours(1))
                        .build();
                SynchronizationStrategy strategy = library.equals("bucket4j")
                        ? SynchronizationStrategy.LOCK_FREE
                        : SynchronizationStrategy.SYNCHRONIZED;
                ConcurrentHashMap<String, Bucket> buckets = new ConcurrentHashMap<>();
                for (String key : keys) {
                    require(buckets.computeIfAbsent(
                                    key,
                                    k -> Bucket.builder()
                                            .addLimit(limit)
                                            .withMillisecondPrecision()
                                            .withSynchronizationStrategy(strategy)
                                            .build())
                            .tryConsume(1));
                }
                tracked = buckets;
            }
            case "resilience4j" -> {
                RateLimiterConfig config = RateLimiterConfig.custom()
                        .limitForPeriod(1)
                        .limitRefreshPeriod(Duration.ofHours(1))
                        .timeoutDuration(Duration.ZERO)
                        .build();
                ConcurrentHashMap<String, RateLimiter> limiters = new ConcurrentHashMap<>();
                for (String key : keys) {
                    require(limiters.computeIfAbsent(key, k -> RateLimiter.of(k, config))
                            .acquirePermission());
                }
                tracked = limiters;
            }
            default -> throw new IllegalArgumentException("unknown library: " + library);
        }
        long after = settledHeapUsed();
        System.out.printf(Locale.ROOT, "%s %d %.1f%s%n", library, count, (after - before) / (double) count, reported);
        Reference.reachabilityFence(tracked);
        Reference.reachabilityFence(keys);
    }

    private static void require(boolean condition) {
        if (!condition) {
            throw new IllegalStateException("a decision was refused while filling the keys");
        }
    }

    /** The used heap once full collections stop changing it. */
    private static long settledHeapUsed() {
        MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
        long previous = Long.MAX_VALUE;
        for (int i = 0; i < 10; i++) {
            System.gc();
            long used = memory.getHeapMemoryUsage().getUsed();
            if (Math.abs(previous - used) < 1024) {
                return used;
            }
            previous = used;
        }
        return previous;
    }
}
