package dev.retrysafe.server.config;

import dev.retrysafe.idempotency.ClaimMode;
import java.time.Duration;

/**
 * Idempotency keys.
 *
 * @param enabled {@code false} turns the filter off (benchmarks only)
 * @param lease how long a claim is held before another request may take it over, 1s..1h
 * @param retention how long keys and answers are kept, at least 1m
 * @param purgeInterval how often expired keys are deleted, at least 1s
 * @param claims how a key is held while its request runs
 */
public record IdempotencyConfig(
        boolean enabled, Duration lease, Duration retention, Duration purgeInterval, Claims claims) {

    /** The {@code idempotency.claims} setting. */
    public enum Claims {
        /** Locks where the database allows them (PostgreSQL, the embedded database), else rows. */
        AUTO,
        /** Advisory locks on PostgreSQL, in-process claims on the embedded database; an error elsewhere. */
        LOCKS,
        /** Committed claim rows with leases: any database, any number of instances. */
        ROWS
    }

    /** The settings with {@code claims: auto}. */
    public IdempotencyConfig(boolean enabled, Duration lease, Duration retention, Duration purgeInterval) {
        this(enabled, lease, retention, purgeInterval, Claims.AUTO);
    }

    /**
     * The claim mode to use on {@code database}: only the embedded database is known to have a
     * single process writing to it, so an external H2 (which several instances may share) gets rows.
     *
     * @throws ConfigException for {@code locks} on an external H2
     */
    public ClaimMode claimMode(DatabaseConfig database) {
        ClaimMode locks = database.postgres()
                ? ClaimMode.POSTGRES_ADVISORY_LOCKS
                : database.embedded() ? ClaimMode.IN_PROCESS : null;
        return switch (claims) {
            case ROWS -> ClaimMode.ROWS;
            case AUTO -> locks != null ? locks : ClaimMode.ROWS;
            case LOCKS -> {
                if (locks == null) {
                    throw new ConfigException(
                            "idempotency.claims",
                            "idempotency.claims is locks, which needs PostgreSQL or the embedded database;"
                                    + " an external H2 may be shared by several instances: use rows");
                }
                yield locks;
            }
        };
    }

    /** Checks every value. */
    public IdempotencyConfig {
        ConfigException.check(
                lease.compareTo(Duration.ofSeconds(1)) >= 0 && lease.compareTo(Duration.ofHours(1)) <= 0,
                "idempotency.lease",
                "must be between 1s and 1h, was " + Durations.format(lease));
        ConfigException.check(
                retention.compareTo(Duration.ofMinutes(1)) >= 0,
                "idempotency.retention",
                "must be at least 1m, was " + Durations.format(retention));
        // a key must outlive its own lease, or a slow first try could be purged while running
        ConfigException.check(
                retention.compareTo(lease) > 0,
                "idempotency.retention",
                "must be longer than idempotency.lease (" + Durations.format(lease) + "), was "
                        + Durations.format(retention));
        ConfigException.check(
                purgeInterval.compareTo(Duration.ofSeconds(1)) >= 0,
                "idempotency.purge_interval",
                "must be at least 1s, was " + Durations.format(purgeInterval));
    }
}
