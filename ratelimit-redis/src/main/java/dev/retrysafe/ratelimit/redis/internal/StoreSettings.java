package dev.retrysafe.ratelimit.redis.internal;

import java.time.Clock;
import java.time.Duration;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * What a Redis rate-limit store was built with (see {@code RedisRateLimitStore.Builder} for the
 * meaning of each).
 *
 * @param keyPrefix      put before every key
 * @param commandTimeout how long a decision waits for Redis
 * @param failuresToOpen consecutive failures that open the circuit breaker
 * @param openFor        how long the breaker stays open before a probe
 * @param breakerClock   measures {@code openFor}
 * @param minimumKeyTtl  the least time a written key lives
 * @param timeSource     the time decisions are made at instead of Redis's clock, or null
 */
public record StoreSettings(
        String keyPrefix,
        Duration commandTimeout,
        int failuresToOpen,
        Duration openFor,
        Clock breakerClock,
        Duration minimumKeyTtl,
        @Nullable Clock timeSource) {

    public StoreSettings {
        new KeyLayout(keyPrefix); // validates the prefix
        requirePositive("commandTimeout", commandTimeout);
        requirePositive("openFor", openFor);
        Objects.requireNonNull(breakerClock, "breakerClock");
        if (failuresToOpen < 1) {
            throw new IllegalArgumentException("failuresToOpen must be at least 1: " + failuresToOpen);
        }
        if (minimumKeyTtl.isNegative()) {
            throw new IllegalArgumentException("minimumKeyTtl must not be negative: " + minimumKeyTtl);
        }
    }

    /** Checks that {@code value}, the setting {@code name}, is above zero. */
    public static Duration requirePositive(String name, Duration value) {
        if (value.isNegative() || value.isZero()) {
            throw new IllegalArgumentException(name + " must be positive: " + value);
        }
        return value;
    }
}
