package dev.retrysafe.common;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;

/**
 * Retrysafe's one seam for monotonic time: the only place outside the zero-dependency client
 * that reads {@link System#nanoTime()}. In-process timeouts, pacing and elapsed-time meters read
 * {@link #nanoTime()}; code that wants an injectable clock takes a {@link Clock} and gets
 * {@link #clock()} in production and a fake in tests. Wall time for anything stored (leases,
 * expiry, next attempt) comes from {@link Clock#systemUTC()} instead.
 *
 * <p>Threadsafe.
 */
public final class MonotonicClock extends Clock {

    private final Instant origin;
    private final long originNanos;

    private MonotonicClock() {
        this.origin = Instant.now();
        this.originNanos = nanoTime();
    }

    /** The JVM's monotonic nanosecond counter; differences between two readings are elapsed time. */
    public static long nanoTime() {
        return System.nanoTime();
    }

    /**
     * A clock that never jumps: the wall time at this call plus the monotonic time since. A
     * wall-clock step (NTP, a resumed VM) neither cuts short nor stretches what it measures.
     */
    public static Clock clock() {
        return new MonotonicClock();
    }

    @Override
    public Instant instant() {
        return origin.plusNanos(nanoTime() - originNanos);
    }

    @Override
    public ZoneId getZone() {
        return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
        if (!ZoneOffset.UTC.equals(zone)) {
            throw new UnsupportedOperationException("a monotonic clock is always UTC, asked for " + zone);
        }
        return this;
    }
}
