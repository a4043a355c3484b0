package dev.retrysafe.client.internal;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;

/**
 * The default clock of the client: the wall time when it was made plus {@link System#nanoTime()}
 * since, so that a deadline is neither cut short nor stretched when the wall clock is stepped
 * (NTP, a resumed VM), while {@code Retry-After} dates and epoch resets are still compared with
 * (nearly) the wall time. Threadsafe.
 *
 * <p>This is the client's one reader of {@link System#nanoTime()}: nothing else in the module
 * reads it. It is not {@code dev.retrysafe.common.MonotonicClock}, Retrysafe's seam for monotonic
 * time everywhere else, on purpose: the client depends on the JDK alone, so that an application
 * that only retries pulls in one small jar (ARCHITECTURE.md), and {@code common} is internal
 * to the server-side modules. The two are kept alike; a change to one is a change to both.
 */
public final class MonotonicClock extends Clock {

    private final Instant origin = Instant.now();
    private final long originNanos = System.nanoTime();

    @Override
    public Instant instant() {
        return origin.plusNanos(System.nanoTime() - originNanos);
    }

    @Override
    public ZoneId getZone() {
        return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
        if (!ZoneOffset.UTC.equals(zone)) {
            throw new UnsupportedOperationException("the client's clock is always UTC, asked for " + zone);
        }
        return this;
    }
}
