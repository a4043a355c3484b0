package dev.retrysafe.spring.internal;

/**
 * Where the counts of Retrysafe's decisions go (the meters, when Micrometer is present). One
 * call per decision, on the request's thread; implementations are threadsafe and fast.
 */
public interface RequestOutcomes {

    /** Counts nothing. */
    RequestOutcomes NONE = new RequestOutcomes() {
        @Override
        public void claim(String outcome) {}

        @Override
        public void decision(String policy, String outcome) {}

        @Override
        public void refund(String policy) {}
    };

    /** An idempotency claim's outcome: {@code acquired}, {@code replayed}, {@code in_flight} (409), {@code mismatch} (422). */
    void claim(String outcome);

    /** A rate-limit decision of {@code policy}: {@code allowed}, {@code rejected} or {@code unavailable}. */
    void decision(String policy, String outcome);

    /** A charge of {@code policy} given back (a replay, a 409). */
    void refund(String policy);
}
