package dev.retrysafe.delivery.internal;

/** The SQL of the outbox: fan-out of one event to the subscribed endpoints of its account. */
final class OutboxSql {

    private OutboxSql() {}

    /**
     * The subscriptions of an account's enabled endpoints that may take a type: the type itself and
     * every pattern ending in {@code *} ({@code *}, {@code payment.*}); which of those do take it
     * is decided by {@code TopicPatterns}, not here, so SQL and the live stream cannot disagree.
     * With whether each endpoint is paused and ordered. Params: account, type.
     */
    static final String CANDIDATE_SUBSCRIPTIONS = """
            SELECT e.id, t.event_type, e.paused_at, e.ordered FROM webhook_endpoints e
            JOIN webhook_endpoint_event_types t ON t.endpoint_id = e.id
            WHERE e.account_id = ? AND e.enabled = TRUE
              AND (t.event_type = ? OR t.event_type LIKE '%*')
            ORDER BY e.id""";

    static final String INSERT_DELIVERY = """
            INSERT INTO deliveries
                (id, endpoint_id, account_id, event_id, event_type, payload, status, attempts,
                 next_attempt_at, created_at, ordering_key, traceparent, ordering_seq)
            VALUES (?, ?, ?, ?, ?, ?, 'pending', 0, ?, ?, ?, ?, ?)""";
}
