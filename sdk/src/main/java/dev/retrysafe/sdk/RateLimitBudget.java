package dev.retrysafe.sdk;

import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * The caller's budget under one rate-limit policy. The figures are {@code null} when the server
 * could not read its counters ({@link #known()} is {@code false}). Immutable and threadsafe.
 *
 * @param name the policy, such as {@code key} or {@code reports}
 * @param scope what it counts per: {@code api_key}, {@code account}, {@code ip} or {@code account+route_group}
 * @param algorithm {@code gcra}, {@code token_bucket}, {@code sliding_window} or {@code fixed_window}
 * @param limit requests per window
 * @param window the window
 * @param known whether the figures below could be read
 * @param remaining requests left, or {@code null}
 * @param used requests spent, or {@code null}
 * @param resetAfter how long until the budget is whole again, or {@code null}
 * @param resetAt when it is, or {@code null}
 */
public record RateLimitBudget(
        String name,
        String scope,
        String algorithm,
        long limit,
        Duration window,
        boolean known,
        @Nullable Long remaining,
        @Nullable Long used,
        @Nullable Duration resetAfter,
        @Nullable Instant resetAt) {

    /** Checks that the required values are there. */
    public RateLimitBudget {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(scope, "scope");
        Objects.requireNonNull(algorithm, "algorithm");
        Objects.requireNonNull(window, "window");
    }
}
