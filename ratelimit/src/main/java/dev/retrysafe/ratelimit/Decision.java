package dev.retrysafe.ratelimit;

import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The outcome of checking every policy that applies to one request, in one atomic step: either
 * every policy was charged ({@link Allowed}) or none was. Renders into headers with
 * {@link RateLimitHeaders}.
 */
public sealed interface Decision permits Decision.Allowed, Decision.Rejected, Decision.Unavailable {

    /** The state of every policy that applied, in policy order. */
    List<PolicyState> states();

    /**
     * The known state of an enforced policy with the fewest remaining units relative to its
     * limit, if any (shadow policies are never shown to clients).
     */
    default @Nullable PolicyState closestToExhaustion() {
        PolicyState closest = null;
        for (PolicyState state : states()) {
            if (!state.known() || state.policy().shadow()) {
                continue;
            }
            if (closest == null
                    || (double) state.remaining() / state.limit() < (double) closest.remaining() / closest.limit()) {
                closest = state;
            }
        }
        return closest;
    }

    /**
     * Every enforced policy allowed the request and was charged. A shadow policy's state is
     * either charged too or, when it would have refused, a would-be refusal that spent nothing
     * ({@link ShadowPolicies#wouldHaveRefused}).
     */
    record Allowed(List<PolicyState> states) implements Decision {
        public Allowed {
            states = List.copyOf(states);
        }
    }

    /**
     * A policy refused the request; nothing was charged. {@code retryAfterSeconds} (at least 1)
     * is how long until every policy would allow it.
     */
    record Rejected(PolicyState refusedBy, long retryAfterSeconds, List<PolicyState> states) implements Decision {
        public Rejected {
            states = List.copyOf(states);
            if (retryAfterSeconds < 1) {
                throw new IllegalArgumentException("retryAfterSeconds must be at least 1: " + retryAfterSeconds);
            }
        }
    }

    /**
     * The store could not be reached and a fail-closed policy applies: answer {@code 503} with
     * {@code Retry-After}. Nothing was charged.
     */
    record Unavailable(Policy failedClosed, long retryAfterSeconds, List<PolicyState> states) implements Decision {
        public Unavailable {
            states = List.copyOf(states);
            if (retryAfterSeconds < 1) {
                throw new IllegalArgumentException("retryAfterSeconds must be at least 1: " + retryAfterSeconds);
            }
        }
    }
}
