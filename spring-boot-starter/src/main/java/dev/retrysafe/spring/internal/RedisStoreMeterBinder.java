package dev.retrysafe.spring.internal;

import dev.retrysafe.ratelimit.redis.RedisRateLimitStore;
import io.micrometer.core.instrument.FunctionTimer;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.util.concurrent.TimeUnit;

/**
 * The Redis rate-limit store's own meters, under the Prometheus names of the Retrysafe server's
 * {@code /metrics}: {@code retrysafe_ratelimit_redis_seconds} (count and sum of every script
 * call to Redis, as the request waited for it; the server adds the buckets) and
 * {@code retrysafe_ratelimit_redis_breaker_open} (1 while the circuit breaker keeps calls away).
 * Loaded only when ratelimit-redis is on the classpath. Threadsafe.
 */
public final class RedisStoreMeterBinder implements MeterBinder {

    /** Calls to Redis: count and total time. */
    public static final String CALLS = "retrysafe.ratelimit.redis";
    /** 1 while the breaker is open, else 0. */
    public static final String BREAKER_OPEN = "retrysafe.ratelimit.redis.breaker.open";

    private final RedisRateLimitStore store;

    /** Meters of {@code store}. */
    public RedisStoreMeterBinder(RedisRateLimitStore store) {
        this.store = store;
    }

    @Override
    public void bindTo(MeterRegistry registry) {
        FunctionTimer.builder(
                        CALLS, store, s -> s.meters().calls(), s -> s.meters().sumSeconds(), TimeUnit.SECONDS)
                .description("Rate-limit script calls to Redis, answered, failed or timed out")
                .register(registry);
        Gauge.builder(BREAKER_OPEN, store, s -> s.breakerOpen() ? 1 : 0)
                .description("1 while a circuit breaker keeps rate-limit calls away from Redis")
                .register(registry);
    }
}
