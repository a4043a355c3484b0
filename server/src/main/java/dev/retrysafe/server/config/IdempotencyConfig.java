package dev.retrysafe.server.config;

import java.time.Duration;

/**
 * Idempotency keys.
 *
 * @param enabled {@code false} turns the filter off (benchmarks only)
 * @param lease how long a claim is held before another request may take it over, 1s..1h
 * @param retention how long keys and answers are kept, at least 1m
 * @param purgeInterval how often expired keys are deleted, at least 1s
 */
public record IdempotencyConfig(boolean enabled, Duration lease, Duration retention, Duration purgeInterval) {

    /** Checks every value. */
    public IdempotencyConfig {
        ConfigException.check(lease.compareTo(Duration.ofSeconds(1)) >= 0 && lease.compareTo(Duration.ofHours(1)) <= 0,
                "idempotency.lease", "must be between 1s and 1h, was " + Durations.format(lease));
        ConfigException.check(retention.compareTo(Duration.ofMinutes(1)) >= 0,
                "idempotency.retention", "must be at least 1m, was " + Durations.format(retention));
        // a key must outlive its own lease, or a slow first try could be purged while running
        ConfigException.check(retention.compareTo(lease) > 0,
                "idempotency.retention", "must be longer than idempotency.lease ("
                        + Durations.format(lease) + "), was " + Durations.format(retention));
        ConfigException.check(purgeInterval.compareTo(Duration.ofSeconds(1)) >= 0,
                "idempotency.purge_interval", "must be at least 1s, was " + Durations.format(purgeInterval));
    }
}
