package dev.retrysafe.ratelimit.redis.internal.transport;

import java.time.Duration;

/**
 * What the transport of a Redis rate-limit store is built with (see
 * {@code RedisRateLimitStore.Builder} for the meaning of each).
 *
 * @param commandTimeout        how long a call waits for Redis, and for a connection under way
 * @param connectTimeout        how long one connection attempt may take
 * @param topologyRefreshPeriod how often a cluster client the store creates reloads the layout
 * @param batching              whether concurrent calls to a standalone Redis may go as one
 * @param directConnection      whether a call alone may go on a plain connection of its own
 * @param directConnectionSpin  how long a call on that connection polls for its reply
 */
public record TransportSettings(
        Duration commandTimeout,
        Duration connectTimeout,
        Duration topologyRefreshPeriod,
        boolean batching,
        boolean directConnection,
        Duration directConnectionSpin) {

    public TransportSettings {
        requireSpinLimit(directConnectionSpin);
    }

    /** Checks that {@code limit} is an accepted {@code directConnectionSpin}: 0 to 10 ms. */
    public static Duration requireSpinLimit(Duration limit) {
        if (limit.isNegative() || limit.compareTo(SpinWait.MAX_LIMIT) > 0) {
            throw new IllegalArgumentException("directConnectionSpin must be between 0 and 10ms: " + limit);
        }
        return limit;
    }

    /** The default {@code directConnectionSpin}. */
    public static Duration defaultSpinLimit() {
        return SpinWait.DEFAULT_LIMIT;
    }
}
