package dev.retrysafe.delivery.internal;

/** The SQL of the outbox: fan-out of one event to the subscribed endpoints of its account. */
final class OutboxSql {

    private OutboxSql() {}

    /** Enabled endpoints of an account subscribed to a type or to all; params: account, type. */
    static final String SUBSCRIBED_ENDPOINTS = """
            SELECT e.id FROM webhook_endpoints e
            WHERE e.account_id = ? AND e.enabled = TRUE
              AND EXISTS (SELECT 1 FROM webhook_endpoint_event_types t
                          WHERE t.endpoint_id = e.id AND (t.event_type = ? OR t.event_type = '*'))
            ORDER BY e.id""";

    static final String INSERT_DELIVERY = """
            INSERT INTO deliveries
                (id, endpoint_id, account_id, event_id, event_type, payload, status, attempts,
                 next_attempt_at, created_at)
            VALUES (?, ?, ?, ?, ?, ?, 'pending', 0, ?, ?)""";
}
