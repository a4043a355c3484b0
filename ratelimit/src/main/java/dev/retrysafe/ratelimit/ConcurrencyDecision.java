package dev.retrysafe.ratelimit;

/**
 * The outcome of asking for every slot one request needs, in one atomic step: either it got all
 * of them ({@link Acquired}) or none ({@link Refused}, {@link Unavailable}).
 */
public sealed interface ConcurrencyDecision
        permits ConcurrencyDecision.Acquired, ConcurrencyDecision.Refused, ConcurrencyDecision.Unavailable {

    /**
     * Every slot was taken (or, with the store unreachable, every limit fails open and nothing
     * was counted); release the permit when the request ends.
     */
    record Acquired(Permit permit) implements ConcurrencyDecision {}

    /**
     * {@code refusedBy} already has {@code inFlight} requests (at least its limit) running; nothing
     * was taken. A slot frees as soon as one of them ends, which no one can foresee, so
     * {@code retryAfterSeconds} is a hint (at least 1).
     */
    record Refused(ConcurrencySlot refusedBy, int inFlight, long retryAfterSeconds) implements ConcurrencyDecision {
        public Refused {
            if (retryAfterSeconds < 1) {
                throw new IllegalArgumentException("retryAfterSeconds must be at least 1: " + retryAfterSeconds);
            }
        }
    }

    /**
     * The store could not be reached and {@code failedClosed} fails closed: answer {@code 503} with
     * {@code Retry-After}. Nothing was taken.
     */
    record Unavailable(ConcurrencyPolicy failedClosed, long retryAfterSeconds) implements ConcurrencyDecision {
        public Unavailable {
            if (retryAfterSeconds < 1) {
                throw new IllegalArgumentException("retryAfterSeconds must be at least 1: " + retryAfterSeconds);
            }
        }
    }
}
