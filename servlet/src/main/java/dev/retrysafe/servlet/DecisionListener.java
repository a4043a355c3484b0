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

    /**
     * A rate-limit decision: {@code allowed} for every policy charged, or {@code rejected} or
     * {@code unavailable} for the policy that refused. Concurrency limits are heard the same way
     * ({@code allowed} for every slot taken) through {@link #counting(ConcurrencyStore, DecisionListener)}.
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
