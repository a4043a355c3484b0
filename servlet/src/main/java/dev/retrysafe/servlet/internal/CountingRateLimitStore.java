package dev.retrysafe.servlet.internal;

import dev.retrysafe.ratelimit.Charge;
import dev.retrysafe.ratelimit.Decision;
import dev.retrysafe.ratelimit.PolicyState;
import dev.retrysafe.ratelimit.RateLimitStore;
import dev.retrysafe.ratelimit.ShadowPolicies;
import dev.retrysafe.servlet.DecisionListener;
import java.util.List;

/** A store that counts its decisions and refunds per policy and otherwise does what its delegate does. Threadsafe. */
public final class CountingRateLimitStore implements RateLimitStore {

    private final RateLimitStore delegate;
    private final DecisionListener outcomes;

    /** Counts the decisions of {@code delegate} into {@code outcomes}. */
    public CountingRateLimitStore(RateLimitStore delegate, DecisionListener outcomes) {
        this.delegate = delegate;
        this.outcomes = outcomes;
    }

    @Override
    public Decision decide(String partition, List<Charge> charges) {
        Decision decision = delegate.decide(partition, charges);
        switch (decision) {
            case Decision.Allowed allowed -> {
                for (PolicyState state : allowed.states()) {
                    outcomes.decided(state.policy().name(), outcome(state));
                }
            }
            case Decision.Rejected rejected ->
                outcomes.decided(rejected.refusedBy().policy().name(), DecisionListener.REJECTED);
            case Decision.Unavailable unavailable ->
                outcomes.decided(unavailable.failedClosed().name(), DecisionListener.UNAVAILABLE);
        }
        return decision;
    }

    /** What a policy of an allowed request did: see {@link DecisionListener#decided}. */
    private static String outcome(PolicyState state) {
        if (ShadowPolicies.wouldHaveRefused(state)) {
            return DecisionListener.SHADOW_REJECTED;
        }
        if (!state.known()) {
            return DecisionListener.FAILED_OPEN;
        }
        return state.local() ? DecisionListener.LOCAL_FALLBACK : DecisionListener.ALLOWED;
    }

    @Override
    public Decision peek(String partition, List<Charge> charges) {
        return delegate.peek(partition, charges);
    }

    @Override
    public Decision refund(String partition, List<Charge> charges) {
        charges.forEach(charge -> outcomes.refunded(charge.policy().name()));
        return delegate.refund(partition, charges);
    }

    @Override
    public void close() {
        delegate.close();
    }
}
