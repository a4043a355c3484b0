package dev.retrysafe.webhooks.internal;

import java.util.List;

/**
 * The SQL of the JDBC de-duplicator, portable between PostgreSQL and H2 (PostgreSQL mode, which
 * also supports {@code ON CONFLICT DO NOTHING}). An id is remembered while
 * {@code now < seen_at + ttl}; at {@code seen_at <= now - ttl} it is expired.
 */
final class DedupSql {

    private DedupSql() {}

    /**
     * Records an id; 0 rows if it exists. No exception on a conflict: inside a caller's
     * PostgreSQL transaction, a unique violation would abort the whole transaction. A concurrent
     * insert of the same id waits for the other transaction and then inserts nothing (it
     * committed) or inserts (it rolled back).
     */
    static final String INSERT = """
            INSERT INTO received_webhooks (webhook_id, seen_at) VALUES (?, ?)
            ON CONFLICT DO NOTHING""";

    /** Takes over an expired row not purged yet; params: now, id, cutoff. One winner among racers. */
    static final String RENEW_EXPIRED = """
            UPDATE received_webhooks SET seen_at = ?
            WHERE webhook_id = ? AND seen_at <= ?""";

    static final String DELETE = "DELETE FROM received_webhooks WHERE webhook_id = ?";

    /**
     * Deletes one batch of expired rows. The condition is repeated outside the sub-select because a
     * row may be renewed between the sub-select and the delete; params: cutoff, limit, cutoff.
     */
    static final String PURGE_BATCH = """
            DELETE FROM received_webhooks
            WHERE webhook_id IN (SELECT webhook_id FROM received_webhooks WHERE seen_at <= ? LIMIT ?)
              AND seen_at <= ?""";

    /** SQLState of a unique-constraint violation on PostgreSQL and on H2. */
    static final String UNIQUE_VIOLATION = "23505";

    /**
     * SQLStates of lock waits that gave up without changing anything: serialization failure and
     * deadlock (both databases), H2's lock timeout and its concurrent update.
     */
    static final List<String> TRANSIENT_CONFLICTS = List.of("40001", "40P01", "HYT00", "90131");
}
