package dev.retrysafe.spring.internal;

import dev.retrysafe.ratelimit.Policy;
import dev.retrysafe.ratelimit.RateLimitStore;
import dev.retrysafe.ratelimit.RequestFacts;
import dev.retrysafe.servlet.RateLimitFilter;
import dev.retrysafe.spring.RetrysafeCaller;
import jakarta.servlet.http.HttpServletRequest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The rate-limit step for each set of policies a {@code @RateLimited} names, all on one store; its
 * refusals go to Spring MVC ({@link MvcRefusals}). Immutable and threadsafe.
 */
public final class RateLimitFilters {

    private final RateLimitStore store;
    private final Map<String, Policy> policies;
    private final RetrysafeCaller caller;
    private final HandlerLookup lookup;
    private final Duration retryAfterJitter;
    private final String problemTypeBase;

    /** Filters over {@code store} with {@code policies} (in configuration order). */
    public RateLimitFilters(
            RateLimitStore store,
            List<Policy> policies,
            RetrysafeCaller caller,
            HandlerLookup lookup,
            Duration retryAfterJitter,
            String problemTypeBase) {
        this.store = store;
        Map<String, Policy> byName = new LinkedHashMap<>();
        policies.forEach(policy -> byName.put(policy.name(), policy));
        this.policies = Map.copyOf(byName);
        this.caller = caller;
        this.lookup = lookup;
        this.retryAfterJitter = retryAfterJitter;
        this.problemTypeBase = problemTypeBase;
    }

    /**
     * The rate-limit step that checks {@code names} in one decision.
     *
     * @throws IllegalArgumentException if a name is not a configured policy
     */
    public RateLimitFilter forPolicies(List<String> names) {
        List<Policy> chosen = new ArrayList<>();
        for (String name : names) {
            Policy policy = policies.get(name);
            if (policy == null) {
                throw new IllegalArgumentException("@RateLimited names policy '" + name
                        + "', which retrysafe.rate-limits.policies does not define; defined: " + policies.keySet());
            }
            chosen.add(policy);
        }
        return RateLimitFilter.builder()
                .store(store)
                .policies(chosen)
                .facts(this::facts)
                .retryAfterJitter(retryAfterJitter)
                .problemTypeBase(problemTypeBase)
                .refusals(MvcRefusals.WRITER)
                .build();
    }

    /**
     * The caller counts as the API key too ({@code api_key} and {@code account} scopes both count
     * per caller); the route group is the mapping's pattern.
     */
    private RequestFacts facts(HttpServletRequest request) {
        String account = caller.account(request);
        HandlerRoute route = lookup.route(request);
        return new RequestFacts(
                account, account, request.getRemoteAddr(), route == null ? null : route.pattern(), null, 1);
    }
}
