package dev.retrysafe.ratelimit.internal;

import java.time.Clock;
import java.time.Instant;

/**
 * A {@link Clock} read as microseconds since the epoch. The system clock is read through
 * {@link CoarseClock}, a field refreshed from {@link System#currentTimeMillis()} every
 * millisecond, because {@link Clock#instant()} allocates an {@link Instant} per call and reading
 * the clock at all costs more than the rest of a decision; the price is millisecond resolution
 * and up to about a tick of lag, which the arithmetic tolerates (requests within one millisecond
 * share a time; the emission interval still spaces them). Any other clock (a test's
 * {@code FakeClock}) is read directly, at microsecond precision.
 */
public final class MicrosClock {

    private final Clock clock;
    private final boolean system;

    public MicrosClock(Clock clock) {
        this.clock = clock;
        // systemUTC() and systemDefaultZone() share one class: both read the same instant
        this.system = clock.getClass() == Clock.systemUTC().getClass();
    }

    public long nowMicros() {
        if (system) {
            return CoarseClock.nowMicros();
        }
        Instant now = clock.instant();
        return Math.addExact(Math.multiplyExact(now.getEpochSecond(), 1_000_000L), now.getNano() / 1000);
    }
}
