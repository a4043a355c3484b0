package dev.retrysafe.idempotency;

/**
 * How a {@link JdbcIdempotencyStore} keeps a key claimed while its operation runs. Every mode
 * stores answers the same way (one row per key, written in the operation's transaction) and
 * gives the same guarantees: one operation per key at a time, one stored answer, nothing stuck
 * after a crash. They differ in what a claim costs and in what bounds a stuck holder.
 */
public enum ClaimMode {

    /**
     * A claim is a committed row with a lease (its own transaction before the operation's), taken
     * over once the lease has run out. Works for any number of processes on PostgreSQL or H2, and
     * every time decision follows the caller's clock. Costs one more transaction per first use.
     * The claim runs on a connection of its own ({@link IdempotencyStore#claimsOnOwnConnection()}),
     * so a caller claims before it opens the operation's transaction and never holds two
     * connections at once.
     */
    ROWS,

    /**
     * PostgreSQL only: a claim is a pair of transaction-scoped advisory locks (one on the key and
     * the request's fingerprint, so that a different request is told apart while the first still
     * runs, one on the key) taken by the operation's own transaction ({@link
     * IdempotencyStore#claim(java.sql.Connection, Scope, Fingerprint, java.time.Instant,
     * java.time.Duration)}), and the key's row is written once, already completed. The locks end
     * with the transaction (commit, rollback, or the connection dying), and the lease becomes the
     * transaction's {@code idle_in_transaction_session_timeout}, so a holder that stops for longer
     * than the lease loses its session. Any number of processes. Leases follow real time, not the
     * caller's clock.
     */
    POSTGRES_ADVISORY_LOCKS,

    /**
     * A claim is an entry in this store's memory, and the key's row is written once, already
     * completed. Only for a database that this one process uses (an embedded database): another
     * process would not see the claims. Leases follow the caller's clock, as with {@link #ROWS}.
     */
    IN_PROCESS
}
