package dev.retrysafe.idempotency.internal;

/**
 * The SQL of the JDBC store, portable between PostgreSQL and H2 (PostgreSQL mode). Every write
 * that changes who holds a row names the token it expects to find, so a stale holder's write
 * matches no row instead of overwriting a newer one.
 */
final class StoreSql {

    private StoreSql() {
    }

    static final String INSERT_CLAIM = """
            INSERT INTO idempotency_keys
                (account, route, idem_key, fingerprint, lease_token, lease_expires_at, created_at)
            VALUES (?, ?, ?, ?, ?, ?, ?)""";

    static final String SELECT_ROW = """
            SELECT fingerprint, lease_token, lease_expires_at, created_at, completed_at,
                   response_status, response_headers, response_body
            FROM idempotency_keys
            WHERE account = ? AND route = ? AND idem_key = ?""";

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
