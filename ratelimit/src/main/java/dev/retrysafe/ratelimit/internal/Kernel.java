package dev.retrysafe.ratelimit.internal;

import dev.retrysafe.ratelimit.Policy;
import org.jspecify.annotations.Nullable;

/**
 * One algorithm's arithmetic ({@code docs/rate-limits.md}) bound to one policy's constants, read
 * from and written to {@link #stride()} longs of a state array. The subclasses keep the formulas
 * as pure static functions of primitive values; these instance methods only move values in and
 * out of the array, so that the in-memory store's hot path allocates nothing. Immutable and
 * threadsafe; the arrays are guarded by their owner.
 */
public abstract sealed class Kernel permits Gcra, TokenBucket, FixedWindow, SlidingWindow {

    /** W, Q and B of the policy, in microseconds and units. */
    final long window;

    final long quota;
    final long burst;

    Kernel(Policy policy) {
        this.window = policy.windowMicros();
        this.quota = policy.quota();
        this.burst = policy.burst();
    }

    /** The kernel for {@code policy}'s algorithm. */
    public static Kernel of(Policy policy) {
        return switch (policy.algorithm()) {
            case GCRA -> new Gcra(policy);
            case TOKEN_BUCKET -> new TokenBucket(policy);
            case FIXED_WINDOW -> new FixedWindow(policy);
            case SLIDING_WINDOW -> new SlidingWindow(policy);
        };
    }

    private long @Nullable [] absent;

    /** The state of an untracked key, at offset 0; never written. */
    public long[] absent() {
        long[] a = absent;
        if (a == null) { // a race only computes the same array twice
            a = new long[stride()];
            writeAbsent(a, 0);
            absent = a;
        }
        return a;
    }

    /** Longs of state per key. */
    public abstract int stride();

    /** Writes the state of a key never seen (or evicted) at {@code off}. */
    public abstract void writeAbsent(long[] state, int off);

    /**
     * Microseconds until {@code cost} fits; 0 when it fits now. A cost that can never fit is
     * refused with the window, as the shared arithmetic says.
     */
    public abstract long retryAfter(long[] state, int off, long now, long cost);

    /** Spends {@code cost}; only after {@link #retryAfter} returned 0 for the same state and time. */
    public abstract void charge(long[] state, int off, long now, long cost);

    /**
     * Gives back {@code cost} that {@link #charge} spent: the state moves back by the cost, as far
     * as it still holds it, and never past an absent key's (a full budget). A state that no longer
     * holds the charge (time has given it back already, or it was charged in a window that is
     * over) is left as it is. See "Refunds" in {@code docs/rate-limits.md}.
     */
    public abstract void refund(long[] state, int off, long now, long cost);

    /** Units left now, in {@code [0, quota]}. */
    public abstract long remaining(long[] state, int off, long now);

    /** Microseconds until the budget is whole again (or the current window ends). */
    public abstract long reset(long[] state, int off, long now);

    /**
     * Whether the state at {@code off} is indistinguishable from an absent key from {@code now}
     * on, so that dropping it loses nothing (time only moves it further towards absent).
     */
    public abstract boolean isIdle(long[] state, int off, long now);

    /**
     * The largest cost an absent key allows: burst for the bucket algorithms, quota for the
     * windowed ones. An absent key allows exactly the costs up to it, which lets the store decide
     * about an unseen key without creating it.
     */
    public abstract long largestCost();

    static long clamp(long value, long max) {
        return Math.max(0, Math.min(max, value));
    }
}
