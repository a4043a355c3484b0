package dev.retrysafe.delivery.internal;

import org.jspecify.annotations.Nullable;

/**
 * Strict pacing of one endpoint's attempts to at most {@code rate} per second. Attempts start at
 * slots at least {@code ceil(1 s / rate)} apart on one timeline, which every instance shares
 * through the endpoint row ({@code rate_next_slot_ns}, the earliest free slot). No credit builds
 * up while an endpoint is idle (there is no burst), so any half-open interval of one second holds
 * at most {@code rate} slots. A claim at {@code now} may reserve the free slots up to
 * {@code now + lookahead}. Times are epoch nanoseconds. Pure functions; threadsafe.
 */
final class RatePacing {

    private static final long NANOS_PER_SECOND = 1_000_000_000L;

    private RatePacing() {}

    /**
     * The spacing of slots at {@code perSecond} attempts per second: rounded up, so that the
     * rate is never exceeded (at 3 per second, slots 333,333,334 ns apart: three per second, not four).
     */
    static long intervalNanos(int perSecond) {
        DeliveryChecks.rateLimit(perSecond);
        return Math.ceilDiv(NANOS_PER_SECOND, perSecond);
    }

    /**
     * The slots a claim at {@code now} may reserve: from the next free slot ({@code null}: never
     * used; a free slot in the past counts as now, so idle time gives no burst) up to
     * {@code now + lookahead}, both ends included.
     */
    static Window window(@Nullable Long nextFree, long now, long lookahead, int perSecond) {
        if (lookahead < 0) {
            throw new IllegalArgumentException("lookahead must not be negative, was " + lookahead);
        }
        long interval = intervalNanos(perSecond);
        long first = nextFree == null ? now : Math.max(nextFree, now);
        long last = now + lookahead;
        long capacity = first > last ? 0 : (last - first) / interval + 1;
        return new Window(first, interval, (int) Math.min(capacity, Integer.MAX_VALUE));
    }

    /**
     * Reservable slots: {@code capacity} of them, {@code first}, {@code first + interval}, ...
     *
     * @param first    the first slot
     * @param interval the spacing
     * @param capacity how many may be reserved now
     */
    record Window(long first, long interval, int capacity) {

        /** The {@code i}-th slot (from 0), {@code i < capacity}. */
        long slot(int i) {
            if (i < 0 || i >= capacity) {
                throw new IndexOutOfBoundsException("slot " + i + " of a window of " + capacity);
            }
            return first + i * interval;
        }

        /** The next free slot once {@code taken} slots of this window are reserved. */
        long nextFreeAfter(int taken) {
            if (taken < 0 || taken > capacity) {
                throw new IllegalArgumentException("taken must be 0 to " + capacity + ", was " + taken);
            }
            return first + taken * interval;
        }
    }
}
