package dev.retrysafe.servlet.internal;

import dev.retrysafe.ratelimit.Charge;
import dev.retrysafe.ratelimit.Decision;
import dev.retrysafe.ratelimit.DecisionBuffer;
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

    @Override
    public void decide(String partition, List<Charge> charges, DecisionBuffer into) {
        delegate.decide(partition, charges, into);
        switch (into.outcome()) {
            case ALLOWED -> {
                for (int i = 0; i < into.size(); i++) {
                    outcomes.decided(into.policy(i).name(), outcome(into, i));
                }
            }
            case REJECTED -> {
                int refusedBy = into.refusedBy();
                Decision.Rejected rejected = refusedBy >= 0 ? null : (Decision.Rejected) into.toDecision();
                String policy = rejected == null
                        ? into.policy(refusedBy).name()
                        : rejected.refusedBy().policy().name();
                outcomes.decided(policy, DecisionListener.REJECTED);
            }
            case UNAVAILABLE ->
                outcomes.decided(
                        java.util.Objects.requireNonNull(into.failedClosed()).name(), DecisionListener.UNAVAILABLE);
        }
    }

    /** {@link #outcome(PolicyState)} of state {@code i} of an allowed decision. */
    private static String outcome(DecisionBuffer allowed, int i) {
        if (allowed.wouldHaveRefused(i)) {
            return DecisionListener.SHADOW_REJECTED;
        }
        if (!allowed.known(i)) {
            return DecisionListener.FAILED_OPEN;
        }
        return allowed.local(i) ? DecisionListener.LOCAL_FALLBACK : DecisionListener.ALLOWED;
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
