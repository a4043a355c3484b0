package dev.retrysafe.spring.internal;

import dev.retrysafe.servlet.DecisionListener;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * Retrysafe's decisions as Micrometer counters, named so that their Prometheus names are the
 * Retrysafe server's: {@code retrysafe_ratelimit_decisions_total{policy,outcome}},
 * {@code retrysafe_ratelimit_refunds_total{policy}} and
 * {@code retrysafe_idempotency_claims_total{outcome}}. Threadsafe.
 */
public final class MicrometerOutcomes implements DecisionListener {

    /**
     * Rate-limit decisions by policy and outcome (allowed, rejected, unavailable, shadow_rejected,
     * failed_open, local_fallback: see {@link DecisionListener#decided}).
     */
    public static final String DECISIONS = "retrysafe.ratelimit.decisions";
    /** Charges given back by policy (replays and 409s spend nothing). */
    public static final String REFUNDS = "retrysafe.ratelimit.refunds";
    /** Idempotency claims by outcome (acquired, replayed, in_flight: 409, mismatch: 422). */
    public static final String CLAIMS = "retrysafe.idempotency.claims";

    private final MeterRegistry registry;

    /** Counts into {@code registry}. */
    public MicrometerOutcomes(MeterRegistry registry) {
        this.registry = registry;
    }

    @Override
    public void claimed(String outcome) {
        registry.counter(CLAIMS, "outcome", outcome).increment();
    }

    @Override
    public void decided(String policy, String outcome) {
        registry.counter(DECISIONS, "policy", policy, "outcome", outcome).increment();
    }

    @Override
    public void refunded(String policy) {
        registry.counter(REFUNDS, "policy", policy).increment();
    }
}
