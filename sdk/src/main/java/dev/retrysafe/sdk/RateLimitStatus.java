package dev.retrysafe.sdk;

import java.util.List;

/**
 * The caller's rate-limit budgets as they stand ({@code GET /v1/rate_limit}, which costs nothing).
 * Immutable and threadsafe.
 *
 * @param enabled whether the server enforces rate limits at all
 * @param policies every policy that applies to the caller
 */
public record RateLimitStatus(boolean enabled, List<RateLimitBudget> policies) {

    /** Copies the policies. */
    public RateLimitStatus {
        policies = List.copyOf(policies);
    }
}
