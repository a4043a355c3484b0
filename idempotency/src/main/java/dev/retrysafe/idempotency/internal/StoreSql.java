package dev.retrysafe.idempotency.internal;

/**
 * The SQL of the JDBC store, portable between PostgreSQL and H2 (PostgreSQL mode). Every write
 * that changes who holds a row names the token it expects to find, so a stale holder's write
 * matches no row instead of overwriting a newer one.
 */
final class StoreSql {

    private StoreSql() {}

    static final String INSERT_CLAIM = """
            INSERT INTO idempotency_keys
                (account, route, idem_key, fingerprint, lease_token, lease_expires_at, created_at)
            VALUES (?, ?, ?, ?, ?, ?, ?)""";

    /** The columns {@link StoredRow#from} reads. */
    static final String ROW_COLUMNS = """
            fingerprint, lease_token, lease_expires_at, created_at, completed_at,
            response_status, response_headers, response_body""";

    static final String SELECT_ROW = "SELECT " + ROW_COLUMNS + """

            FROM idempotency_keys
            WHERE account = ? AND route = ? AND idem_key = ?""";

    /**
     * PostgreSQL, in the operation's transaction: bounds how long the transaction may stay idle
     * (the lease) and claims the key with two advisory locks, unless a stored answer within
     * retention makes it needless (replays never wait on each other). The first lock names the
     * key and this request's fingerprint, the second the key alone; every holder of the second
     * holds its first. So: first lock taken by another, the same request runs ({@code same});
     * first taken, second not, a different request runs ({@code other}); both taken, the key is
     * ours ({@code mine}). The {@code CASE} tries each lock only when the one before was taken.
     * Sent with {@link #SELECT_ROW} as one command of two statements, one round trip: the read is
     * a statement of its own so that its snapshot comes after the locks, and sees an answer
     * committed just before they were taken. Params: idle timeout (milliseconds, text), account,
     * route, key, retention cutoff, request lock, key lock, then {@link #SELECT_ROW}'s.
     */
    static final String LOCK_THEN_READ = """
            SELECT set_config('idle_in_transaction_session_timeout', ?, true) AS idle_timeout,
                   CASE WHEN EXISTS (SELECT 1 FROM idempotency_keys
                                     WHERE account = ? AND route = ? AND idem_key = ?
                                       AND completed_at IS NOT NULL AND created_at >= ?) THEN 'answered'
                        WHEN NOT pg_try_advisory_xact_lock(?) THEN 'same'
                        WHEN NOT pg_try_advisory_xact_lock(?) THEN 'other'
                        ELSE 'mine' END AS claim;
            """ + SELECT_ROW;

    /** Writes a key's row already completed (claims held outside the table). */
    static final String INSERT_COMPLETED = """
            INSERT INTO idempotency_keys
                (account, route, idem_key, fingerprint, lease_token, lease_expires_at, created_at,
                 completed_at, response_status, response_headers, response_body)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)""";

    /**
     * {@link #INSERT_COMPLETED}, then {@code COMMIT}, as one command (PostgreSQL runs both in one
     * round trip and skips the {@code COMMIT} when the insert fails); same parameters.
     */
    static final String INSERT_COMPLETED_THEN_COMMIT = INSERT_COMPLETED + "\n;\nCOMMIT";

    /** Deletes a stored answer past retention; params: account, route, key, token, cutoff. */
    static final String DELETE_EXPIRED_ANSWER = """
            DELETE FROM idempotency_keys
            WHERE account = ? AND route = ? AND idem_key = ?
              AND lease_token = ? AND completed_at IS NOT NULL AND created_at < ?""";

    /** Deletes a claim row whose lease ran out; params: account, route, key, token, now. */
    static final String DELETE_EXPIRED_LEASE = """
            DELETE FROM idempotency_keys
            WHERE account = ? AND route = ? AND idem_key = ?
              AND lease_token = ? AND completed_at IS NULL AND lease_expires_at < ?""";

    /** Takes over an in-progress claim whose lease ran out; params end with old token, now. */
    static final String TAKE_OVER_EXPIRED_LEASE = """
            UPDATE idempotency_keys
            SET fingerprint = ?, lease_token = ?, lease_expires_at = ?, created_at = ?
            WHERE account = ? AND route = ? AND idem_key = ?
              AND lease_token = ? AND completed_at IS NULL AND lease_expires_at < ?""";

    /** Turns a stored answer past retention into a fresh claim; params end with old token, cutoff. */
    static final String REPLACE_EXPIRED_ANSWER = """
            UPDATE idempotency_keys
            SET fingerprint = ?, lease_token = ?, lease_expires_at = ?, created_at = ?,
                completed_at = NULL, response_status = NULL, response_headers = NULL, response_body = NULL
            WHERE account = ? AND route = ? AND idem_key = ?
              AND lease_token = ? AND completed_at IS NOT NULL AND created_at < ?""";

    static final String COMPLETE = """
            UPDATE idempotency_keys
            SET completed_at = ?, response_status = ?, response_headers = ?, response_body = ?
            WHERE account = ? AND route = ? AND idem_key = ?
              AND lease_token = ? AND completed_at IS NULL""";

    static final String RELEASE = """
            DELETE FROM idempotency_keys
            WHERE account = ? AND route = ? AND idem_key = ?
              AND lease_token = ? AND completed_at IS NULL""";

    /**
     * Deletes one batch. The condition is repeated outside the sub-select because a row may change
     * (be replaced by a fresh claim) between the sub-select and the delete; params: cutoff,
     * cutoff, limit, cutoff, cutoff.
     */
    static final String PURGE_BATCH = """
            DELETE FROM idempotency_keys
            WHERE (account, route, idem_key) IN (
                    SELECT account, route, idem_key FROM idempotency_keys
                    WHERE created_at < ? AND (completed_at IS NOT NULL OR lease_expires_at < ?)
                    LIMIT ?)
              AND created_at < ? AND (completed_at IS NOT NULL OR lease_expires_at < ?)""";

    /** SQLState of a unique-constraint violation on PostgreSQL and on H2. */
    static final String UNIQUE_VIOLATION = "23505";
}
