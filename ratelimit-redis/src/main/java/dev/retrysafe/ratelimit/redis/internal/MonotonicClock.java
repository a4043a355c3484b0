package dev.retrysafe.ratelimit.redis.internal;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;

/**
 * A clock that never jumps: wall time at creation plus {@link System#nanoTime()} since. The
 * circuit breaker's cool-down is an in-process timeout, which a wall-clock step (NTP, a VM
 * resumed) must neither cut short nor stretch. Threadsafe.
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
            throw new UnsupportedOperationException("MonotonicClock is always UTC, asked for " + zone);
        }
        return this;
    }
}
