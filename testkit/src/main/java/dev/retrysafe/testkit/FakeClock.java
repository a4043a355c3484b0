package dev.retrysafe.testkit;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A wall clock that only moves when a test moves it, so that leases, expiry and purges are
 * tested without sleeping. This class is threadsafe.
 */
public final class FakeClock extends Clock {

    private final AtomicReference<Instant> now;

    /** A clock standing at {@code start}. */
    public FakeClock(Instant start) {
        this.now = new AtomicReference<>(start);
    }

    /** A clock standing at 2026-01-01T00:00:00Z. */
    public FakeClock() {
        this(Instant.parse("2026-01-01T00:00:00Z"));
    }

    /** Moves the clock forward by {@code amount} (which must not be negative). */
    public void advance(Duration amount) {
        if (amount.isNegative()) {
            throw new IllegalArgumentException("amount must not be negative: " + amount);
        }
        now.updateAndGet(t -> t.plus(amount));
    }

    /** Sets the clock to {@code instant}, backwards too (to test clock skew). */
    public void set(Instant instant) {
        now.set(instant);
    }

    @Override
    public Instant instant() {
        return now.get();
    }

    @Override
    public long millis() {
        return now.get().toEpochMilli();
    }

    @Override
    public ZoneId getZone() {
        return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
        if (!ZoneOffset.UTC.equals(zone)) {
            throw new UnsupportedOperationException("FakeClock is always UTC, asked for " + zone);
        }
        return this;
    }
}
