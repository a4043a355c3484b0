package dev.retrysafe.ratelimit;

import java.util.Objects;

/**
 * One place a request takes under one concurrency limit: a slot of {@code key}'s
 * {@code policy.limit()}. Immutable and threadsafe.
 *
 * @param policy the limit
 * @param key    the scope's key for the request, see {@link Scope#keyFor}
 */
public record ConcurrencySlot(ConcurrencyPolicy policy, String key) {

    public ConcurrencySlot {
        Objects.requireNonNull(policy, "policy");
        Objects.requireNonNull(key, "key");
    }
}
