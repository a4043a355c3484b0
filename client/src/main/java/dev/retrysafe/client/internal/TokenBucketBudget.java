package dev.retrysafe.client.internal;

import dev.retrysafe.client.RetryBudget;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A {@link RetryBudget} as a token bucket counted in millionths of a retry, so that deposits of
 * a share add up exactly. Lock-free and threadsafe.
 */
public final class TokenBucketBudget implements RetryBudget {

    private static final long ONE_RETRY = 1_000_000L;

    private final RetryBudget.Config config;
    private final long deposit;
    private final long capacity;
    private final AtomicLong tokens;

    /** A bucket holding {@code config.burst()} retries. */
    public TokenBucketBudget(RetryBudget.Config config) {
        this.config = config;
        this.deposit = Math.round(config.retryRatio() * ONE_RETRY);
        // at least one retry's worth, or a bucket of burst 0 could never earn a retry
        this.capacity = Math.max(1, config.burst()) * ONE_RETRY;
        this.tokens = new AtomicLong(config.burst() * ONE_RETRY);
    }

    @Override
    public void recordCall() {
        tokens.updateAndGet(t -> Math.min(capacity, t + deposit));
    }

    @Override
    public boolean tryAcquireRetry() {
        long t;
        do {
            t = tokens.get();
            if (t < ONE_RETRY) {
                return false;
            }
        } while (!tokens.compareAndSet(t, t - ONE_RETRY));
        return true;
    }

    @Override
    public double available() {
        return tokens.get() / (double) ONE_RETRY;
    }

    @Override
    public String toString() {
        return "RetryBudget[retryRatio=" + config.retryRatio() + ", burst=" + config.burst() + ", available="
                + available() + "]";
    }
}
