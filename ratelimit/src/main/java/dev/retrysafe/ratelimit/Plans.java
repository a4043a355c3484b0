package dev.retrysafe.ratelimit;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;

/**
 * Plans scale quotas: a plan name maps to a factor that multiplies each policy's quota and burst
 * ({@link Policy#scaledBy}). A request whose plan is absent or unknown gets the default plan's
 * factor, so that a typo in an account's plan never grants more. {@link #defaults()}: {@code free}
 * 1 (the default), {@code pro} 10, {@code enterprise} 100, one order of magnitude per tier, which
 * is how most API price lists step. Immutable and threadsafe.
 */
public final class Plans {

    private final Map<String, Double> factors;
    private final String defaultPlan;
    private final ConcurrentHashMap<Scaled, Policy> scaled = new ConcurrentHashMap<>();

    private Plans(Builder builder) {
        this.factors = Map.copyOf(builder.factors);
        this.defaultPlan = builder.defaultPlan;
        if (!factors.containsKey(defaultPlan)) {
            throw new IllegalArgumentException("default plan " + defaultPlan + " is not one of " + factors.keySet());
        }
    }

    /** {@code free} 1 (default), {@code pro} 10, {@code enterprise} 100. */
    public static Plans defaults() {
        return builder()
                .plan("free", 1)
                .plan("pro", 10)
                .plan("enterprise", 100)
                .defaultPlan("free")
                .build();
    }

    /** An empty builder; name every plan and the default one. */
    public static Builder builder() {
        return new Builder();
    }

    /** The factor of {@code plan}: the default plan's when it is absent or unknown. */
    public double factorFor(@Nullable String plan) {
        Double factor = plan == null ? null : factors.get(normalize(plan));
        return factor != null ? factor : factors.get(defaultPlan);
    }

    /**
     * The charges of one request: one per policy that {@linkplain Policy#appliesTo applies}, in
     * policy order, keyed by the policy's scope, with the policy scaled by the request's plan and
     * costing the policy's cost times the route's (saturating, so a huge product is refused rather
     * than wrapped).
     */
    public List<Charge> chargesFor(List<Policy> policies, RequestFacts facts) {
        return chargesFor(policies, facts, null);
    }

    /**
     * The charges of one request under {@code set}: as {@link #chargesFor(List, RequestFacts)},
     * with every key prefixed by the set's {@linkplain PolicySet#counterKeyPrefix() counter key
     * prefix} (none for the current set), so that a previous set's policy never spends from the
     * counter of the current set's policy of the same name.
     */
    public List<Charge> chargesFor(PolicySet set, RequestFacts facts) {
        return chargesFor(set.policies(), facts, set.counterKeyPrefix());
    }

    private List<Charge> chargesFor(List<Policy> policies, RequestFacts facts, @Nullable String keyPrefix) {
        double factor = factorFor(facts.plan());
        List<Charge> charges = new ArrayList<>(policies.size());
        for (Policy policy : policies) {
            if (!policy.appliesTo(facts)) {
                continue;
            }
            String key = Objects.requireNonNull(policy.scope().keyFor(facts), "key of an applicable scope");
            if (keyPrefix != null) {
                key = keyPrefix + key;
            }
            long cost = saturatingMultiply(policy.cost(), facts.cost());
            charges.add(new Charge(scaled(policy, factor), key, cost));
        }
        return charges;
    }

    private Policy scaled(Policy policy, double factor) {
        if (factor == 1.0) {
            return policy;
        }
        return scaled.computeIfAbsent(
                new Scaled(policy, factor), s -> s.policy().scaledBy(s.factor()));
    }

    private static long saturatingMultiply(long a, long b) {
        long high = Math.multiplyHigh(a, b);
        long low = a * b;
        return high == 0 && low >= 0 ? low : Long.MAX_VALUE;
    }

    private static String normalize(String plan) {
        return plan.trim().toLowerCase(Locale.ROOT);
    }

    /** A policy under one factor: the cache key of scaled policies. */
    private record Scaled(Policy policy, double factor) {}

    /** Builds {@link Plans}. Not threadsafe. */
    public static final class Builder {
        private final Map<String, Double> factors = new LinkedHashMap<>();
        private String defaultPlan = "free";

        private Builder() {}

        /** Plan {@code name} (case-insensitive) multiplies quotas by {@code factor} (positive). */
        public Builder plan(String name, double factor) {
            Objects.requireNonNull(name, "name");
            if (name.isBlank()) {
                throw new IllegalArgumentException("plan name must not be blank");
            }
            if (!(factor > 0) || Double.isInfinite(factor)) {
                throw new IllegalArgumentException("factor of plan " + name + " must be positive: " + factor);
            }
            factors.put(normalize(name), factor);
            return this;
        }

        /** The plan of requests with no plan or an unknown one; {@code free} unless set. */
        public Builder defaultPlan(String name) {
            this.defaultPlan = normalize(Objects.requireNonNull(name, "name"));
            return this;
        }

        public Plans build() {
            return new Plans(this);
        }
    }
}
