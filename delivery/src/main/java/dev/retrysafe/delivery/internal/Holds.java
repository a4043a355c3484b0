package dev.retrysafe.delivery.internal;

import dev.retrysafe.leasedwork.internal.Jdbc;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;

/**
 * Pausing and resuming an endpoint (docs/webhooks.md, "Pausing an endpoint"). A paused
 * endpoint's pending deliveries are held: {@code status = 'pending'} with {@code next_attempt_at}
 * NULL, so they are not in the due index at all and a paused backlog, however large, costs the
 * claim nothing. The claim also leaves out paused endpoints ({@code e.paused_at IS NULL}), which
 * covers the few deliveries that become due while paused: those of a transaction that read the
 * endpoint as not paused and committed after the pause, the retry of an attempt that was in
 * flight when it paused, and the next of an ordered key whose head finished meanwhile. Their
 * number is bounded by what was in flight at the pause, not by the backlog.
 *
 * <p>Held while paused, a delivery is never attempted and never fails; the endpoint's failing
 * streak does not run: no attempt starts one while paused, and resume moves the start of a streak
 * that began before the pause forward by the pause's length, so {@code disable_after} counts only
 * the time the endpoint was reachable for attempts. Resume makes the held deliveries due at their
 * creation time, so they go oldest first and before anything newer; of an ordered key only the
 * head ({@link KeyOrder}).
 *
 * <p>Lock order: the endpoint row first, then its deliveries, as everywhere. The fan-out locks a
 * paused endpoint's row (shared on PostgreSQL) before holding a delivery for it, so a resume
 * either commits first (then the fan-out sees it resumed) or waits for the fan-out's commit (then
 * it sees the held delivery): a held delivery is never left behind on a resumed endpoint. That
 * lock lasts as long as the caller's business transaction, which may also hold key rows
 * ({@link KeyOrder}) taken for earlier events; so the dispatcher, which takes key rows after
 * endpoint rows, never locks a paused endpoint's row: every endpoint update it makes while storing
 * an attempt is conditional on {@code paused_at IS NULL} (an attempt that finishes while paused
 * changes neither the failing streak nor the slow-down). Only pause, resume and endpoint changes
 * (short transactions that wait for no key row) contend with the fan-out for it.
 * Stateless and threadsafe.
 */
final class Holds {

    private Holds() {}

    /** Pauses unless paused; params: now, updated_at, account, id. */
    static final String PAUSE = """
            UPDATE webhook_endpoints SET paused_at = ?, updated_at = ?
            WHERE account_id = ? AND id = ? AND paused_at IS NULL""";

    /**
     * Holds an endpoint's scheduled pending deliveries (due now or waiting for a retry); those
     * under an attempt finish it. Param: endpoint.
     */
    static final String HOLD_PENDING = """
            UPDATE deliveries SET next_attempt_at = NULL
            WHERE endpoint_id = ? AND status = 'pending' AND next_attempt_at IS NOT NULL""";

    /**
     * Resumes a paused endpoint and moves the start of a failing streak that began before the pause
     * forward by the pause's length; params: now, now, account, id.
     */
    static final String RESUME = """
            UPDATE webhook_endpoints
            SET failing_since = CASE WHEN failing_since IS NOT NULL AND failing_since < paused_at
                                     THEN failing_since + (? - paused_at) ELSE failing_since END,
                paused_at = NULL, updated_at = ?
            WHERE account_id = ? AND id = ? AND paused_at IS NOT NULL""";

    /** Makes an endpoint's held unordered deliveries due, at their creation time; param: endpoint. */
    static final String RELEASE_UNORDERED = """
            UPDATE deliveries SET next_attempt_at = created_at
            WHERE endpoint_id = ? AND status = 'pending' AND next_attempt_at IS NULL AND ordering_seq IS NULL""";

    /**
     * Makes the head of each ordered key due at its creation time: a held delivery with nothing
     * unfinished before it and nothing of its key scheduled; param: endpoint.
     */
    static final String RELEASE_HEADS = """
            UPDATE deliveries SET next_attempt_at = created_at
            WHERE endpoint_id = ? AND status = 'pending' AND next_attempt_at IS NULL AND ordering_seq IS NOT NULL
              AND NOT EXISTS (
                SELECT 1 FROM deliveries o
                WHERE o.endpoint_id = deliveries.endpoint_id AND o.ordering_key = deliveries.ordering_key
                  AND o.ordering_seq IS NOT NULL AND o.status IN ('pending', 'delivering')
                  AND (o.next_attempt_at IS NOT NULL OR o.ordering_seq < deliveries.ordering_seq))""";

    /**
     * Makes every held delivery of an endpoint that is not paused due (ordering was turned off:
     * those waiting for their turn go at once); param: endpoint.
     */
    static final String RELEASE_ALL = """
            UPDATE deliveries SET next_attempt_at = created_at
            WHERE endpoint_id = ? AND status = 'pending' AND next_attempt_at IS NULL""";

    /** Whether the endpoint is still paused, with a shared lock on its row (PostgreSQL); param: id. */
    static final String LOCK_PAUSED_SHARED = "SELECT paused_at FROM webhook_endpoints WHERE id = ? FOR SHARE";

    /** The same for H2, which has no shared row lock. */
    static final String LOCK_PAUSED = "SELECT paused_at FROM webhook_endpoints WHERE id = ? FOR UPDATE";

    /** Pauses the endpoint whose row the caller locked; false if it was paused already. */
    static boolean pause(Connection c, String accountId, String id, Instant now) throws SQLException {
        try (PreparedStatement s = c.prepareStatement(PAUSE)) {
            s.setLong(1, now.toEpochMilli());
            s.setLong(2, now.toEpochMilli());
            s.setString(3, accountId);
            s.setString(4, id);
            if (s.executeUpdate() == 0) {
                return false;
            }
        }
        update(c, HOLD_PENDING, id);
        return true;
    }

    /**
     * Resumes the endpoint whose row the caller locked; false if it was not paused. Of an endpoint
     * that is no longer {@code ordered}, every held delivery goes.
     */
    static boolean resume(Connection c, String accountId, String id, boolean ordered, Instant now) throws SQLException {
        try (PreparedStatement s = c.prepareStatement(RESUME)) {
            s.setLong(1, now.toEpochMilli());
            s.setLong(2, now.toEpochMilli());
            s.setString(3, accountId);
            s.setString(4, id);
            if (s.executeUpdate() == 0) {
                return false;
            }
        }
        if (ordered) {
            update(c, RELEASE_UNORDERED, id);
            update(c, RELEASE_HEADS, id);
        } else {
            update(c, RELEASE_ALL, id);
        }
        return true;
    }

    /** Holds the scheduled pending deliveries of a paused endpoint whose row the caller locked. */
    static void hold(Connection c, String endpointId) throws SQLException {
        update(c, HOLD_PENDING, endpointId);
    }

    /** Ordering was turned off for a locked endpoint that is not paused: what waited goes. */
    static void releaseAll(Connection c, String id) throws SQLException {
        update(c, RELEASE_ALL, id);
    }

    /**
     * For the fan-out, which read the endpoint as paused: locks its row until the caller's
     * transaction ends and answers whether it is still paused.
     */
    static boolean stillPaused(Connection c, String endpointId) throws SQLException {
        try (PreparedStatement s = c.prepareStatement(Jdbc.isPostgres(c) ? LOCK_PAUSED_SHARED : LOCK_PAUSED)) {
            s.setString(1, endpointId);
            try (ResultSet r = s.executeQuery()) {
                if (!r.next()) {
                    return false; // deleted meanwhile: its deliveries are of no account
                }
                r.getLong(1);
                return !r.wasNull();
            }
        }
    }

    private static void update(Connection c, String sql, String endpointId) throws SQLException {
        try (PreparedStatement s = c.prepareStatement(sql)) {
            s.setString(1, endpointId);
            s.executeUpdate();
        }
    }
}
