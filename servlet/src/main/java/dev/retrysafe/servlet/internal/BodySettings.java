package dev.retrysafe.servlet.internal;

import dev.retrysafe.servlet.ReadDeadlines;
import dev.retrysafe.servlet.RequestBodyFilter;
import java.time.Duration;
import java.util.function.LongSupplier;

/**
 * The request body filter's configuration, checked. Immutable.
 *
 * @param maxBodyBytes     the largest body accepted
 * @param timeoutNanos     how long the whole body may take, from the request's headers
 * @param minRate          the least average rate, in bytes per second, from {@code graceNanos} on (0: none)
 * @param graceNanos       how long a body may take before the rate counts
 * @param maxBufferedBytes what all bodies being read or held may take together
 * @param deadlines        how the container ends a blocked read
 * @param listener         told of refusals and failures (metrics)
 * @param nanoTime         monotonic time in nanoseconds
 * @param problemTypeBase  prefix of problem type URIs
 */
public record BodySettings(
        int maxBodyBytes,
        long timeoutNanos,
        long minRate,
        long graceNanos,
        long maxBufferedBytes,
        ReadDeadlines deadlines,
        RequestBodyFilter.Listener listener,
        LongSupplier nanoTime,
        String problemTypeBase) {

    /** Checks every value. */
    public BodySettings {
        FilterSettings.checkMaxBodyBytes(maxBodyBytes);
        check(timeoutNanos > 0, "bodyTimeout must be positive: " + Duration.ofNanos(timeoutNanos));
        check(minRate >= 0, "minBodyRate must be 0 (none) or more bytes per second: " + minRate);
        check(graceNanos >= 0, "grace must not be negative: " + Duration.ofNanos(graceNanos));
        check(
                maxBufferedBytes >= maxBodyBytes + 1L,
                "maxBufferedBytes must hold at least one whole body (maxBodyBytes + 1 = " + (maxBodyBytes + 1L) + "): "
                        + maxBufferedBytes);
        FilterSettings.checkProblemTypeBase(problemTypeBase);
    }

    private static void check(boolean ok, String message) {
        if (!ok) {
            throw new IllegalArgumentException(message);
        }
    }
}
