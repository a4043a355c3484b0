package dev.retrysafe.ratelimit.internal;

import dev.retrysafe.ratelimit.Policy;

/**
 * Token bucket: a level in units of 1/W token and the time it was measured; absent is a full
 * bucket. See "Token bucket" in {@code docs/rate-limits.md}.
 */
public final class TokenBucket extends Kernel {

    private static final int LEVEL = 0;
    private static final int LAST = 1;

    /** {@code B*W}: a full bucket. */
    private final long capacity;
    /** {@code ceil(B*W / Q)}: time that fills an empty bucket; caps elapsed time against overflow. */
    private final long fillMicros;

    TokenBucket(Policy policy) {
        super(policy);
        this.capacity = burst * window;
        this.fillMicros = Math.ceilDiv(capacity, quota);
    }

    /** The level at {@code now}: refilled by Q units per microsecond since {@code last}, at most full. */
    static long levelAt(long level, long last, long now, long quota, long capacity, long fillMicros) {
        long elapsed = Math.min(Math.max(0, now - last), fillMicros);
        return Math.min(capacity, level + elapsed * quota);
    }

    static long retryAfter(long level0, long cost, long window, long quota, long burst) {
        if (cost > burst) {
            return window;
        }
        long needed = cost * window;
        return level0 >= needed ? 0 : Math.ceilDiv(needed - level0, quota);
    }

    /**
     * The level at {@code level0} (refilled to now) with {@code cost} tokens given back:
     * {@code min(B*W, level0 + c*W)}, with {@code c} taken at most up to {@code B} (more fills the
     * bucket anyway), so that no cost overflows.
     */
    static long refundedLevel(long level0, long cost, long window, long burst, long capacity) {
        return Math.min(capacity, level0 + Math.min(cost, burst) * window);
    }

    static long remaining(long level0, long window, long quota) {
        return clamp(Math.floorDiv(level0, window), quota);
    }

    static long reset(long level0, long quota, long capacity) {
        return Math.ceilDiv(capacity - level0, quota);
    }

    private long levelAt(long[] state, int off, long now) {
        return levelAt(state[off + LEVEL], state[off + LAST], now, quota, capacity, fillMicros);
    }

    @Override
    public int stride() {
        return 2;
    }

    @Override
    public void writeAbsent(long[] state, int off) {
        state[off + LEVEL] = capacity;
        state[off + LAST] = 0;
    }

    @Override
    public long retryAfter(long[] state, int off, long now, long cost) {
        return retryAfter(levelAt(state, off, now), cost, window, quota, burst);
    }

    @Override
    public void charge(long[] state, int off, long now, long cost) {
        state[off + LEVEL] = levelAt(state, off, now) - cost * window;
        // never move last backwards: the refill up to the old last is already in the level
        state[off + LAST] = Math.max(state[off + LAST], now);
    }

    @Override
    public void refund(long[] state, int off, long now, long cost) {
        state[off + LEVEL] = refundedLevel(levelAt(state, off, now), cost, window, burst, capacity);
        // as in charge: the refill up to the old last is in the level already
        state[off + LAST] = Math.max(state[off + LAST], now);
    }

    @Override
    public long remaining(long[] state, int off, long now) {
        return remaining(levelAt(state, off, now), window, quota);
    }

    @Override
    public long reset(long[] state, int off, long now) {
        return reset(levelAt(state, off, now), quota, capacity);
    }

    @Override
    public boolean isIdle(long[] state, int off, long now) {
        return levelAt(state, off, now) == capacity;
    }

    @Override
    public long largestCost() {
        return burst;
    }
}
