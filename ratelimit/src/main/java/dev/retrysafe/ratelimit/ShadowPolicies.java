package dev.retrysafe.ratelimit;

import dev.retrysafe.ratelimit.internal.ShadowLog;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * How a {@link RateLimitStore} decides a request that has {@linkplain PolicyMode#SHADOW shadow}
 * policies among its charges, written once for every store. Stateless and threadsafe.
 *
 * <p>Two steps. First the enforced charges, all or nothing, atomically, exactly as if the shadow
 * ones were not there: their decision is the request's, so a shadow policy never refuses and
 * never changes what the enforced ones decide. Only when they allowed the request, each shadow
 * charge is decided on its own, as if it were enforced beside them: it is spent if it fits, and
 * otherwise spends nothing and is reported as a would-be refusal, the state it would have
 * refused with (its {@link PolicyState#retryAfterMicros()} positive) inside the
 * {@link Decision.Allowed}. So a shadow policy counts exactly the requests it would have counted
 * had it been enforced; a request the enforced policies refuse spends nothing under it; and two
 * shadow policies never affect each other. The price: one more store call per shadow policy for
 * a request that has any, and the steps are atomic each, not together.
 *
 * <p>Would-be refusals are logged (logger {@code dev.retrysafe.ratelimit.shadow}, INFO) at most
 * once per policy every ten seconds, with the count since the previous line.
 */
public final class ShadowPolicies {

    private ShadowPolicies() {}

    /** Whether any of {@code charges} is under a shadow policy. */
    public static boolean any(List<Charge> charges) {
        for (int i = 0; i < charges.size(); i++) {
            if (charges.get(i).policy().shadow()) {
                return true;
            }
        }
        return false;
    }

    /**
     * Whether {@code state} is a shadow policy's would-be refusal: the request went on, but that
     * policy would have refused it and spent nothing.
     */
    public static boolean wouldHaveRefused(PolicyState state) {
        return state.policy().shadow() && state.retryAfterMicros() > 0;
    }

    /**
     * Decides {@code charges} in the two steps above with {@code step}, the store's own
     * all-or-nothing decision; without shadow charges, just {@code step(charges)}.
     *
     * @return the enforced step's {@link Decision.Rejected} or {@link Decision.Unavailable} as it
     *         is (shadow policies then have no state in it), or an {@link Decision.Allowed} with
     *         every state in the order of {@code charges}
     */
    public static Decision decide(List<Charge> charges, Function<List<Charge>, Decision> step) {
        if (!any(charges)) {
            return step.apply(charges);
        }
        List<Charge> enforced = new ArrayList<>(charges.size());
        for (Charge charge : charges) {
            if (!charge.policy().shadow()) {
                enforced.add(charge);
            }
        }
        Decision first = enforced.isEmpty() ? new Decision.Allowed(List.of()) : step.apply(enforced);
        if (!(first instanceof Decision.Allowed allowed)) {
            return first;
        }
        List<PolicyState> states = new ArrayList<>(charges.size());
        int next = 0;
        for (Charge charge : charges) {
            states.add(
                    charge.policy().shadow()
                            ? shadowState(step.apply(List.of(charge)))
                            : allowed.states().get(next++));
        }
        return new Decision.Allowed(states);
    }

    /** The one state of a shadow charge's own decision. */
    private static PolicyState shadowState(Decision decision) {
        return switch (decision) {
            case Decision.Allowed allowed -> allowed.states().getFirst();
            case Decision.Rejected rejected -> {
                ShadowLog.wouldHaveRefused(rejected.refusedBy().policy().name());
                yield rejected.refusedBy();
            }
            // stores never fail closed for a shadow policy; should one, its state is unknown
            case Decision.Unavailable unavailable -> unavailable.states().getFirst();
        };
    }
}
