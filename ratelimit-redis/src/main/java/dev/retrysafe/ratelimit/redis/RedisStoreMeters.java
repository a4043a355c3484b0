package dev.retrysafe.ratelimit.redis;

import java.util.List;

/**
 * What a {@link RedisRateLimitStore} measured about itself, at one moment: for metrics
 * ({@code retrysafe_ratelimit_redis_seconds}, {@code retrysafe_ratelimit_redis_breaker_open} in
 * the Retrysafe server's {@code /metrics}). Immutable.
 *
 * @param breakerOpen      whether a circuit breaker keeps calls away from Redis now
 * @param bucketBounds     upper bounds of the latency buckets, in seconds, ascending
 * @param bucketCounts     script calls per bucket, cumulative (each counts the calls that took at
 *                         most its bound), one per bound
 * @param calls            every script call that went to Redis, whatever its end (the
 *                         {@code +Inf} bucket)
 * @param sumSeconds       the time those calls took, summed
 * @param fallbackInstances how many shares a fail-local policy's quota is cut into
 */
public record RedisStoreMeters(
        boolean breakerOpen,
        List<Double> bucketBounds,
        List<Long> bucketCounts,
        long calls,
        double sumSeconds,
        int fallbackInstances) {

    public RedisStoreMeters {
        bucketBounds = List.copyOf(bucketBounds);
        bucketCounts = List.copyOf(bucketCounts);
        if (bucketBounds.size() != bucketCounts.size()) {
            throw new IllegalArgumentException("one count per bucket bound");
        }
    }
}
