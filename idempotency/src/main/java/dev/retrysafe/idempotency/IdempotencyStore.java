package dev.retrysafe.idempotency;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;

/**
 * Where idempotency keys, their claims and their stored answers live. Every time comes from the
 * caller (an injected wall clock), never from the database. Implementations are threadsafe and
 * safe to share across processes that use the same database.
 *
 * <p>Protocol: open the operation's transaction and {@linkplain #claim(Connection, Scope,
 * Fingerprint, Instant, Duration) claim} the scope in it; on {@link ClaimOutcome.Acquired} run the
 * operation in that transaction and {@link #complete} the claim in it before committing, or roll
 * back when the operation failed and may be retried; in both cases call {@link #finished} once the
 * transaction has ended. On any other outcome, end the transaction and answer from the outcome.
 *
 * <p>A store whose claims are committed on a connection of its own (see {@link
 * #claimsOnOwnConnection()}, and {@link ClaimMode#ROWS}) is used the other way round: {@linkplain
 * #claim(Scope, Fingerprint, Instant, Duration) claim} first, and open the operation's transaction
 * only for an {@link ClaimOutcome.Acquired} claim; then as above, calling {@link #finished} once
 * the transaction's connection is given back. A caller then holds one pooled connection at a
 * time, never two: in the first order it would hold the transaction's connection while the claim
 * waits for a second one, and with more such callers than the pool has connections, every one of
 * them waits for a connection that none gives back. Such stores also offer {@link #complete} or
 * {@link #release} without {@link #finished}, the older protocol.
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
     * Claims {@code scope} for an operation about to run in {@code transaction} (not in
     * auto-commit mode), with the same outcomes as {@link #claim(Scope, Fingerprint, Instant,
     * Duration)}. A store may hold the claim in the transaction itself (a lock), so the caller
     * must run the operation and {@link #complete} in this very transaction and call
     * {@link #finished} when it ended. By default the claim is made on its own, as the older
     * protocol does, and {@code transaction} is not touched.
     *
     * @throws IdempotencyStoreException if the database fails; the caller must roll back
     */
    default ClaimOutcome claim(
            Connection transaction, Scope scope, Fingerprint fingerprint, Instant now, Duration lease) {
        return claim(scope, fingerprint, now, lease);
    }

    /**
     * Whether {@link #claim(Connection, Scope, Fingerprint, Instant, Duration) claims} are committed
     * on a connection this store takes for the purpose and gives back at once, apart from the
     * caller's transaction, which they never touch ({@code true}), or may live in the caller's
     * transaction, as a lock that ends with it or a claim that needs it ({@code false}).
     *
     * <p>When {@code true}, a caller should claim with {@link #claim(Scope, Fingerprint, Instant,
     * Duration)} before it opens the operation's transaction, and call {@link #finished} after the
     * transaction's connection went back (a release takes a connection too): each operation then
     * holds one pooled connection at a time. When {@code false}, the claim must be made in the
     * operation's transaction, as the interface's protocol says.
     *
     * <p>By default {@code false}, the answer that is safe for any store: one that does not say is
     * asked in the operation's transaction, at the cost of a second connection while it claims.
     * A store whose claims are its own transactions returns {@code true}. The answer never
     * changes for a given store.
     */
    default boolean claimsOnOwnConnection() {
        return false;
    }

    /**
     * Called once the transaction of an {@linkplain ClaimOutcome.Acquired acquired} claim has
     * ended: {@code committed} after {@link #complete} and a successful commit, otherwise after a
     * rollback (or a failed commit), so that the next request with the key runs the operation
     * again. By default a rolled-back claim is {@linkplain #release released}, on a connection of
     * its own: a caller of a store that {@linkplain #claimsOnOwnConnection() claims on its own
     * connection} gives the transaction's connection back first. Never throws; a claim that cannot
     * be released expires with its lease.
     */
    default void finished(Claim claim, boolean committed) {
        if (!committed) {
            try {
                release(claim);
            } catch (RuntimeException e) {
                System.getLogger("dev.retrysafe.idempotency")
                        .log(System.Logger.Level.WARNING, "could not release the claim; it expires with its lease", e);
            }
        }
    }

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
     * {@link #complete Stores} {@code response} as the answer of {@code claim} and commits
     * {@code transaction}: the operation's effects and its answer become durable together. By
     * default the two steps one after the other; a store may send both to the database at once
     * (one round trip instead of two). Either way, when this throws the caller must roll back, as
     * after a failed {@code commit()}: the answer and the effects committed together or not at all.
     *
     * @param now the current wall time
     * @throws ClaimLostException if the claim is no longer held; nothing was committed
     * @throws IdempotencyStoreException if the database fails while storing the answer; nothing
     *     was committed
     * @throws SQLException if the commit itself fails
     */
    default void completeAndCommit(Connection transaction, Claim claim, StoredResponse response, Instant now)
            throws SQLException {
        complete(transaction, claim, response, now);
        transaction.commit();
    }

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
