package dev.retrysafe.ratelimit;

import java.util.Objects;

/**
 * What one request spends under one policy: {@code cost} units from the budget of {@code key}.
 *
 * @param policy the policy (already scaled by the caller's plan)
 * @param key    the scope's key for the request, see {@link Scope#keyFor}
 * @param cost   the policy's cost times the route's cost, at least 1
 */
public record Charge(Policy policy, String key, long cost) {

    public Charge {
        Objects.requireNonNull(policy, "policy");
        Objects.requireNonNull(key, "key");
        if (cost < 1) {
            throw new IllegalArgumentException("cost must be at least 1: " + cost);
        }
    }
}
