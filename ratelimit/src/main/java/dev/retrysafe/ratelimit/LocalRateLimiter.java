package dev.retrysafe.ratelimit;

/**
 * One policy's limiter over an {@link InMemoryRateLimitStore}, for callers that need a yes or no
 * and nothing else: no {@link Decision}, no {@link PolicyState}, no boxing, so that a decision in
 * steady state allocates nothing. Shares its counters with the store's {@code decide} for the
 * same policy. Obtain one with {@link InMemoryRateLimitStore#limiter(Policy)}. Threadsafe.
 */
public interface LocalRateLimiter {

    /** The policy this limiter enforces. */
    Policy policy();

    /**
     * Spends {@code cost} units of {@code key}'s budget if they fit now.
     *
     * @return whether they fit (and were spent)
     */
    boolean tryAcquire(String key, long cost);

    /**
     * Spends {@code cost} units of {@code key}'s budget if they fit now.
     *
     * @return 0 when spent, else the microseconds until they would fit if nothing else were
     *         spent (the window for a cost above the burst or quota, which never fits)
     */
    long tryAcquireOrWaitMicros(String key, long cost);

    /**
     * As {@link #tryAcquireOrWaitMicros(String, long)} at a time the caller already read, which
     * saves reading the store's clock (a field read for the system clock; a full read of any
     * other {@link java.time.Clock}). {@code nowMicros} must come
     * from {@link #nowMicros()} or the same wall clock, and should not run backwards: GCRA and
     * token bucket never favour a key for an earlier time, but the windowed algorithms would
     * count an earlier window afresh.
     */
    long tryAcquireOrWaitMicros(String key, long cost, long nowMicros);

    /** The store's clock: microseconds since the epoch. */
    long nowMicros();
}
