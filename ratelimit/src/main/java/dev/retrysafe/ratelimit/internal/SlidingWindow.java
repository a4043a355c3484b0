package dev.retrysafe.ratelimit.internal;

import dev.retrysafe.ratelimit.Policy;

/**
 * Sliding window counter: the index of the window last charged, its count and the count of the
 * window before it. See "Sliding window" in {@code docs/rate-limits.md}.
 */
public final class SlidingWindow extends Kernel {

    private static final int WINDOW = 0;
    private static final int COUNT = 1;
    private static final int PREVIOUS = 2;

    SlidingWindow(Policy policy) {
        super(policy);
    }

    /** {@code count[k]} from the stored window {@code s}. */
    static long current(long s, long count, long k) {
        return s == k ? count : 0;
    }

    /** {@code count[k-1]} from the stored window {@code s}. */
    static long previous(long s, long count, long previousCount, long k) {
        if (s == k) {
            return previousCount;
        }
        return s == k - 1 ? count : 0;
    }

    /**
     * 0 when {@code cost} fits, else the time until it fits if nothing else is charged: later in
     * this window as the previous window's weight shrinks, at the next window's start, or once
     * this window's count weighs little enough in the next one.
     */
    static long retryAfter(long prev, long cur, long e, long cost, long window, long quota) {
        if (cost > quota) {
            return window;
        }
        long excess = prev * (window - e) + (cur + cost) * window - quota * window;
        if (excess <= 0) {
            return 0;
        }
        long untilNext = window - e;
        if (prev > 0) {
            long d1 = Math.ceilDiv(excess, prev);
            if (d1 < untilNext) {
                return d1;
            }
        }
        if (cur == 0) {
            return untilNext;
        }
        long e2 = Math.max(0, window - Math.floorDiv((quota - cost) * window, cur));
        return untilNext + e2;
    }

    /** {@code count[k]} with {@code cost} given back: {@code max(0, cur - c)}. */
    static long refundedCurrent(long cur, long cost) {
        return Math.max(0, cur - cost);
    }

    /**
     * {@code count[k-1]} with {@code cost} given back: what {@code cur} cannot cover,
     * {@code max(0, prev - max(0, c - cur))}. Exact when the refund follows its charge within one
     * window (then {@code cur} covers it); otherwise an approximation, as the counter itself is.
     */
    static long refundedPrevious(long prev, long cur, long cost) {
        return Math.max(0, prev - Math.max(0, cost - cur));
    }

    static long remaining(long prev, long cur, long e, long window, long quota) {
        return clamp(Math.floorDiv(quota * window - prev * (window - e), window) - cur, quota);
    }

    static long reset(long prev, long cur, long k, long now, long window) {
        if (cur > 0) {
            return (k + 2) * window - now;
        }
        return prev > 0 ? (k + 1) * window - now : 0;
    }

    @Override
    public int stride() {
        return 3;
    }

    @Override
    public void writeAbsent(long[] state, int off) {
        state[off + WINDOW] = FixedWindow.NO_WINDOW;
        state[off + COUNT] = 0;
        state[off + PREVIOUS] = 0;
    }

    @Override
    public long retryAfter(long[] state, int off, long now, long cost) {
        long k = Math.floorDiv(now, window);
        return retryAfter(prev(state, off, k), cur(state, off, k), now - k * window, cost, window, quota);
    }

    @Override
    public void charge(long[] state, int off, long now, long cost) {
        long k = Math.floorDiv(now, window);
        long prev = prev(state, off, k);
        long cur = cur(state, off, k);
        state[off + WINDOW] = k;
        state[off + COUNT] = cur + cost;
        state[off + PREVIOUS] = prev;
    }

    @Override
    public void refund(long[] state, int off, long now, long cost) {
        long k = Math.floorDiv(now, window);
        long prev = prev(state, off, k);
        long cur = cur(state, off, k);
        if (prev == 0 && cur == 0) {
            // nothing to give back (and a state of a later window, from a clock that went backwards, is left alone)
            return;
        }
        state[off + WINDOW] = k;
        state[off + COUNT] = refundedCurrent(cur, cost);
        state[off + PREVIOUS] = refundedPrevious(prev, cur, cost);
    }

    @Override
    public long remaining(long[] state, int off, long now) {
        long k = Math.floorDiv(now, window);
        return remaining(prev(state, off, k), cur(state, off, k), now - k * window, window, quota);
    }

    @Override
    public long reset(long[] state, int off, long now) {
        long k = Math.floorDiv(now, window);
        return reset(prev(state, off, k), cur(state, off, k), k, now, window);
    }

    @Override
    public boolean isIdle(long[] state, int off, long now) {
        long k = Math.floorDiv(now, window);
        return cur(state, off, k) == 0 && prev(state, off, k) == 0;
    }

    @Override
    public long largestCost() {
        return quota;
    }

    private static long cur(long[] state, int off, long k) {
        return current(state[off + WINDOW], state[off + COUNT], k);
    }

    private static long prev(long[] state, int off, long k) {
        return previous(state[off + WINDOW], state[off + COUNT], state[off + PREVIOUS], k);
    }
}
