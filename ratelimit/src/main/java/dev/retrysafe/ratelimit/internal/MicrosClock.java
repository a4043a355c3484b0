package dev.retrysafe.ratelimit.internal;

import java.time.Clock;
import java.time.Instant;

/**
 * A {@link Clock} read as microseconds since the epoch. The system clock is read through
 * {@link System#currentTimeMillis()}, because {@link Clock#instant()} allocates an
 * {@link Instant} per call; the price is millisecond resolution, which the arithmetic tolerates
 * (requests within one millisecond share a time; the emission interval still spaces them).
 * Any other clock (a test's {@code FakeClock}) is read at microsecond precision.
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
            return System.currentTimeMillis() * 1000L;
        }
        Instant now = clock.instant();
        return Math.addExact(Math.multiplyExact(now.getEpochSecond(), 1_000_000L), now.getNano() / 1000);
    }
}
