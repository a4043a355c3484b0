package dev.retrysafe.server.config;

import dev.retrysafe.delivery.TargetGuard;
import java.time.Duration;
import java.util.List;

/**
 * Webhook delivery ({@code webhooks} in the YAML file).
 *
 * @param timeout                connect + response time of one attempt, 1ms..10m
 * @param retrySchedule          the wait before each attempt, the first one 0s; 1..100 entries of at most 30d
 * @param jitter                 the spread of each wait, 0 (none) to 1
 * @param disableAfter           how long an endpoint may fail every attempt before it is disabled, 1m..365d
 * @param maxInFlightPerEndpoint most attempts in flight to one endpoint, 1..10000
 * @param allowPrivateTargets    CIDR blocks that webhook URLs may point at although they are not
 *                               public (local testing only)
 * @param requireHttps           whether plain {@code http} URLs are refused
 * @param retention              how long deliveries, their attempts and events are kept, 1h..3650d
 *                               (see {@link dev.retrysafe.delivery.DeliveryRetention})
 */
public record WebhooksConfig(
        Duration timeout,
        List<Duration> retrySchedule,
        double jitter,
        Duration disableAfter,
        int maxInFlightPerEndpoint,
        List<String> allowPrivateTargets,
        boolean requireHttps,
        Duration retention) {

    private static final int MAX_SCHEDULE = 100;
    private static final Duration LONGEST_DELAY = Duration.ofDays(30);

    /** How long deliveries, attempts and events are kept unless configured otherwise. */
    public static final Duration DEFAULT_RETENTION = Duration.ofDays(30);

    /** Checks every value and copies the lists. */
    public WebhooksConfig {
        ConfigException.check(
                timeout.compareTo(Duration.ofMillis(1)) >= 0 && timeout.compareTo(Duration.ofMinutes(10)) <= 0,
                "webhooks.timeout",
                "must be between 1ms and 10m, was " + Durations.format(timeout));
        retrySchedule = List.copyOf(retrySchedule);
        ConfigException.check(
                !retrySchedule.isEmpty() && retrySchedule.size() <= MAX_SCHEDULE,
                "webhooks.retry_schedule",
                "must list 1 to " + MAX_SCHEDULE + " durations, had " + retrySchedule.size());
        ConfigException.check(
                retrySchedule.getFirst().isZero(),
                "webhooks.retry_schedule",
                "must start with 0s (the first attempt is made at once), was "
                        + Durations.format(retrySchedule.getFirst()));
        for (Duration d : retrySchedule) {
            ConfigException.check(
                    !d.isNegative() && d.compareTo(LONGEST_DELAY) <= 0,
                    "webhooks.retry_schedule",
                    "entries must be between 0s and 30d, one was " + Durations.format(d));
        }
        ConfigException.check(jitter >= 0 && jitter <= 1, "webhooks.jitter", "must be between 0 and 1, was " + jitter);
        ConfigException.check(
                disableAfter.compareTo(Duration.ofMinutes(1)) >= 0 && disableAfter.compareTo(Duration.ofDays(365)) <= 0,
                "webhooks.disable_after",
                "must be between 1m and 365d, was " + Durations.format(disableAfter));
        ConfigException.check(
                maxInFlightPerEndpoint >= 1 && maxInFlightPerEndpoint <= 10_000,
                "webhooks.max_in_flight_per_endpoint",
                "must be between 1 and 10000, was " + maxInFlightPerEndpoint);
        ConfigException.check(
                retention.compareTo(Duration.ofHours(1)) >= 0 && retention.compareTo(Duration.ofDays(3650)) <= 0,
                "webhooks.retention",
                "must be between 1h and 3650d, was " + Durations.format(retention));
        allowPrivateTargets = List.copyOf(allowPrivateTargets);
        try {
            TargetGuard.builder().allowPrivateTargets(allowPrivateTargets);
        } catch (IllegalArgumentException e) {
            throw new ConfigException(
                    "webhooks.allow_private_targets",
                    "webhooks.allow_private_targets entries must be CIDR blocks such as 127.0.0.0/8 or ::1/128: "
                            + e.getMessage());
        }
    }

    /** The same settings with another retry schedule and jitter (tests compress the schedule). */
    public WebhooksConfig withRetrySchedule(List<Duration> newSchedule, double newJitter) {
        return new WebhooksConfig(
                timeout,
                newSchedule,
                newJitter,
                disableAfter,
                maxInFlightPerEndpoint,
                allowPrivateTargets,
                requireHttps,
                retention);
    }

    /** The same settings with other private targets and HTTPS rule (tests with a loopback receiver). */
    public WebhooksConfig withTargets(List<String> newAllowPrivateTargets, boolean newRequireHttps) {
        return new WebhooksConfig(
                timeout,
                retrySchedule,
                jitter,
                disableAfter,
                maxInFlightPerEndpoint,
                newAllowPrivateTargets,
                newRequireHttps,
                retention);
    }

    /** The same settings with another retention. */
    public WebhooksConfig withRetention(Duration newRetention) {
        return new WebhooksConfig(
                timeout,
                retrySchedule,
                jitter,
                disableAfter,
                maxInFlightPerEndpoint,
                allowPrivateTargets,
                requireHttps,
                newRetention);
    }

    /** The same settings with another attempt timeout. */
    public WebhooksConfig withTimeout(Duration newTimeout) {
        return new WebhooksConfig(
                newTimeout,
                retrySchedule,
                jitter,
                disableAfter,
                maxInFlightPerEndpoint,
                allowPrivateTargets,
                requireHttps,
                retention);
    }
}
