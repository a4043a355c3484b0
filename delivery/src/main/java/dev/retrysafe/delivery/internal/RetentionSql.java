package dev.retrysafe.delivery.internal;

/**
 * The SQL of the retention purge: small batches chosen by index ({@code delivery_attempts_started},
 * {@code deliveries_created}, the primary key of {@code delivery_ordering_keys}) and deleted by
 * primary key, each batch its own short transaction.
 */
final class RetentionSql {

    private RetentionSql() {}

    /** The oldest attempts started before a time; params: cutoff, batch size. */
    static final String OLD_ATTEMPTS =
            "SELECT id FROM delivery_attempts WHERE started_at < ? ORDER BY started_at, id LIMIT ?";

    /** Deletes attempts by id; param: ids. */
    static final String DELETE_ATTEMPTS = "DELETE FROM delivery_attempts WHERE id = ANY (?)";

    /**
     * Deliveries created before a time, oldest first, one chunk of a keyset scan (unfinished
     * ones are read and passed over, so a run always moves on). Params: cutoff, batch size.
     */
    static final String OLD_DELIVERIES_FIRST = """
            SELECT id, created_at, next_attempt_at FROM deliveries
            WHERE created_at < ?
            ORDER BY created_at, id
            LIMIT ?""";

    /** The next chunk after (created_at, id); params: cutoff, created_at, created_at, id, batch size. */
    static final String OLD_DELIVERIES_AFTER = """
            SELECT id, created_at, next_attempt_at FROM deliveries
            WHERE created_at < ? AND (created_at > ? OR (created_at = ? AND id > ?))
            ORDER BY created_at, id
            LIMIT ?""";

    /**
     * Deletes finished deliveries by id (their attempts go by cascade), checking again that they
     * are finished and old: a retry made meanwhile keeps its delivery. A held delivery (pending,
     * {@code next_attempt_at} NULL: its endpoint is paused, or it waits for its key's head) is not
     * finished, whatever its age. Params: ids, cutoff.
     */
    static final String DELETE_DELIVERIES = """
            DELETE FROM deliveries WHERE id = ANY (?) AND next_attempt_at IS NULL AND created_at < ?
              AND status IN ('succeeded', 'failed')""";

    /**
     * The first rows of {@code delivery_ordering_keys} by primary key, one chunk of a keyset scan,
     * each with whether a delivery of its (endpoint, key) exists (1) or not (0); param: batch size.
     */
    static final String KEYS_FIRST = """
            SELECT k.endpoint_id, k.ordering_key,
                   CASE WHEN EXISTS (SELECT 1 FROM deliveries d
                                     WHERE d.endpoint_id = k.endpoint_id AND d.ordering_key = k.ordering_key)
                        THEN 1 ELSE 0 END
            FROM delivery_ordering_keys k
            ORDER BY k.endpoint_id, k.ordering_key
            LIMIT ?""";

    /**
     * The next chunk after (endpoint_id, ordering_key); params: endpoint, key, batch size. A row
     * comparison, which PostgreSQL reads as one range of the primary key's index (the spelled-out
     * {@code a > ? OR (a = ? AND b > ?)} it would scan from the start, each chunk further).
     */
    static final String KEYS_AFTER = """
            SELECT k.endpoint_id, k.ordering_key,
                   CASE WHEN EXISTS (SELECT 1 FROM deliveries d
                                     WHERE d.endpoint_id = k.endpoint_id AND d.ordering_key = k.ordering_key)
                        THEN 1 ELSE 0 END
            FROM delivery_ordering_keys k
            WHERE (k.endpoint_id, k.ordering_key) > (?, ?)
            ORDER BY k.endpoint_id, k.ordering_key
            LIMIT ?""";

    /**
     * Key rows by primary key, for the caller to lock, skipping those a fan-out or the dispatcher
     * holds; params: endpoints, keys (two arrays of one length, a row's parts at one index).
     */
    static final String KEYS_BY_ID = """
            SELECT endpoint_id, ordering_key FROM delivery_ordering_keys
            WHERE (endpoint_id, ordering_key) IN (SELECT * FROM UNNEST(?, ?))""";

    /**
     * Deletes key rows the caller holds locked unless a delivery of their (endpoint, key) exists;
     * params: endpoints, keys (as {@link #KEYS_BY_ID}).
     */
    static final String DELETE_UNUSED_KEYS = """
            DELETE FROM delivery_ordering_keys
            WHERE (endpoint_id, ordering_key) IN (SELECT * FROM UNNEST(?, ?))
              AND NOT EXISTS (
                SELECT 1 FROM deliveries d
                WHERE d.endpoint_id = delivery_ordering_keys.endpoint_id
                  AND d.ordering_key = delivery_ordering_keys.ordering_key)""";
}
