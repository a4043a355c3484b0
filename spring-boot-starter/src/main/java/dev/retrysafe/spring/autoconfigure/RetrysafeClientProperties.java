package dev.retrysafe.spring.autoconfigure;

import dev.retrysafe.client.RetryPolicy;
import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.Set;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * {@code retrysafe.client.*}: the retrying {@code RestClient} customizer; defaults are those of
 * {@link RetryPolicy#defaults()} and {@code RetryBudget.defaults()}.
 */
@ConfigurationProperties("retrysafe.client")
public class RetrysafeClientProperties {

    /** Whether every auto-configured RestClient.Builder gets the retrying interceptor. */
    private boolean enabled = true;

    /** Attempts per call, the first included (1 = no retry). */
    private int maxAttempts = RetryPolicy.defaults().maxAttempts();

    /** The base of the full-jitter backoff. */
    private Duration baseDelay = RetryPolicy.defaults().baseDelay();

    /** The cap of the backoff, and of the spread after a Retry-After. */
    private Duration maxDelay = RetryPolicy.defaults().maxDelay();

    /** The longest a call may take, waits included. */
    private Duration deadline = RetryPolicy.defaults().deadline();

    /** The longest Retry-After the client waits for; a longer one ends the retries. */
    private Duration maxRetryAfter = RetryPolicy.defaults().maxRetryAfter();

    /** Random spread after a Retry-After, as a share of it (0 to 10). */
    private double retryAfterSpread = RetryPolicy.defaults().retryAfterSpread();

    /** The statuses retried. */
    private Set<Integer> retryableStatuses = new LinkedHashSet<>(RetryPolicy.DEFAULT_RETRYABLE_STATUSES);

    /** Whether a 409 with Retry-After to a keyed request (the key's first attempt still running) is retried. */
    private boolean retryKeyInUse = RetryPolicy.defaults().retryKeyInUse();

    /** Whether POST and PATCH without an Idempotency-Key get a generated one (and are then retried). */
    private boolean generateIdempotencyKeys = RetryPolicy.defaults().generateIdempotencyKeys();

    private final Budget budget = new Budget();

    public boolean isEnabled() {
        return enabled;
    }

    public void setEnabled(boolean enabled) {
        this.enabled = enabled;
    }

    public int getMaxAttempts() {
        return maxAttempts;
    }

    public void setMaxAttempts(int maxAttempts) {
        this.maxAttempts = maxAttempts;
    }

    public Duration getBaseDelay() {
        return baseDelay;
    }

    public void setBaseDelay(Duration baseDelay) {
        this.baseDelay = baseDelay;
    }

    public Duration getMaxDelay() {
        return maxDelay;
    }

    public void setMaxDelay(Duration maxDelay) {
        this.maxDelay = maxDelay;
    }

    public Duration getDeadline() {
        return deadline;
    }

    public void setDeadline(Duration deadline) {
        this.deadline = deadline;
    }

    public Duration getMaxRetryAfter() {
        return maxRetryAfter;
    }

    public void setMaxRetryAfter(Duration maxRetryAfter) {
        this.maxRetryAfter = maxRetryAfter;
    }

    public double getRetryAfterSpread() {
        return retryAfterSpread;
    }

    public void setRetryAfterSpread(double retryAfterSpread) {
        this.retryAfterSpread = retryAfterSpread;
    }

    public Set<Integer> getRetryableStatuses() {
        return retryableStatuses;
    }

    public void setRetryableStatuses(Set<Integer> retryableStatuses) {
        this.retryableStatuses = retryableStatuses;
    }

    public boolean isRetryKeyInUse() {
        return retryKeyInUse;
    }

    public void setRetryKeyInUse(boolean retryKeyInUse) {
        this.retryKeyInUse = retryKeyInUse;
    }

    public boolean isGenerateIdempotencyKeys() {
        return generateIdempotencyKeys;
    }

    public void setGenerateIdempotencyKeys(boolean generateIdempotencyKeys) {
        this.generateIdempotencyKeys = generateIdempotencyKeys;
    }

    public Budget getBudget() {
        return budget;
    }

    /** {@code retrysafe.client.budget.*}: the retry budget shared by every RestClient of the app. */
    public static class Budget {

        /** Whether retries are capped by a budget. */
        private boolean enabled = true;

        /** Retries earned per call (greater than 0, at most 1). */
        private double retryRatio = 0.1;

        /** The retries the budget starts with and holds at most. */
        private int burst = 10;

        public boolean isEnabled() {
            return enabled;
        }

        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }

        public double getRetryRatio() {
            return retryRatio;
        }

        public void setRetryRatio(double retryRatio) {
            this.retryRatio = retryRatio;
        }

        public int getBurst() {
            return burst;
        }

        public void setBurst(int burst) {
            this.burst = burst;
        }
    }
}
