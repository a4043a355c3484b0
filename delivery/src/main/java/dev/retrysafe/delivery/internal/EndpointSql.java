package dev.retrysafe.delivery.internal;

/**
 * The SQL of endpoint management and of the delivery log's reads. Every statement names the
 * account, so another account's ids match no row and look like not found.
 */
final class EndpointSql {

    private EndpointSql() {}

    static final String ENDPOINT_COLUMNS = """
            id, account_id, url, description, enabled, disabled_reason, created_at, updated_at,
            failing_since, previous_secret_expires_at, rate_limit, paused_at, ordered"""
            // custom headers: read for their names only (DeliveryRows keeps no value)
            + ", custom_headers";

    static final String INSERT_ENDPOINT = """
            INSERT INTO webhook_endpoints
                (id, account_id, url, description, enabled, secret, created_at, updated_at, rate_limit, ordered)
            VALUES (?, ?, ?, ?, TRUE, ?, ?, ?, ?, ?)""";

    /**
     * Stores an endpoint's custom headers ({@link CustomHeaders}'s form, NULL for none), in the
     * transaction that creates or patches it; params: headers, id.
     */
    static final String SET_CUSTOM_HEADERS = "UPDATE webhook_endpoints SET custom_headers = ? WHERE id = ?";

    static final String INSERT_EVENT_TYPE =
            "INSERT INTO webhook_endpoint_event_types (endpoint_id, event_type) VALUES (?, ?)";

    static final String DELETE_EVENT_TYPES = "DELETE FROM webhook_endpoint_event_types WHERE endpoint_id = ?";

    static final String SELECT_ENDPOINT =
            "SELECT " + ENDPOINT_COLUMNS + " FROM webhook_endpoints WHERE account_id = ? AND id = ?";

    /** The same, locking the row for an update in this transaction. */
    static final String SELECT_ENDPOINT_FOR_UPDATE = SELECT_ENDPOINT + " FOR UPDATE";

    static final String SELECT_EVENT_TYPES =
            "SELECT event_type FROM webhook_endpoint_event_types WHERE endpoint_id = ? ORDER BY event_type";

    /** Event types of an account's endpoints whose ids lie in a range; params: account, low, high. */
    static final String SELECT_EVENT_TYPES_IN_RANGE = """
            SELECT t.endpoint_id, t.event_type FROM webhook_endpoint_event_types t
            JOIN webhook_endpoints e ON e.id = t.endpoint_id
            WHERE e.account_id = ? AND e.id >= ? AND e.id <= ?
            ORDER BY t.endpoint_id, t.event_type""";

    static final String LIST_FIRST =
            "SELECT " + ENDPOINT_COLUMNS + " FROM webhook_endpoints WHERE account_id = ? ORDER BY id DESC LIMIT ?";

    static final String LIST_AFTER = "SELECT " + ENDPOINT_COLUMNS
            + " FROM webhook_endpoints WHERE account_id = ? AND id < ? ORDER BY id DESC LIMIT ?";

    /**
     * Writes the fields a PATCH may change; params: url, description, rate limit, ordered, updated_at,
     * account, id. The rate's schedule ({@code rate_next_slot_ns}) is kept: slots already
     * reserved stay reserved, and the next reservation spaces attempts by the new rate.
     */
    static final String UPDATE_FIELDS = """
            UPDATE webhook_endpoints SET url = ?, description = ?, rate_limit = ?, ordered = ?, updated_at = ?
            WHERE account_id = ? AND id = ?""";

    /** Enables and forgets the failing streak and any slow-down; params: updated_at, account, id. */
    static final String ENABLE = """
            UPDATE webhook_endpoints
            SET enabled = TRUE, disabled_reason = NULL, failing_since = NULL, not_before = NULL, updated_at = ?
            WHERE account_id = ? AND id = ?""";

    /** Disables an enabled endpoint; params: reason, updated_at, id. */
    static final String DISABLE = """
            UPDATE webhook_endpoints SET enabled = FALSE, disabled_reason = ?, updated_at = ?
            WHERE id = ? AND enabled = TRUE""";

    /** Gives up the deliveries waiting for a disabled endpoint (in-flight ones finish on their own). */
    static final String FAIL_PENDING_DELIVERIES = """
            UPDATE deliveries SET status = 'failed', next_attempt_at = NULL
            WHERE endpoint_id = ? AND status = 'pending'""";

    /**
     * Rotates: the current secret becomes the previous one, signing until the given time. The
     * right-hand sides read the row as it was before this update (standard SQL, both databases).
     * Params: new secret, previous expiry, updated_at, account, id.
     */
    static final String ROTATE_SECRET = """
            UPDATE webhook_endpoints
            SET previous_secret = secret, secret = ?, previous_secret_expires_at = ?, updated_at = ?
            WHERE account_id = ? AND id = ?""";

    static final String SELECT_SECRET = "SELECT secret FROM webhook_endpoints WHERE account_id = ? AND id = ?";

    static final String DELETE_ENDPOINT = "DELETE FROM webhook_endpoints WHERE account_id = ? AND id = ?";

    /** Removes an endpoint's deliveries (their attempts go by cascade); params: account, endpoint. */
    static final String DELETE_DELIVERIES = "DELETE FROM deliveries WHERE account_id = ? AND endpoint_id = ?";

    static final String DELIVERY_COLUMNS = """
            id, endpoint_id, account_id, event_id, event_type, status, attempts, next_attempt_at,
            created_at, last_attempt_at, last_outcome, last_status_code""";

    static final String LIST_DELIVERIES_FIRST = "SELECT " + DELIVERY_COLUMNS
            + " FROM deliveries WHERE account_id = ? AND endpoint_id = ? ORDER BY id DESC LIMIT ?";

    static final String LIST_DELIVERIES_AFTER = "SELECT " + DELIVERY_COLUMNS
            + " FROM deliveries WHERE account_id = ? AND endpoint_id = ? AND id < ? ORDER BY id DESC LIMIT ?";

    static final String LIST_EVENT_DELIVERIES_FIRST = "SELECT " + DELIVERY_COLUMNS
            + " FROM deliveries WHERE account_id = ? AND event_id = ? ORDER BY id DESC LIMIT ?";

    static final String LIST_EVENT_DELIVERIES_AFTER = "SELECT " + DELIVERY_COLUMNS
            + " FROM deliveries WHERE account_id = ? AND event_id = ? AND id < ? ORDER BY id DESC LIMIT ?";

    static final String SELECT_DELIVERY =
            "SELECT " + DELIVERY_COLUMNS + ", payload FROM deliveries WHERE account_id = ? AND id = ?";

    static final String SELECT_ATTEMPTS = """
            SELECT id, delivery_id, attempt_number, started_at, outcome, status_code, latency_ms,
                   response_snippet, error_detail
            FROM delivery_attempts WHERE delivery_id = ? ORDER BY started_at, attempt_number, id""";

    /** The endpoint of an account's delivery; params: account, id. */
    static final String SELECT_DELIVERY_ENDPOINT = "SELECT endpoint_id FROM deliveries WHERE account_id = ? AND id = ?";

    /** Whether an endpoint is enabled, locking its row (the first lock, as everywhere); param: id. */
    static final String LOCK_ENDPOINT_ENABLED = "SELECT enabled FROM webhook_endpoints WHERE id = ? FOR UPDATE";

    /**
     * Makes a delivery due now unless an attempt is under way: a pending one sooner, a failed one
     * again, a succeeded one once more (a replay, with the same id). Params: now, account, id.
     */
    static final String RETRY_DELIVERY = """
            UPDATE deliveries SET status = 'pending', next_attempt_at = ?
            WHERE account_id = ? AND id = ? AND status IN ('pending', 'failed', 'succeeded')""";

    /** Makes an endpoint's failed deliveries since a time due now; params: now, account, endpoint, since. */
    static final String RECOVER_DELIVERIES = """
            UPDATE deliveries SET status = 'pending', next_attempt_at = ?
            WHERE account_id = ? AND endpoint_id = ? AND status = 'failed' AND created_at >= ?""";
}
