package dev.retrysafe.server.config;

import java.time.Duration;

/**
 * What one request may cost the server before the application sees it ({@code limits} in the
 * YAML file): its body's size, how fast that body must arrive, the memory all bodies in flight
 * may take, and how many requests one API key or one address may have in flight.
 *
 * @param maxBodyBytes          largest request body, 1 byte..64 MiB
 * @param bodyTimeout           how long a whole body may take after the headers, 100ms..10m
 * @param minBodyRate           least average body rate in bytes per second once past the grace, 0 (none)..100 MiB
 * @param minBodyRateGrace      how long a body may take before the rate counts, 0s..10m
 * @param maxBufferedBodyBytes  memory all bodies in flight may take, max_body_bytes + 1..16 GiB
 * @param maxInFlightPerKey     requests one API key may have in flight on one instance, 1..100000
 * @param maxInFlightPerAddress requests one client address may have in flight on one instance, 1..100000
 * @param shedding              load shedding, read from {@code rate_limits.shedding} (where users look
 *                              for it beside the limits), but like the others here a bound the
 *                              instance sets for its own sake: it works with rate limits off too
 */
public record LimitsConfig(
        int maxBodyBytes,
        Duration bodyTimeout,
        long minBodyRate,
        Duration minBodyRateGrace,
        long maxBufferedBodyBytes,
        int maxInFlightPerKey,
        int maxInFlightPerAddress,
        SheddingConfig shedding) {

    /** Checks every value. */
    public LimitsConfig {
        ConfigException.check(
                maxBodyBytes >= 1 && maxBodyBytes <= 64 * 1024 * 1024,
                "limits.max_body_bytes",
                "must be between 1 and 67108864, was " + maxBodyBytes);
        ConfigException.check(
                bodyTimeout.compareTo(Duration.ofMillis(100)) >= 0
                        && bodyTimeout.compareTo(Duration.ofMinutes(10)) <= 0,
                "limits.body_timeout",
                "must be between 100ms and 10m, was " + Durations.format(bodyTimeout));
        ConfigException.check(
                minBodyRate >= 0 && minBodyRate <= 100L * 1024 * 1024,
                "limits.min_body_rate",
                "must be between 0 (none) and 104857600 bytes per second, was " + minBodyRate);
        ConfigException.check(
                !minBodyRateGrace.isNegative() && minBodyRateGrace.compareTo(Duration.ofMinutes(10)) <= 0,
                "limits.min_body_rate_grace",
                "must be between 0s and 10m, was " + Durations.format(minBodyRateGrace));
        ConfigException.check(
                maxBufferedBodyBytes > maxBodyBytes && maxBufferedBodyBytes <= 16L << 30,
                "limits.max_buffered_body_bytes",
                "must be more than limits.max_body_bytes (" + maxBodyBytes + ") and at most 17179869184, was "
                        + maxBufferedBodyBytes);
        ConfigException.check(
                maxInFlightPerKey >= 1 && maxInFlightPerKey <= 100_000,
                "limits.max_in_flight_per_key",
                "must be between 1 and 100000, was " + maxInFlightPerKey);
        ConfigException.check(
                maxInFlightPerAddress >= 1 && maxInFlightPerAddress <= 100_000,
                "limits.max_in_flight_per_address",
                "must be between 1 and 100000, was " + maxInFlightPerAddress);
    }

    /** The same limits with another largest body. */
    public LimitsConfig withMaxBodyBytes(int newMaxBodyBytes) {
        return new LimitsConfig(
                newMaxBodyBytes,
                bodyTimeout,
                minBodyRate,
                minBodyRateGrace,
                Math.max(maxBufferedBodyBytes, newMaxBodyBytes + 1L),
                maxInFlightPerKey,
                maxInFlightPerAddress,
                shedding);
    }

    /** The same limits with another body deadline and rate (slow-client tests shorten them). */
    public LimitsConfig withBodyDeadline(Duration newTimeout, long newMinRate, Duration newGrace) {
        return new LimitsConfig(
                maxBodyBytes,
                newTimeout,
                newMinRate,
                newGrace,
                maxBufferedBodyBytes,
                maxInFlightPerKey,
                maxInFlightPerAddress,
                shedding);
    }

    /** The same limits with another memory bound for bodies in flight. */
    public LimitsConfig withMaxBufferedBodyBytes(long newMax) {
        return new LimitsConfig(
                maxBodyBytes,
                bodyTimeout,
                minBodyRate,
                minBodyRateGrace,
                newMax,
                maxInFlightPerKey,
                maxInFlightPerAddress,
                shedding);
    }

    /** The same limits with other in-flight bounds. */
    public LimitsConfig withMaxInFlight(int perKey, int perAddress) {
        return new LimitsConfig(
                maxBodyBytes,
                bodyTimeout,
                minBodyRate,
                minBodyRateGrace,
                maxBufferedBodyBytes,
                perKey,
                perAddress,
                shedding);
    }

    /** The same limits with other shedding settings. */
    public LimitsConfig withShedding(SheddingConfig newShedding) {
        return new LimitsConfig(
                maxBodyBytes,
                bodyTimeout,
                minBodyRate,
                minBodyRateGrace,
                maxBufferedBodyBytes,
                maxInFlightPerKey,
                maxInFlightPerAddress,
                newShedding);
    }
}
