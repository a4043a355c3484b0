package dev.retrysafe.ratelimit.redis.internal;

import dev.retrysafe.ratelimit.Charge;
import dev.retrysafe.ratelimit.Decision;
import dev.retrysafe.ratelimit.InMemoryRateLimitStore;
import dev.retrysafe.ratelimit.Policy;
import dev.retrysafe.ratelimit.PolicyState;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Counts in this process what Redis cannot count now, for policies that fail
 * {@linkplain dev.retrysafe.ratelimit.FailMode#LOCAL local}: each policy's quota and burst are cut
 * into {@code shares} (one per instance expected to be running), and this instance enforces one
 * share in an {@link InMemoryRateLimitStore}. The local counts are not merged back into Redis
 * when it returns (Redis simply counts on from what it held); they stay in memory, idle keys
 * dropped as the in-memory store drops them, so a second outage in the same window starts from
 * this instance's earlier local spending, never from a fresh share. Threadsafe.
 */
public final class LocalFallback {

    private final int shares;
    private final InMemoryRateLimitStore store;
    private final Map<Policy, Policy> sharedPolicies = new ConcurrentHashMap<>();

    /**
     * @param shares how many instances share each quota while Redis is unreachable, at least 1
     * @param clock  the wall clock local decisions are made at
     */
    public LocalFallback(int shares, Clock clock) {
        if (shares < 1) {
            throw new IllegalArgumentException("fallbackInstances must be at least 1: " + shares);
        }
        this.shares = shares;
        this.store = InMemoryRateLimitStore.builder().clock(clock).build();
    }

    /** How many shares each quota is cut into. */
    public int shares() {
        return shares;
    }

    /**
     * Charges, peeks at or refunds {@code charges} (every one of a local policy) in this process,
     * at each policy's share. The states name the callers' policies, are
     * {@linkplain PolicyState#local() local}, and their limits are the shares.
     */
    public Decision decide(List<Charge> charges, ScriptCall.Mode mode) {
        List<Charge> local = new ArrayList<>(charges.size());
        for (Charge charge : charges) {
            local.add(new Charge(share(charge.policy()), charge.key(), charge.cost()));
        }
        Decision decision = switch (mode) {
            case CHARGE -> store.decide("", local);
            case PEEK -> store.peek("", local);
            case REFUND -> store.refund("", local);
        };
        return switch (decision) {
            case Decision.Allowed allowed -> new Decision.Allowed(asCallers(charges, allowed.states()));
            case Decision.Rejected rejected -> {
                List<PolicyState> states = asCallers(charges, rejected.states());
                yield new Decision.Rejected(
                        states.get(rejected.states().indexOf(rejected.refusedBy())),
                        rejected.retryAfterSeconds(),
                        states);
            }
            // an in-memory store that is full fails closed only for a fail-closed policy, never for a local one
            case Decision.Unavailable unavailable ->
                throw new IllegalStateException("local fallback failed closed for " + unavailable.failedClosed());
        };
    }

    private Policy share(Policy policy) {
        Policy shared = sharedPolicies.get(policy);
        return shared != null ? shared : sharedPolicies.computeIfAbsent(policy, p -> p.sharedBy(shares));
    }

    private static List<PolicyState> asCallers(List<Charge> charges, List<PolicyState> states) {
        List<PolicyState> named = new ArrayList<>(states.size());
        for (int i = 0; i < states.size(); i++) {
            PolicyState s = states.get(i);
            named.add(new PolicyState(
                    charges.get(i).policy(),
                    s.key(),
                    s.limit(),
                    s.remaining(),
                    s.resetMicros(),
                    s.retryAfterMicros(),
                    s.nowMicros(),
                    s.known(),
                    s.known()));
        }
        return named;
    }
}
