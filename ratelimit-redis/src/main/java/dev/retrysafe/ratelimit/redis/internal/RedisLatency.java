package dev.retrysafe.ratelimit.redis.internal;

import java.util.concurrent.atomic.LongAdder;

/**
 * How long script calls to Redis took, as their callers waited (answered, failed or timed out),
 * counted into fixed buckets as a Prometheus histogram wants them. Threadsafe; recording is a
 * few additions on striped counters, no allocation.
 */
public final class RedisLatency {

    /** The buckets' upper bounds in nanoseconds: 100 µs to 1 s, about three per decade. */
    private static final long[] BOUNDS = {
        100_000L, 250_000L, 500_000L,
        1_000_000L, 2_500_000L, 5_000_000L,
        10_000_000L, 25_000_000L, 50_000_000L,
        100_000_000L, 250_000_000L, 500_000_000L,
        1_000_000_000L
    };

    private final LongAdder[] buckets = new LongAdder[BOUNDS.length + 1];
    private final LongAdder sumNanos = new LongAdder();

    public RedisLatency() {
        for (int i = 0; i < buckets.length; i++) {
            buckets[i] = new LongAdder();
        }
    }

    /** Counts one call that took {@code nanos}. */
    public void record(long nanos) {
        int i = 0;
        while (i < BOUNDS.length && nanos > BOUNDS[i]) {
            i++;
        }
        buckets[i].increment();
        sumNanos.add(nanos);
    }

    /** The upper bounds of the finite buckets, in nanoseconds. */
    public static long[] bounds() {
        return BOUNDS.clone();
    }

    /**
     * Calls per bucket, not cumulative: one count per bound of {@link #bounds()}, then the
     * calls above the last bound.
     */
    public long[] counts() {
        long[] counts = new long[buckets.length];
        for (int i = 0; i < counts.length; i++) {
            counts[i] = buckets[i].sum();
        }
        return counts;
    }

    /** The time every call took, summed, in nanoseconds. */
    public long sumNanos() {
        return sumNanos.sum();
    }
}
