package dev.retrysafe.client;

import dev.retrysafe.client.internal.TokenBucketBudget;
import dev.retrysafe.client.internal.UnlimitedBudget;

/**
 * Caps retries at a share of requests, per client (a token bucket, like the AWS SDKs' retry
 * quota): every call deposits {@link Config#retryRatio()} tokens, every retry takes one, and the
 * bucket starts with and holds at most {@link Config#burst()} retries. So over any run of {@code n} calls
 * the client makes at most {@code burst + retryRatio * n} retries: in a wide outage, where every
 * attempt fails, a client with the defaults adds at most 10 % to its traffic (plus 10) instead of
 * multiplying it by {@link RetryPolicy#maxAttempts()}. A retry refused by the budget ends the call
 * with {@link StopReason#BUDGET_EXHAUSTED}.
 *
 * <p>Share one budget per client and downstream service; {@link RetryingHttpClient} has one.
 * Implementations are threadsafe.
 */
public interface RetryBudget {

    /** Records a new call (its first attempt): deposits the share of a retry it earns. */
    void recordCall();

    /**
     * Takes the token of one retry.
     *
     * @return whether the retry may be made
     */
    boolean tryAcquireRetry();

    /** How many retries could be made now (for metrics; unlimited: {@link Double#POSITIVE_INFINITY}). */
    double available();

    /** A budget with the defaults: 10 % of calls, a burst of 10. */
    static RetryBudget defaults() {
        return builder().build();
    }

    /** A budget that never refuses: retries are limited by the policy alone. */
    static RetryBudget unlimited() {
        return UnlimitedBudget.INSTANCE;
    }

    /** A builder starting from the defaults. */
    static Builder builder() {
        return new Builder();
    }

    /**
     * A budget's settings.
     *
     * @param retryRatio retries earned per call: greater than 0, at most 1; default 0.1
     * @param burst the retries the bucket starts with, and the most it holds (at least one, so
     *     that deposits add up to a retry): 0..1,000,000; default 10. With 0, retries are at most
     *     {@code retryRatio} of calls from the first call on.
     */
    record Config(double retryRatio, int burst) {
        /** Checks the values. */
        public Config {
            if (!(retryRatio > 0 && retryRatio <= 1)) {
                throw new IllegalArgumentException(
                        "retryRatio must be greater than 0 and at most 1, was " + retryRatio);
            }
            if (burst < 0 || burst > 1_000_000) {
                throw new IllegalArgumentException("burst must be 0..1000000, was " + burst);
            }
        }
    }

    /** Builds a token-bucket {@link RetryBudget}. Not threadsafe; the budget is. */
    final class Builder {
        private double retryRatio = 0.1;
        private int burst = 10;

        private Builder() {}

        /** Retries earned per call, greater than 0 and at most 1 (default 0.1: 10 %). */
        public Builder retryRatio(double retryRatio) {
            this.retryRatio = retryRatio;
            return this;
        }

        /** The bucket's initial content and capacity, in retries (default 10; see {@link Config#burst()}). */
        public Builder burst(int burst) {
            this.burst = burst;
            return this;
        }

        /**
         * A new, full budget.
         *
         * @throws IllegalArgumentException naming a value out of range
         */
        public RetryBudget build() {
            return new TokenBucketBudget(new Config(retryRatio, burst));
        }
    }
}
