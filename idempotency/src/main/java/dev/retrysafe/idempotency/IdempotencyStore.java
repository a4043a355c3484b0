package dev.retrysafe.idempotency;

import java.sql.Connection;
import java.time.Duration;
import java.time.Instant;

/**
 * Where idempotency keys, their claims and their stored answers live. Every time comes from the
 * caller (an injected wall clock), never from the database. Implementations are threadsafe and
 * safe to share across processes that use the same database.
 *
 * <p>Protocol: {@link #claim} the scope; on {@link ClaimOutcome.Acquired} run the operation in a
 * transaction and {@link #complete} the claim in that same transaction before committing, or roll
 * back and {@link #release} the claim when the operation failed and may be retried.
 */
public interface IdempotencyStore {

    /**
     * Claims {@code scope} for the request with {@code fingerprint}, atomically across threads and
     * processes. A claim whose lease ran out is taken over (whatever its fingerprint, since its
     * holder never committed); a stored answer older than the store's retention counts as absent.
     *
     * @param now the current wall time
     * @param lease how long the claim is held before another request may take it over (positive)
     * @throws IdempotencyStoreException if the database fails
     */
    ClaimOutcome claim(Scope scope, Fingerprint fingerprint, Instant now, Duration lease);

    /**
     * Stores {@code response} as the answer of {@code claim}, inside the caller's transaction
     * {@code transaction}, so that the operation's effects and its answer commit together. Does
     * not commit.
     *
     * @param now the current wall time
     * @throws ClaimLostException if the claim is no longer held; the caller must roll back
     * @throws IdempotencyStoreException if the database fails; the caller must roll back
     */
    void complete(Connection transaction, Claim claim, StoredResponse response, Instant now);

    /**
     * Gives up {@code claim} so that the next request with its key runs the operation again. Used
     * after the operation failed (5xx or crash) and its transaction was rolled back. Runs in its
     * own transaction. Does nothing if the claim is no longer held.
     *
     * @return whether the claim was still held and is now released
     * @throws IdempotencyStoreException if the database fails (the lease then expires on its own)
     */
    boolean release(Claim claim);

    /**
     * Deletes every key created before {@code cutoff}: stored answers, and abandoned claims whose
     * lease also ran out before {@code cutoff}. Works in bounded batches, each its own
     * transaction, so it never holds many locks for long.
     *
     * @return how many keys were deleted
     * @throws IdempotencyStoreException if the database fails (batches done so far stay done)
     */
    int purge(Instant cutoff);
}
