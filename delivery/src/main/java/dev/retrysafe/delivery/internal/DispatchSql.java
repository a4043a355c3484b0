package dev.retrysafe.delivery.internal;

import dev.retrysafe.leasedwork.internal.LeaseSql;
import java.sql.PreparedStatement;
import java.sql.SQLException;

/**
 * The SQL of the dispatcher: claiming due deliveries with a lease, recording attempts, endpoint
 * bookkeeping. Plain statements that use an index on both PostgreSQL and H2 2.x (H2 runs
 * {@code IN (subquery)} and window functions row by row, so the claim's selection is done in
 * Java over a keyset scan, and the claim itself is a batch of conditional updates on H2, one
 * update that skips locked rows on PostgreSQL, both built by the engine's {@link LeaseSql}). Every
 * write to a claimed delivery names the claim's lease token, so a holder whose lease ran out and
 * was taken over changes nothing.
 */
final class DispatchSql {

    private DispatchSql() {}

    /**
     * The leases of {@code deliveries}: a claimed delivery is {@code delivering}, and its
     * {@code next_attempt_at} (and {@code lease_expires_at}) hold the lease's end: if this instance
     * dies, the delivery is due again then, for anyone.
     */
    static final LeaseSql LEASES = new LeaseSql("deliveries", "delivering", "next_attempt_at", true);

    /**
     * Attempts in flight per endpoint, over the live claims of every instance; param: now. The
     * claim fills each endpoint up to its cap from these counts, so a saturated endpoint's
     * backlog never takes a batch's room (head-of-line isolation).
     */
    static final String IN_FLIGHT_BY_ENDPOINT =
            "SELECT endpoint_id, COUNT(*) FROM deliveries WHERE " + live() + " GROUP BY endpoint_id";

    /**
     * The live claims: held, the lease not ended. A held delivery's {@code next_attempt_at} is its
     * lease's end (as {@code lease_expires_at} is), so the index {@code deliveries_endpoint_due}
     * (status, endpoint, due time) answers it alone; param: now.
     */
    private static String live() {
        return "status = '" + LEASES.heldStatus() + "' AND " + LEASES.due() + " > ?";
    }

    /**
     * Due deliveries of open endpoints (enabled, not slowed down, with a free rate slot within the
     * claim's look-ahead), oldest first, one chunk of a keyset scan, with the endpoint's rate limit
     * and next free rate slot. A claimed delivery's {@code next_attempt_at} is its lease's end, so
     * the claims of a dead instance come due here too. Endpoints at their cap are left out by the
     * database (an array of ids), so their backlogs are not even read. Params: now, now, end of
     * the look-ahead (epoch ns), left-out endpoints, chunk size.
     */
    static final String DUE_FIRST = """
            SELECT d.id, d.endpoint_id, d.next_attempt_at, e.rate_limit, e.rate_next_slot_ns
            FROM deliveries d JOIN webhook_endpoints e ON e.id = d.endpoint_id
            WHERE d.next_attempt_at <= ? AND e.enabled = TRUE AND (e.not_before IS NULL OR e.not_before <= ?)
              AND (e.rate_limit IS NULL OR e.rate_next_slot_ns IS NULL OR e.rate_next_slot_ns <= ?)
              AND e.paused_at IS NULL AND d.endpoint_id <> ALL (?)
            ORDER BY d.next_attempt_at, d.id
            LIMIT ?""";

    /**
     * The next chunk after (due time, id); params: now, now, end of the look-ahead, left-out
     * endpoints, due time, due time, id, chunk size.
     */
    static final String DUE_AFTER = """
            SELECT d.id, d.endpoint_id, d.next_attempt_at, e.rate_limit, e.rate_next_slot_ns
            FROM deliveries d JOIN webhook_endpoints e ON e.id = d.endpoint_id
            WHERE d.next_attempt_at <= ? AND e.enabled = TRUE AND (e.not_before IS NULL OR e.not_before <= ?)
              AND (e.rate_limit IS NULL OR e.rate_next_slot_ns IS NULL OR e.rate_next_slot_ns <= ?)
              AND e.paused_at IS NULL AND d.endpoint_id <> ALL (?)
              AND (d.next_attempt_at > ? OR (d.next_attempt_at = ? AND d.id > ?))
            ORDER BY d.next_attempt_at, d.id
            LIMIT ?""";

    /**
     * Reserves rate slots of one endpoint: moves its next free slot forward, only if the rate
     * and the next free slot are still what the claim read (compare and set; -1 stands for
     * none). Of two instances that read the same schedule, one moves it and the other changes
     * nothing and leaves that endpoint's deliveries alone, so no two instances hand out the same
     * slot. Run as one batch in endpoint id order (no deadlock between concurrent batches).
     * Params: next free slot, endpoint, rate, next free slot as read.
     */
    static final String RESERVE_RATE_SLOTS = """
            UPDATE webhook_endpoints SET rate_next_slot_ns = ?
            WHERE id = ? AND rate_limit = ? AND COALESCE(rate_next_slot_ns, -1) = ?""";

    /**
     * What an attempt needs of the chosen deliveries that one claim took, by primary key; params:
     * the chosen ids (array), the claim's lease token.
     */
    static final String SELECT_CLAIMED = """
            SELECT d.id, d.endpoint_id, d.account_id, d.payload, d.attempts, d.created_at,
                   e.url, e.secret, e.previous_secret, e.previous_secret_expires_at, d.ordering_key, d.ordering_seq,
                   d.traceparent, e.custom_headers
            FROM deliveries d JOIN webhook_endpoints e ON e.id = d.endpoint_id
            WHERE d.id = ANY (?) AND d.lease_token = ?
            ORDER BY d.next_attempt_at, d.id""";

    /**
     * How the engine claims chosen deliveries ({@code LeaseSql.claimChosen}): one conditional
     * update per delivery on H2 then {@link #SELECT_CLAIMED}, one update that skips locked rows
     * and returns what the attempts need on PostgreSQL.
     */
    static final LeaseSql.Readback READBACK =
            new LeaseSql.Readback("d", "webhook_endpoints e", "e.id = d.endpoint_id", """
            d.id, d.endpoint_id, d.account_id, d.payload, d.attempts, d.created_at,
            e.url, e.secret, e.previous_secret, e.previous_secret_expires_at, d.ordering_key, d.ordering_seq,
            d.traceparent, e.custom_headers""", SELECT_CLAIMED);

    /**
     * PostgreSQL: a whole claim in one statement, for endpoints without a rate limit: counts the
     * live claims per endpoint, reads the due deliveries of each open endpoint up to its free
     * slots (pending ones and the claims of dead instances, from the index
     * {@code deliveries_endpoint_due}: one short index range per endpoint, whatever the backlog),
     * keeps the oldest {@code limit} of them, and takes their leases skipping rows another
     * instance holds ({@link LeaseSql#claimSkippingLocked(LeaseSql.Readback, String)}). The picks
     * are those of {@link DueScan#choose} (oldest first, each endpoint filled up to its cap), read
     * without stepping over the backlogs of endpoints at their cap. One row per claimed delivery
     * ({@link #READBACK}'s columns), or one row of NULLs if none, each with {@code held_back}: an
     * endpoint at its cap, an endpoint filled up to its cap by this claim, or more due than
     * {@code limit} (due deliveries may be waiting behind them), and {@code picked}, how many it
     * tried to take (fewer taken: another instance took some). Params: now, cap, now, cap, now,
     * now, limit, owner, token, lease end, lease end, now, cap.
     */
    static final String CLAIM_BY_ENDPOINT = """
            WITH busy AS MATERIALIZED (
                SELECT endpoint_id, COUNT(*) AS n FROM deliveries WHERE %s GROUP BY endpoint_id),
            open AS MATERIALIZED (
                SELECT e.id, CAST(? AS INTEGER) - COALESCE(b.n, 0) AS free
                FROM webhook_endpoints e LEFT JOIN busy b ON b.endpoint_id = e.id
                WHERE e.enabled = TRUE AND (e.not_before IS NULL OR e.not_before <= ?) AND e.rate_limit IS NULL
                  AND e.paused_at IS NULL AND COALESCE(b.n, 0) < ?),
            due AS MATERIALIZED (
                SELECT o.id AS endpoint_id, o.free, d.id, d.next_attempt_at
                FROM open o CROSS JOIN LATERAL (
                    (SELECT p.id, p.next_attempt_at FROM deliveries p
                     WHERE p.status = 'pending' AND p.endpoint_id = o.id AND p.next_attempt_at <= ?
                     ORDER BY p.next_attempt_at, p.id LIMIT o.free)
                    UNION ALL
                    (SELECT x.id, x.next_attempt_at FROM deliveries x
                     WHERE x.status = '%s' AND x.endpoint_id = o.id AND x.next_attempt_at <= ?
                     ORDER BY x.next_attempt_at, x.id LIMIT o.free)
                    ORDER BY 2, 1 LIMIT o.free) d),
            picked AS MATERIALIZED (SELECT id FROM due ORDER BY next_attempt_at, id LIMIT ?),
            taken AS (%s)
            SELECT t.*,
                   EXISTS (SELECT 1 FROM busy WHERE n >= ?)
                   OR (SELECT COUNT(*) FROM due) > (SELECT COUNT(*) FROM picked)
                   OR EXISTS (SELECT 1 FROM due GROUP BY endpoint_id, free HAVING COUNT(*) >= free) AS held_back,
                   (SELECT COUNT(*) FROM picked) AS picked
            FROM (SELECT 1 AS one) one LEFT JOIN taken t ON TRUE""".formatted(
                    live(), LEASES.heldStatus(), LEASES.claimSkippingLocked(READBACK, "IN (SELECT id FROM picked)"));

    /**
     * {@link #CLAIM_BY_ENDPOINT} as PostgreSQL should plan it, in one round trip: a first
     * statement sets, for the claim's transaction only ({@code set_config(..., true)}; the two run
     * as one implicit transaction, so the settings end with it, whether it commits or fails), a
     * generic plan (the planner otherwise made a custom plan for every claim, 0.8 ms, more than
     * running it) without incremental sorts: else, on a table whose due order follows its
     * physical order, the planner read each endpoint's due deliveries from {@code deliveries_due}
     * and sorted them by id as they came, walking the backlogs of the other endpoints (90,000 rows
     * per endpoint in a test). ({@code enable_sort} off would do it too, but made the planner pick
     * a plan that took 0.4 s for 20 rows.) The claim's rows are its second result. Same params as
     * {@link #CLAIM_BY_ENDPOINT}.
     */
    static final String CLAIM_BY_ENDPOINT_PLANNED = """
            SELECT set_config('plan_cache_mode', 'force_generic_plan', true),
                   set_config('enable_incremental_sort', 'off', true);
            """ + CLAIM_BY_ENDPOINT;

    /**
     * Binds the params of {@link #CLAIM_BY_ENDPOINT} (and {@link #CLAIM_BY_ENDPOINT_PLANNED}) in
     * their order: a claim at {@code now} of at most {@code limit} deliveries, each endpoint filled
     * up to {@code cap}, leased to {@code owner} under {@code token} until {@code leaseEnd}.
     */
    static void bindClaimByEndpoint(
            PreparedStatement s, long now, int cap, int limit, String owner, String token, long leaseEnd)
            throws SQLException {
        int i = 1;
        s.setLong(i++, now);
        s.setInt(i++, cap);
        s.setLong(i++, now);
        s.setInt(i++, cap);
        s.setLong(i++, now);
        s.setLong(i++, now);
        s.setInt(i++, limit);
        i = LEASES.bindTake(s, i, owner, token, leaseEnd);
        s.setLong(i++, now);
        s.setInt(i, cap);
    }

    /** Gives a claimed delivery back, due at once, without an attempt; params: now, id, token. */
    static final String RELEASE = LEASES.endHeld("status = 'pending', next_attempt_at = ?");

    /**
     * A success ends the endpoint's failing streak, unless the endpoint is paused: the dispatcher
     * never locks a paused endpoint's row, which the fan-out may hold shared until its business
     * transaction ends ({@link Holds}); param: endpoint.
     */
    static final String CLEAR_FAILING = """
            UPDATE webhook_endpoints SET failing_since = NULL
            WHERE id = ? AND failing_since IS NOT NULL AND paused_at IS NULL""";

    /**
     * A failure starts a failing streak unless one runs, or the endpoint is paused (an attempt
     * that was under way when it paused: the streak does not run while paused, {@link Holds});
     * params: attempt start, endpoint.
     */
    static final String MARK_FAILING = """
            UPDATE webhook_endpoints SET failing_since = ? WHERE id = ? AND failing_since IS NULL AND paused_at IS NULL""";

    /**
     * Slows an overloaded endpoint down until a time, never shortening it, unless it is paused
     * (see {@link #CLEAR_FAILING}); params: until, endpoint, until.
     */
    static final String SLOW_DOWN = """
            UPDATE webhook_endpoints SET not_before = ?
            WHERE id = ? AND (not_before IS NULL OR not_before < ?) AND paused_at IS NULL""";

    static final String SELECT_ENDPOINT_STATE = """
            SELECT account_id, url, enabled, failing_since, paused_at FROM webhook_endpoints WHERE id = ?""";

    /** Logs an attempt, if its delivery still exists; params: attempt, number, start, outcome, status, latency, snippet, detail, delivery. */
    static final String INSERT_ATTEMPT = """
            INSERT INTO delivery_attempts
                (id, delivery_id, attempt_number, started_at, outcome, status_code, latency_ms, response_snippet, error_detail)
            SELECT ?, id, ?, ?, ?, ?, ?, ?, ? FROM deliveries WHERE id = ?""";

    /**
     * Stores an attempt's consequence and ends the claim. Params: status, next attempt, last
     * attempt, last outcome, last status code, id, token.
     */
    static final String FINISH_ATTEMPT = LEASES.end("""
            status = ?, attempts = attempts + 1, next_attempt_at = ?, last_attempt_at = ?, last_outcome = ?,
            last_status_code = ?""");

    // --- a batch of successes in one statement each (PostgreSQL; H2 runs the statements above as
    // JDBC batches). PostgreSQL then parses, plans and executes once per batch instead of once per
    // row, which is most of what it spends on rows this small. Same lock order as the batches:
    // endpoint rows first (id order), then delivery rows (the batch's order), then commit.

    /**
     * Ends the failing streaks of the endpoints of a batch ({@link #CLEAR_FAILING} for many);
     * param: endpoint ids (array). The index scan locks the rows in id order.
     */
    static final String CLEAR_FAILING_EACH =
            "UPDATE webhook_endpoints SET failing_since = NULL WHERE id = ANY (?) AND failing_since IS NOT NULL"
                    + " AND paused_at IS NULL";

    /**
     * Logs the attempts of a batch, each if its delivery still exists ({@link #INSERT_ATTEMPT} for
     * many). Params, one array each, element i for attempt i: id, delivery, number, start,
     * outcome, status code, latency, snippet, detail.
     */
    static final String INSERT_ATTEMPT_EACH = """
            INSERT INTO delivery_attempts
                (id, delivery_id, attempt_number, started_at, outcome, status_code, latency_ms, response_snippet, error_detail)
            SELECT v.id, d.id, v.attempt_number, v.started_at, v.outcome, v.status_code, v.latency_ms, v.snippet, v.detail
            FROM unnest(?::varchar[], ?::varchar[], ?::int[], ?::bigint[], ?::varchar[], ?::int[], ?::bigint[],
                        ?::varchar[], ?::varchar[])
                 AS v(id, delivery_id, attempt_number, started_at, outcome, status_code, latency_ms, snippet, detail)
            JOIN deliveries d ON d.id = v.delivery_id""";

    /**
     * Finishes the deliveries of a batch of successes ({@link #FINISH_ATTEMPT} for many, each
     * fenced by its own claim's token: a row taken over meanwhile is left alone); answers
     * (id, token) of each one finished. Params, one array each: id, token, attempt start,
     * outcome, status code.
     */
    static final String FINISH_SUCCESS_EACH = LEASES.endEach(
            """
            status = 'succeeded', attempts = t.attempts + 1, next_attempt_at = NULL, last_attempt_at = v.started_at,
            last_outcome = v.outcome, last_status_code = v.status_code""",
            "unnest(?::varchar[], ?::varchar[], ?::bigint[], ?::varchar[], ?::int[])"
                    + " AS v(id, token, started_at, outcome, status_code)");

    /** Queue depth; params: now, now. */
    static final String QUEUE_DEPTH = """
            SELECT COALESCE(SUM(CASE WHEN status = 'pending' AND next_attempt_at <= ? THEN 1 ELSE 0 END), 0),
                   COALESCE(SUM(CASE WHEN status = 'pending' AND next_attempt_at > ? THEN 1 ELSE 0 END), 0),
                   COALESCE(SUM(CASE WHEN status = 'delivering' THEN 1 ELSE 0 END), 0)
            FROM deliveries WHERE next_attempt_at IS NOT NULL""";
}
