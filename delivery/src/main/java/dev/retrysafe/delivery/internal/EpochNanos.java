package dev.retrysafe.delivery.internal;

import java.time.Instant;

/** Instants as epoch nanoseconds (a {@code long} holds them until the year 2262). Threadsafe. */
final class EpochNanos {

    private static final long NANOS_PER_SECOND = 1_000_000_000L;

    private EpochNanos() {}

    /** {@code at} in nanoseconds since the epoch. */
    static long of(Instant at) {
        return Math.addExact(Math.multiplyExact(at.getEpochSecond(), NANOS_PER_SECOND), at.getNano());
    }

    /** The instant {@code nanos} nanoseconds after the epoch. */
    static Instant toInstant(long nanos) {
        return Instant.ofEpochSecond(Math.floorDiv(nanos, NANOS_PER_SECOND), Math.floorMod(nanos, NANOS_PER_SECOND));
    }
}
