package dev.retrysafe.ratelimit.internal;

import dev.retrysafe.ratelimit.Policy;

/**
 * GCRA: one theoretical arrival time ({@code tat}, microseconds) per key; absent is 0. See
 * "GCRA" in {@code docs/rate-limits.md}.
 */
public final class Gcra extends Kernel {

    /** Emission interval: {@code ceil(W / Q)}, so that the rate never exceeds Q per W. */
    private final long interval;

    Gcra(Policy policy) {
        super(policy);
        this.interval = emissionInterval(window, quota);
    }

    static long emissionInterval(long window, long quota) {
        return Math.ceilDiv(window, quota);
    }

    /** 0 when {@code cost} fits at {@code now}, else {@code newTat - now - B*T}. */
    static long retryAfter(long tat, long now, long cost, long interval, long burst, long window) {
        if (cost > burst) {
            return window;
        }
        long excess = Math.max(tat, now) + cost * interval - now - burst * interval;
        return Math.max(0, excess);
    }

    static long chargedTat(long tat, long now, long cost, long interval) {
        return Math.max(tat, now) + cost * interval;
    }

    /**
     * {@code tat} with {@code cost} units given back at {@code now}: {@code max(now, tat - c*T)}
     * while {@code tat > now}, else {@code tat}. {@code c*T} is taken at most up to the debt
     * {@code tat - now}, so that no cost overflows; the result is the same.
     */
    static long refundedTat(long tat, long now, long cost, long interval) {
        if (tat <= now) {
            return tat;
        }
        long units = Math.min(cost, Math.ceilDiv(tat - now, interval));
        return Math.max(now, tat - units * interval);
    }

    static long remaining(long tat, long now, long interval, long burst, long quota) {
        return clamp(Math.floorDiv(burst * interval - (Math.max(tat, now) - now), interval), quota);
    }

    static long reset(long tat, long now) {
        return Math.max(tat, now) - now;
    }

    @Override
    public int stride() {
        return 1;
    }

    @Override
    public void writeAbsent(long[] state, int off) {
        state[off] = 0;
    }

    @Override
    public long retryAfter(long[] state, int off, long now, long cost) {
        return retryAfter(state[off], now, cost, interval, burst, window);
    }

    @Override
    public void charge(long[] state, int off, long now, long cost) {
        state[off] = chargedTat(state[off], now, cost, interval);
    }

    @Override
    public void refund(long[] state, int off, long now, long cost) {
        state[off] = refundedTat(state[off], now, cost, interval);
    }

    @Override
    public long remaining(long[] state, int off, long now) {
        return remaining(state[off], now, interval, burst, quota);
    }

    @Override
    public long reset(long[] state, int off, long now) {
        return reset(state[off], now);
    }

    @Override
    public boolean isIdle(long[] state, int off, long now) {
        return state[off] <= now;
    }

    @Override
    public long largestCost() {
        return burst;
    }
}
