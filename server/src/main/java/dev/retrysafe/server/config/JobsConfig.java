package dev.retrysafe.server.config;

import java.time.Duration;

/**
 * Asynchronous jobs ({@code jobs} in the YAML file).
 *
 * @param workers           most jobs one instance runs at once, 1..1000
 * @param lease             how long a claim lasts without a heartbeat, 1s..1h
 * @param maxAttempts       claims of one job before it fails as worker-lost, 1..100
 * @param resultRetention   how long a result can be downloaded, 1m..365d
 * @param reportMinDuration the least time a report takes (demos and tests), 0s..1h
 */
public record JobsConfig(
        int workers, Duration lease, int maxAttempts, Duration resultRetention, Duration reportMinDuration) {

    /** Checks every value. */
    public JobsConfig {
        ConfigException.check(
                workers >= 1 && workers <= 1000, "jobs.workers", "must be between 1 and 1000, was " + workers);
        ConfigException.check(
                lease.compareTo(Duration.ofSeconds(1)) >= 0 && lease.compareTo(Duration.ofHours(1)) <= 0,
                "jobs.lease",
                "must be between 1s and 1h, was " + Durations.format(lease));
        ConfigException.check(
                maxAttempts >= 1 && maxAttempts <= 100,
                "jobs.max_attempts",
                "must be between 1 and 100, was " + maxAttempts);
        ConfigException.check(
                resultRetention.compareTo(Duration.ofMinutes(1)) >= 0
                        && resultRetention.compareTo(Duration.ofDays(365)) <= 0,
                "jobs.result_retention",
                "must be between 1m and 365d, was " + Durations.format(resultRetention));
        ConfigException.check(
                !reportMinDuration.isNegative() && reportMinDuration.compareTo(Duration.ofHours(1)) <= 0,
                "jobs.report_min_duration",
                "must be between 0s and 1h, was " + Durations.format(reportMinDuration));
    }

    /** The same settings with another least report duration (tests stretch reports). */
    public JobsConfig withReportMinDuration(Duration newDuration) {
        return new JobsConfig(workers, lease, maxAttempts, resultRetention, newDuration);
    }

    /** The same settings with another lease (crash tests shorten it). */
    public JobsConfig withLease(Duration newLease) {
        return new JobsConfig(workers, newLease, maxAttempts, resultRetention, reportMinDuration);
    }
}
