package dev.retrysafe.servlet.internal;

import dev.retrysafe.ratelimit.ConcurrencyDecision;
import dev.retrysafe.ratelimit.ConcurrencySlot;
import dev.retrysafe.ratelimit.ConcurrencyStore;
import dev.retrysafe.servlet.DecisionListener;
import java.util.List;

/**
 * A concurrency store that counts its acquisitions per policy, as the rate-limit decisions are
 * counted ({@code allowed}, {@code rejected}, {@code unavailable}), and otherwise does what its
 * delegate does. Threadsafe.
 */
public final class CountingConcurrencyStore implements ConcurrencyStore {

    private final ConcurrencyStore delegate;
    private final DecisionListener outcomes;

    /** Counts the acquisitions of {@code delegate} into {@code outcomes}. */
    public CountingConcurrencyStore(ConcurrencyStore delegate, DecisionListener outcomes) {
        this.delegate = delegate;
        this.outcomes = outcomes;
    }

    @Override
    public ConcurrencyDecision acquire(String partition, List<ConcurrencySlot> slots) {
        ConcurrencyDecision decision = delegate.acquire(partition, slots);
        switch (decision) {
            case ConcurrencyDecision.Acquired acquired ->
                slots.forEach(slot -> outcomes.decided(slot.policy().name(), "allowed"));
            case ConcurrencyDecision.Refused refused ->
                outcomes.decided(refused.refusedBy().policy().name(), "rejected");
            case ConcurrencyDecision.Unavailable unavailable ->
                outcomes.decided(unavailable.failedClosed().name(), "unavailable");
        }
        return decision;
    }

    @Override
    public int inFlight(String partition, ConcurrencySlot slot) {
        return delegate.inFlight(partition, slot);
    }

    @Override
    public void close() {
        delegate.close();
    }
}
