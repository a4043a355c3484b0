package dev.retrysafe.servlet;

import dev.retrysafe.ratelimit.ConcurrencyPolicy;
import dev.retrysafe.ratelimit.ConcurrencyStore;
import dev.retrysafe.ratelimit.Decision;
import dev.retrysafe.ratelimit.Plans;
import dev.retrysafe.ratelimit.Policy;
import dev.retrysafe.ratelimit.PolicySet;
import dev.retrysafe.ratelimit.PolicyVersions;
import dev.retrysafe.ratelimit.RateLimitStore;
import dev.retrysafe.ratelimit.RequestFacts;
import dev.retrysafe.servlet.internal.Admission;
import dev.retrysafe.servlet.internal.FilterSettings;
import dev.retrysafe.servlet.internal.Handoff;
import dev.retrysafe.servlet.internal.HttpOnly;
import dev.retrysafe.servlet.internal.RateLimitHandler;
import dev.retrysafe.servlet.internal.RateLimitSettings;
import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Function;
import java.util.function.Predicate;
import org.jspecify.annotations.Nullable;

/**
 * Applies rate limits to any servlet application. This class is threadsafe.
 *
 * <p>For each request the filter asks {@code facts} who is calling (API key, account, address,
 * route group, plan); a request without facts passes unlimited. Every policy that applies is
 * checked in one atomic decision of the {@link RateLimitStore}: if one refuses, none is charged
 * and the filter answers {@code 429} with {@code Retry-After} and a problem naming the policy
 * and the wait (or {@code 503} when the store is unreachable and a fail-closed policy applies).
 * Every answer it lets through or refuses carries {@code RateLimit-Policy}, {@code RateLimit}
 * and {@code X-RateLimit-*} headers. With {@linkplain Builder#versions versions}, the policies are
 * those of the set the caller's account is on at that moment, and the answer also names the set
 * ({@code X-RateLimit-Policy}, {@code X-RateLimit-Policy-Docs}) and, for a deprecated set, carries
 * {@code Deprecation}, {@code Sunset} and {@code Link} (see {@link PolicySet#headers()}).
 *
 * <p>Concurrency limits ({@link #builder() concurrencyPolicy}) bound the requests a key has in flight
 * at once: once the rate policies allow a request, it takes a slot under each that applies, or
 * none of them; a full one answers {@code 429} {@link ProblemType#CONCURRENCY_LIMITED} with
 * {@code Retry-After}, naming the policy, and gives the rate policies' charge back. The slots
 * are given back when the request ends in any way (answered, thrown, its client gone, an
 * asynchronous request completed or timed out). They are not in {@code RateLimit-Policy}, whose
 * quotas are per time window.
 *
 * <p>Requests matching {@code exempt} spend nothing: their headers show the current budgets and
 * the decision is left on the request under {@link #DECISION_ATTRIBUTE} (for an endpoint that
 * reports budgets). Every other request is charged as it arrives, before its body is read, and
 * the charge is left on the request (an internal attribute): the {@link IdempotencyFilter}
 * gives it back for a replay or a {@code 409}, so that a correct client's retry spends nothing,
 * while a request that withholds its body has already paid for the time it holds.
 *
 * <pre>{@code
 * RateLimitFilter filter = RateLimitFilter.builder()
 *         .store(InMemoryRateLimitStore.builder().build())
 *         .policy(Policy.builder("key").scope(Scope.apiKey()).limit(100, Duration.ofSeconds(10)).build())
 *         .facts(request -> new RequestFacts(keyId(request), accountId(request), request.getRemoteAddr(), null, null, 1))
 *         .build();
 * }</pre>
 */
public final class RateLimitFilter implements Filter {

    /** Request attribute holding the {@link Decision} of an exempt request (its budgets, unspent). */
    public static final String DECISION_ATTRIBUTE = RateLimitFilter.class.getName() + ".decision";

    /**
     * Request attribute holding the {@link PolicySet} an exempt request's account is on, when the
     * filter has {@linkplain Builder#versions versions}.
     */
    public static final String POLICY_SET_ATTRIBUTE = RateLimitFilter.class.getName() + ".policySet";

    private final RateLimitHandler handler;

    private RateLimitFilter(RateLimitSettings settings, RateLimitRefusal.@Nullable Writer refusals) {
        this.handler = new RateLimitHandler(settings, refusals);
    }

    /** A new builder. */
    public static Builder builder() {
        return new Builder();
    }

    @Override
    public void doFilter(ServletRequest request, ServletResponse response, FilterChain chain)
            throws IOException, ServletException {
        HttpOnly.filter(request, response, chain, (httpRequest, httpResponse, next) -> {
            Admission admission = handler.admit(httpRequest, httpResponse);
            if (admission != null) {
                Handoff.admitted(httpRequest, admission);
                RateLimitHandler.proceed(httpRequest, admission, () -> next.doFilter(httpRequest, httpResponse));
            }
        });
    }

    /**
     * Replaces every policy at once, between two requests (a configuration reload): a request
     * decides under the old policies or the new ones, never a mix. The counters of a policy whose
     * name and algorithm stay the same carry on under its new limits (in every store: they are
     * keyed by name and algorithm); a renamed policy starts afresh.
     *
     * @param plans how plans scale the new policies
     */
    public void reconfigure(List<Policy> policies, Plans plans) {
        handler.reconfigure(List.copyOf(policies), null, plans, null);
    }

    /**
     * Replaces the concurrency limits at once, between two requests; a request under way releases
     * its slots where it took them. Slots are counted by policy name and key, so a limit whose name
     * stays keeps counting the requests in flight under its new limit.
     *
     * @throws IllegalStateException when the filter was built without a concurrency store
     */
    public void reconfigureConcurrency(List<ConcurrencyPolicy> policies) {
        handler.reconfigureConcurrency(List.copyOf(policies));
    }

    /** Like {@link #reconfigure(List, Plans)}, with versioned policy sets (see {@link Builder#versions}). */
    public void reconfigure(PolicyVersions versions, Plans plans) {
        handler.reconfigure(List.of(), versions, plans, null);
    }

    /** This filter's step, for {@link RequestDecisions}. */
    RateLimitHandler handler() {
        return handler;
    }

    /**
     * Builds a {@link RateLimitFilter}. Not threadsafe; the built filter changes only through
     * {@link RateLimitFilter#reconfigure}.
     */
    public static final class Builder {
        private @Nullable RateLimitStore store;
        private final List<Policy> policies = new ArrayList<>();
        private Plans plans = Plans.builder().plan("any", 1).defaultPlan("any").build();
        private @Nullable Function<HttpServletRequest, @Nullable RequestFacts> facts;
        private Predicate<HttpServletRequest> exempt = request -> false;
        private Duration retryAfterJitter = Duration.ZERO;
        private String problemTypeBase = "/problems/";
        private @Nullable PolicyVersions versions;
        private RateLimitRefusal.@Nullable Writer refusals;
        private @Nullable ConcurrencyStore concurrencyStore;
        private final List<ConcurrencyPolicy> concurrencyPolicies = new ArrayList<>();

        private Builder() {}

        /** Where the counters live (required). */
        public Builder store(RateLimitStore store) {
            this.store = store;
            return this;
        }

        /** Adds a policy; policies are checked and shown in the order added. */
        public Builder policy(Policy policy) {
            for (Policy existing : policies) {
                if (existing.name().equals(policy.name())) {
                    throw new IllegalArgumentException("policy already added: " + policy.name());
                }
            }
            if (concurrencyPolicies.stream().anyMatch(p -> p.name().equals(policy.name()))) {
                throw new IllegalArgumentException("policy already added: " + policy.name());
            }
            policies.add(policy);
            return this;
        }

        /** Where the concurrency limits count requests in flight (required with any). */
        public Builder concurrencyStore(ConcurrencyStore store) {
            this.concurrencyStore = store;
            return this;
        }

        /** Adds a concurrency limit; slots are taken in the order added, after the rate policies. */
        public Builder concurrencyPolicy(ConcurrencyPolicy policy) {
            boolean taken = policies.stream().anyMatch(p -> p.name().equals(policy.name()))
                    || concurrencyPolicies.stream().anyMatch(p -> p.name().equals(policy.name()));
            if (taken) {
                throw new IllegalArgumentException("policy already added: " + policy.name());
            }
            concurrencyPolicies.add(policy);
            return this;
        }

        /** Adds every concurrency limit of {@code list}, in order. */
        public Builder concurrencyPolicies(List<ConcurrencyPolicy> list) {
            list.forEach(this::concurrencyPolicy);
            return this;
        }

        /** Adds every policy of {@code list}, in order. */
        public Builder policies(List<Policy> list) {
            list.forEach(this::policy);
            return this;
        }

        /**
         * Versioned policy sets instead of {@link #policy} and {@link #policies}: each request is
         * counted under the set its account is on ({@link PolicyVersions#setFor(RequestFacts)}).
         */
        public Builder versions(PolicyVersions versions) {
            this.versions = versions;
            return this;
        }

        /** How plans scale quotas (default: every plan gets the policies' quotas as they are). */
        public Builder plans(Plans plans) {
            this.plans = plans;
            return this;
        }

        /** Who is calling, or {@code null} for a request that is not limited (required). */
        public Builder facts(Function<HttpServletRequest, @Nullable RequestFacts> facts) {
            this.facts = facts;
            return this;
        }

        /** Requests that spend nothing and only see their budgets (default: none). */
        public Builder exempt(Predicate<HttpServletRequest> exempt) {
            this.exempt = exempt;
            return this;
        }

        /**
         * The most extra time added at random to a refusal's {@code Retry-After} (default 0), in
         * whole seconds, as {@code Retry-After} counts them.
         */
        public Builder retryAfterJitter(Duration jitter) {
            if (jitter.isNegative()) {
                throw new IllegalArgumentException("retryAfterJitter must not be negative: " + jitter);
            }
            if (jitter.toNanosPart() != 0) {
                throw new IllegalArgumentException(
                        "retryAfterJitter must be whole seconds (Retry-After counts seconds): " + jitter);
            }
            this.retryAfterJitter = jitter;
            return this;
        }

        /** Prefix of problem {@code type} URIs (default {@code /problems/}). */
        public Builder problemTypeBase(String base) {
            this.problemTypeBase = FilterSettings.checkProblemTypeBase(base);
            return this;
        }

        /**
         * Who answers a refusal (default: the filter writes the problem as JSON itself). The
         * writer gets it once the headers are set and the body dropped, and answers it the
         * framework's way, e.g. the Spring starter's {@code ProblemDetail}.
         */
        public Builder refusals(RateLimitRefusal.Writer writer) {
            this.refusals = Objects.requireNonNull(writer, "writer");
            return this;
        }

        /**
         * The filter.
         *
         * @throws IllegalStateException if the store or the facts function was not set, both
         *     policies and versions were, or a concurrency limit was added without a concurrency
         *     store
         */
        public RateLimitFilter build() {
            if (store == null || facts == null) {
                throw new IllegalStateException("store and facts are required; missing:"
                        + (store == null ? " store" : "") + (facts == null ? " facts" : ""));
            }
            if (versions != null && !policies.isEmpty()) {
                throw new IllegalStateException(
                        "policies come either from policy()/policies() or from versions(), not both");
            }
            if (!concurrencyPolicies.isEmpty() && concurrencyStore == null) {
                throw new IllegalStateException("concurrency policies need concurrencyStore(...)");
            }
            return new RateLimitFilter(
                    new RateLimitSettings(
                            store,
                            policies,
                            plans,
                            facts,
                            exempt,
                            retryAfterJitter,
                            problemTypeBase,
                            versions,
                            concurrencyStore,
                            concurrencyPolicies),
                    refusals);
        }
    }
}
