package dev.retrysafe.server.ratelimits;

import dev.retrysafe.ratelimit.RateLimitStore;
import dev.retrysafe.ratelimit.redis.RedisRateLimitStore;
import dev.retrysafe.ratelimit.redis.RedisStoreMeters;
import dev.retrysafe.server.http.PrometheusText;
import java.math.BigDecimal;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * The Redis rate-limit store's section of {@code GET /metrics}: how long its calls to Redis take
 * ({@code retrysafe_ratelimit_redis_seconds}, a histogram), whether its circuit breaker keeps
 * calls away ({@code retrysafe_ratelimit_redis_breaker_open}, 0 or 1) and how many instances a
 * fail-local policy's quota is shared by ({@code retrysafe_ratelimit_fallback_instances}). Empty
 * while the counters are in memory. Threadsafe.
 */
public final class RedisStoreMetricsText implements Supplier<String> {

    private volatile @Nullable RedisRateLimitStore store;

    /** Reports on {@code store} from now on, if it is a Redis store; any other store has no section. */
    public void attach(RateLimitStore store) {
        this.store = store instanceof RedisRateLimitStore redis ? redis : null;
    }

    @Override
    public String get() {
        RedisRateLimitStore redis = store;
        if (redis == null) {
            return "";
        }
        RedisStoreMeters meters = redis.meters();
        PrometheusText text = new PrometheusText();
        text.family(
                "retrysafe_ratelimit_redis_seconds",
                "histogram",
                "Time a rate-limit call to Redis took, as the request waited (answered, failed or timed out).");
        for (int i = 0; i < meters.bucketBounds().size(); i++) {
            text.sample(
                    "retrysafe_ratelimit_redis_seconds_bucket{le=\""
                            + BigDecimal.valueOf(meters.bucketBounds().get(i))
                                    .stripTrailingZeros()
                                    .toPlainString()
                            + "\"}",
                    meters.bucketCounts().get(i));
        }
        text.sample("retrysafe_ratelimit_redis_seconds_bucket{le=\"+Inf\"}", meters.calls());
        text.sample("retrysafe_ratelimit_redis_seconds_sum", BigDecimal.valueOf(meters.sumSeconds()));
        text.sample("retrysafe_ratelimit_redis_seconds_count", meters.calls());
        text.family(
                "retrysafe_ratelimit_redis_breaker_open",
                "gauge",
                "1 while a circuit breaker keeps rate-limit calls away from Redis (policies fail open, closed or local).");
        text.sample("retrysafe_ratelimit_redis_breaker_open", meters.breakerOpen() ? 1 : 0);
        text.family(
                "retrysafe_ratelimit_fallback_instances",
                "gauge",
                "Instances a fail-local policy's quota is shared by while Redis is unreachable.");
        text.sample("retrysafe_ratelimit_fallback_instances", meters.fallbackInstances());
        return text.toString();
    }
}
