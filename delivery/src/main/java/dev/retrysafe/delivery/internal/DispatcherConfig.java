package dev.retrysafe.delivery.internal;

import dev.retrysafe.delivery.AttemptObserver;
import dev.retrysafe.delivery.AttemptSender;
import dev.retrysafe.delivery.EventSink;
import dev.retrysafe.delivery.RetrySchedule;
import dev.retrysafe.leasedwork.internal.Checks;
import java.time.Clock;
import java.time.Duration;
import java.util.Objects;
import java.util.random.RandomGenerator;
import javax.sql.DataSource;

/**
 * The dispatcher's settings, checked once. Immutable (its collaborators are threadsafe).
 *
 * @param dataSource             the database
 * @param sender                 sends attempts
 * @param clock                  wall clock for every stored time
 * @param schedule               retry schedule and slow-down rules
 * @param lease                  how long a claim lasts; must exceed the sender's timeout
 * @param batchSize              most deliveries one claim takes
 * @param workers                most attempts in flight in this instance
 * @param pollInterval           the wait between claims when nothing (more) is due
 * @param maxInFlightPerEndpoint most attempts in flight to one endpoint
 * @param disableAfter           how long an endpoint may fail every attempt before it is disabled
 * @param shutdownTimeout        how long {@code close()} lets attempts in flight finish
 * @param instanceId             names this instance's claims
 * @param random                 jitter source (threadsafe)
 * @param eventSink              where the disabled-endpoint event goes
 * @param rateLookahead          how far ahead a claim reserves the rate slots of rate-limited
 *                               endpoints; shorter than the lease
 * @param attemptObserver        told of every stored attempt, after the commit
 */
public record DispatcherConfig(
        DataSource dataSource,
        AttemptSender sender,
        Clock clock,
        RetrySchedule schedule,
        Duration lease,
        int batchSize,
        int workers,
        Duration pollInterval,
        int maxInFlightPerEndpoint,
        Duration disableAfter,
        Duration shutdownTimeout,
        String instanceId,
        RandomGenerator random,
        EventSink eventSink,
        Duration rateLookahead,
        AttemptObserver attemptObserver) {

    /** Checks every value; messages name the parameter and the bad value. */
    public DispatcherConfig {
        Objects.requireNonNull(dataSource, "dataSource");
        Objects.requireNonNull(sender, "sender");
        Objects.requireNonNull(clock, "clock");
        Objects.requireNonNull(schedule, "schedule");
        Checks.range("lease", lease, Duration.ofSeconds(1), Duration.ofHours(1));
        Checks.range("batchSize", batchSize, 1, 10_000);
        Checks.range("workers", workers, 1, 100_000);
        Checks.range("pollInterval", pollInterval, Duration.ofMillis(1), Duration.ofMinutes(10));
        Checks.range("maxInFlightPerEndpoint", maxInFlightPerEndpoint, 1, 10_000);
        Checks.range("disableAfter", disableAfter, Duration.ofMinutes(1), Duration.ofDays(365));
        Checks.range("shutdownTimeout", shutdownTimeout, Duration.ZERO, Duration.ofHours(1));
        Objects.requireNonNull(instanceId, "instanceId");
        if (instanceId.isBlank() || instanceId.length() > 128) {
            throw new IllegalArgumentException("instanceId must be 1 to 128 characters and not blank, was '"
                    + DeliveryChecks.abbreviate(instanceId) + "'");
        }
        Objects.requireNonNull(random, "random");
        Objects.requireNonNull(eventSink, "eventSink");
        Checks.range("rateLookahead", rateLookahead, Duration.ZERO, MAX_RATE_LOOKAHEAD);
        if (rateLookahead.compareTo(lease) >= 0) {
            throw new IllegalArgumentException("rateLookahead (" + rateLookahead + ") must be shorter than the lease ("
                    + lease + "): an attempt waits for its slot while its claim lasts");
        }
        Objects.requireNonNull(attemptObserver, "attemptObserver");
    }

    /** The longest rate look-ahead. */
    public static final Duration MAX_RATE_LOOKAHEAD = Duration.ofSeconds(10);
}
