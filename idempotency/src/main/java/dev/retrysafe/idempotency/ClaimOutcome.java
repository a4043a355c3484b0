package dev.retrysafe.idempotency;

import java.time.Duration;

/**
 * What {@link IdempotencyStore#claim} found for a scope. Every case is an ordinary outcome that
 * the caller turns into an HTTP answer. Instances are immutable and threadsafe.
 */
public sealed interface ClaimOutcome {

    /**
     * The caller holds the claim and must run the operation, then
     * {@linkplain IdempotencyStore#complete complete} or {@linkplain IdempotencyStore#release
     * release} it.
     *
     * @param claim the claim now held
     * @param takenOver {@code true} when an earlier holder of the same request had let its lease
     *     run out and this claim replaced it (that holder died or was too slow; its work never
     *     committed). Only the same request (fingerprint) takes a lease over.
     */
    record Acquired(Claim claim, boolean takenOver) implements ClaimOutcome {}

    /**
     * The same request already finished; answer with its stored response.
     *
     * @param response the stored answer
     */
    record Replay(StoredResponse response) implements ClaimOutcome {}

    /**
     * The same request is running right now under another claim whose lease is still valid.
     *
     * @param leaseRemaining how long until that lease runs out (the longest a retry must wait)
     */
    record InFlight(Duration leaseRemaining) implements ClaimOutcome {}

    /**
     * The key was used for a different request (another fingerprint): finished, still running,
     * or abandoned by a holder that died (whose effects outside the database, such as a charge,
     * may stand under this key).
     */
    record Mismatch() implements ClaimOutcome {}
}
