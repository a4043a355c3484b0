package dev.retrysafe.servlet;

import dev.retrysafe.idempotency.IdempotencyStore;
import dev.retrysafe.ratelimit.ConcurrencyStore;
import dev.retrysafe.ratelimit.RateLimitStore;
import dev.retrysafe.servlet.internal.CountingConcurrencyStore;
import dev.retrysafe.servlet.internal.CountingIdempotencyStore;
import dev.retrysafe.servlet.internal.CountingRateLimitStore;

/**
 * Hears every decision the idempotency and rate-limit steps make, so that an integration can
 * count them (the Retrysafe server's {@code /metrics}, the Spring Boot starter's Micrometer
 * meters: the same counts under the same names). Attach it by building the filters on the
 * {@linkplain #counting(IdempotencyStore, DecisionListener) counting stores}. Called on the
 * request's thread, once per decision; implementations are threadsafe and fast, and never throw.
 */
public interface DecisionListener {

    /** Hears nothing. */
    DecisionListener NONE = new DecisionListener() {
        @Override
        public void claimed(String outcome) {}

        @Override
        public void decided(String policy, String outcome) {}

        @Override
        public void refunded(String policy) {}
    };

    /**
     * An idempotency key was claimed: {@code acquired} (the request runs), {@code replayed},
     * {@code in_flight} (answered 409) or {@code mismatch} (answered 422).
     */
    void claimed(String outcome);

    /** Outcome of a policy that allowed the request and was charged in the shared store. */
    String ALLOWED = "allowed";
    /** Outcome of the policy that refused the request ({@code 429}), wherever it was counted. */
    String REJECTED = "rejected";
    /** Outcome of the fail-closed policy that refused the request while its store was unreachable ({@code 503}). */
    String UNAVAILABLE = "unavailable";
    /** Outcome of a shadow policy that would have refused an allowed request (and spent nothing). */
    String SHADOW_REJECTED = "shadow_rejected";
    /** Outcome of a fail-open policy that let the request through uncounted (store unreachable). */
    String FAILED_OPEN = "failed_open";
    /**
     * Outcome of a fail-local policy that allowed the request at this instance's share, counted in
     * this process while its store was unreachable.
     */
    String LOCAL_FALLBACK = "local_fallback";

    /**
     * A rate-limit decision. An allowed request reports every policy that applied:
     * {@value #ALLOWED}, or, for a shadow policy that would have refused, {@value #SHADOW_REJECTED};
     * while the store is unreachable, {@value #FAILED_OPEN} or {@value #LOCAL_FALLBACK}. A
     * refused request reports only the policy that refused: {@value #REJECTED} (also when a local
     * share refused) or {@value #UNAVAILABLE}. Concurrency limits are heard the same way
     * ({@value #ALLOWED} for every slot taken) through
     * {@link #counting(ConcurrencyStore, DecisionListener)}.
     */
    void decided(String policy, String outcome);

    /** The charge of {@code policy} was given back (a replay, a 409, the idempotency store down). */
    void refunded(String policy);

    /** {@code store}, telling {@code listener} the outcome of every claim. */
    static IdempotencyStore counting(IdempotencyStore store, DecisionListener listener) {
        return new CountingIdempotencyStore(store, listener);
    }

    /** {@code store}, telling {@code listener} every decision and refund. */
    static RateLimitStore counting(RateLimitStore store, DecisionListener listener) {
        return new CountingRateLimitStore(store, listener);
    }

    /** {@code store}, telling {@code listener} the outcome of every acquisition of concurrency slots. */
    static ConcurrencyStore counting(ConcurrencyStore store, DecisionListener listener) {
        return new CountingConcurrencyStore(store, listener);
    }
}
