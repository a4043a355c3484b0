package dev.retrysafe.webhooks.internal;

import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * A verifier's settings, checked once. Immutable and threadsafe (the keys are never changed).
 *
 * @param keys the HMAC keys, at least one
 * @param tolerance how far a timestamp may be from the clock, either way
 * @param clock the wall clock
 */
public record VerifierConfig(List<byte[]> keys, Duration tolerance, Clock clock) {

    private static final Duration MAX_TOLERANCE = Duration.ofDays(1);

    /** Checks every setting. */
    public VerifierConfig {
        keys = List.copyOf(keys);
        if (keys.isEmpty()) {
            throw new IllegalArgumentException("keys must not be empty");
        }
        checkTolerance(tolerance);
        Objects.requireNonNull(clock, "clock");
    }

    /** Rejects a tolerance that is not whole seconds within 1 second..1 day. */
    public static Duration checkTolerance(Duration tolerance) {
        Objects.requireNonNull(tolerance, "tolerance");
        if (tolerance.getNano() != 0 || tolerance.getSeconds() < 1 || tolerance.compareTo(MAX_TOLERANCE) > 0) {
            throw new IllegalArgumentException("tolerance must be whole seconds from 1 s to 1 day, was " + tolerance);
        }
        return tolerance;
    }
}
