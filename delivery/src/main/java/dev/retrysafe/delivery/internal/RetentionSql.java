package dev.retrysafe.delivery.internal;

/**
 * The SQL of the retention purge: small batches chosen by index ({@code delivery_attempts_started},
 * {@code deliveries_created}) and deleted by primary key, each batch its own short transaction.
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
     * are finished and old: a retry made meanwhile keeps its delivery. Params: ids, cutoff.
     */
    static final String DELETE_DELIVERIES =
            "DELETE FROM deliveries WHERE id = ANY (?) AND next_attempt_at IS NULL AND created_at < ?";
}
