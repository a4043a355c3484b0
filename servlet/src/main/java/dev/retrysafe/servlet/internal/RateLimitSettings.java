package dev.retrysafe.servlet.internal;

import dev.retrysafe.ratelimit.ConcurrencyPolicy;
import dev.retrysafe.ratelimit.ConcurrencyStore;
import dev.retrysafe.ratelimit.Plans;
import dev.retrysafe.ratelimit.Policy;
import dev.retrysafe.ratelimit.PolicyVersions;
import dev.retrysafe.ratelimit.RateLimitStore;
import dev.retrysafe.ratelimit.RequestFacts;
import jakarta.servlet.http.HttpServletRequest;
import java.time.Duration;
import java.util.List;
import java.util.function.Function;
import java.util.function.Predicate;
import org.jspecify.annotations.Nullable;

/**
 * The rate-limit filter's settings, copied once. Immutable and threadsafe (provided the store
 * and the functions are). With {@code versions}, a request's policies are those of its
 * account's set and {@code policies} is empty.
 *
 * @param concurrencyStore    where the concurrency limits count, or {@code null} when there are none
 * @param concurrencyPolicies the concurrency limits, acquired after the rate policies allowed a request
 */
public record RateLimitSettings(
        RateLimitStore store,
        List<Policy> policies,
        Plans plans,
        Function<HttpServletRequest, @Nullable RequestFacts> facts,
        Predicate<HttpServletRequest> exempt,
        Duration retryAfterJitter,
        String problemTypeBase,
        @Nullable PolicyVersions versions,
        @Nullable ConcurrencyStore concurrencyStore,
        List<ConcurrencyPolicy> concurrencyPolicies) {

    /** Copies the collections. */
    public RateLimitSettings {
        policies = List.copyOf(policies);
        concurrencyPolicies = List.copyOf(concurrencyPolicies);
        if (!concurrencyPolicies.isEmpty() && concurrencyStore == null) {
            throw new IllegalArgumentException("concurrency policies need a concurrency store");
        }
    }
}
