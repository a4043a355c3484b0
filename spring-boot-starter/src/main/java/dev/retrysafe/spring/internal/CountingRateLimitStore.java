package dev.retrysafe.spring.internal;

import dev.retrysafe.ratelimit.Charge;
import dev.retrysafe.ratelimit.Decision;
import dev.retrysafe.ratelimit.RateLimitStore;
import java.util.List;

/** A store that counts its decisions and refunds per policy and otherwise does what its delegate does. Threadsafe. */
public final class CountingRateLimitStore implements RateLimitStore {

    private final RateLimitStore delegate;
    private final RequestOutcomes outcomes;

    /** Counts the decisions of {@code delegate} into {@code outcomes}. */
    public CountingRateLimitStore(RateLimitStore delegate, RequestOutcomes outcomes) {
        this.delegate = delegate;
        this.outcomes = outcomes;
    }

    @Override
    public Decision decide(String partition, List<Charge> charges) {
        Decision decision = delegate.decide(partition, charges);
        switch (decision) {
            case Decision.Allowed allowed ->
                charges.forEach(charge -> outcomes.decision(charge.policy().name(), "allowed"));
            case Decision.Rejected rejected ->
                outcomes.decision(rejected.refusedBy().policy().name(), "rejected");
            case Decision.Unavailable unavailable ->
                outcomes.decision(unavailable.failedClosed().name(), "unavailable");
        }
        return decision;
    }

    @Override
    public Decision peek(String partition, List<Charge> charges) {
        return delegate.peek(partition, charges);
    }

    @Override
    public Decision refund(String partition, List<Charge> charges) {
        charges.forEach(charge -> outcomes.refund(charge.policy().name()));
        return delegate.refund(partition, charges);
    }

    @Override
    public void close() {
        delegate.close();
    }
}
