package dev.retrysafe.ratelimit.internal;

import dev.retrysafe.ratelimit.Policy;

/**
 * Fixed window: the index of the window last charged and its count; a count of another window is
 * 0. See "Fixed window" in {@code docs/rate-limits.md}.
 */
public final class FixedWindow extends Kernel {

    private static final int WINDOW = 0;
    private static final int COUNT = 1;
    /** A window index no time maps to: the state of an absent key. */
    static final long NO_WINDOW = Long.MIN_VALUE;

    FixedWindow(Policy policy) {
        super(policy);
    }

    /** {@code count[k]}: the stored count if it belongs to window {@code k}, else 0. */
    static long countIn(long storedWindow, long storedCount, long k) {
        return storedWindow == k ? storedCount : 0;
    }

    static long retryAfter(long count, long now, long cost, long window, long quota) {
        if (cost > quota) {
            return window;
        }
        return count + cost <= quota ? 0 : untilWindowEnds(now, window);
    }

    /** {@code count[k]} with {@code cost} given back: {@code max(0, count - c)}. */
    static long refundedCount(long count, long cost) {
        return Math.max(0, count - cost);
    }

    static long untilWindowEnds(long now, long window) {
        return (Math.floorDiv(now, window) + 1) * window - now;
    }

    private long count(long[] state, int off, long now) {
        return countIn(state[off + WINDOW], state[off + COUNT], Math.floorDiv(now, window));
    }

    @Override
    public int stride() {
        return 2;
    }

    @Override
    public void writeAbsent(long[] state, int off) {
        state[off + WINDOW] = NO_WINDOW;
        state[off + COUNT] = 0;
    }

    @Override
    public long retryAfter(long[] state, int off, long now, long cost) {
        return retryAfter(count(state, off, now), now, cost, window, quota);
    }

    @Override
    public void charge(long[] state, int off, long now, long cost) {
        long count = count(state, off, now);
        state[off + WINDOW] = Math.floorDiv(now, window);
        state[off + COUNT] = count + cost;
    }

    /**
     * Only the current window's count is given back: a charge of an earlier window is gone with it
     * (and a state of a later window, from a clock that went backwards, is not this window's).
     */
    @Override
    public void refund(long[] state, int off, long now, long cost) {
        if (state[off + WINDOW] == Math.floorDiv(now, window)) {
            state[off + COUNT] = refundedCount(state[off + COUNT], cost);
        }
    }

    @Override
    public long remaining(long[] state, int off, long now) {
        return clamp(quota - count(state, off, now), quota);
    }

    @Override
    public long reset(long[] state, int off, long now) {
        return untilWindowEnds(now, window);
    }

    @Override
    public boolean isIdle(long[] state, int off, long now) {
        return count(state, off, now) == 0;
    }

    @Override
    public long largestCost() {
        return quota;
    }
}
