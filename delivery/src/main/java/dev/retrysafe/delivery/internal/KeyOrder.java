package dev.retrysafe.delivery.internal;

import dev.retrysafe.leasedwork.internal.Jdbc;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;

/**
 * Per-key ordering for ordered endpoints (docs/webhooks.md, "Ordering keys"): of the deliveries of
 * one (endpoint, ordering key), only the head is ever scheduled; the others are held
 * ({@code status = 'pending'}, {@code next_attempt_at} NULL), out of the due index's way, until
 * the head finishes.
 *
 * <p>Commit order, not insert order: the fan-out numbers a key's deliveries while holding the
 * lock on the key's row of {@code delivery_ordering_keys}, which it keeps until its (the
 * caller's) transaction ends; a second transaction with an event of the same key waits for the
 * first to commit before it gets the next number, so numbers follow commits. The dispatcher takes
 * the same lock when a delivery of the key finishes (succeeded, or failed for good: given up,
 * endpoint disabled), in the transaction that records it, and makes the lowest-numbered held one
 * due. A delivery whose lease runs out (its instance died) is due again by its lease and is still
 * the head, so takeover keeps the order without anything here.
 *
 * <p>The retention purge deletes a key's row once no delivery of the key is left, and a later
 * event makes it again from 0 ({@link Purger} says why that is safe); it never deletes a row a
 * fan-out holds, and a fan-out that meets the purge's lock finds the row gone and makes it again.
 *
 * <p>Lock order: the key row is taken after the endpoint row (the fan-out of a paused endpoint)
 * and after the finished delivery's row (the dispatcher); nothing holding a key row waits for an
 * endpoint row or an existing delivery row. Stateless and threadsafe.
 */
final class KeyOrder {

    private KeyOrder() {}

    /**
     * Makes the key's row if it is new. On PostgreSQL a concurrent insert of the same key waits
     * for the other transaction and then does nothing; H2 may report that race as a violation,
     * which leaves its transaction usable, so it is ignored there.
     */
    static final String INSERT_KEY = """
            INSERT INTO delivery_ordering_keys (endpoint_id, ordering_key, last_seq) VALUES (?, ?, 0)
            ON CONFLICT DO NOTHING""";

    /** Takes the key's lock and its next number; params: endpoint, key. */
    static final String NEXT_SEQ = """
            UPDATE delivery_ordering_keys SET last_seq = last_seq + 1 WHERE endpoint_id = ? AND ordering_key = ?""";

    /** Takes the key's lock without numbering; params: endpoint, key. */
    static final String LOCK_KEY = """
            UPDATE delivery_ordering_keys SET last_seq = last_seq WHERE endpoint_id = ? AND ordering_key = ?""";

    static final String SELECT_SEQ =
            "SELECT last_seq FROM delivery_ordering_keys WHERE endpoint_id = ? AND ordering_key = ?";

    /**
     * The unfinished numbered deliveries of a key, in order, with whether each is scheduled (due,
     * waiting for a retry, or under an attempt); params: endpoint, key. A key holds the events of
     * one entity (a payment), so this reads a handful of rows through {@code deliveries_ordering}.
     */
    static final String OPEN_OF_KEY = """
            SELECT id, next_attempt_at FROM deliveries
            WHERE endpoint_id = ? AND ordering_key = ? AND ordering_seq IS NOT NULL
              AND status IN ('pending', 'delivering')
            ORDER BY ordering_seq""";

    /** Makes a held delivery due; params: due time, id. */
    static final String MAKE_DUE = """
            UPDATE deliveries SET next_attempt_at = ? WHERE id = ? AND status = 'pending' AND next_attempt_at IS NULL""";

    /** A numbered place in a key, and whether the delivery must wait for the ones before it. */
    record Place(long seq, boolean waits) {}

    /**
     * Numbers a new delivery of {@code key} to {@code endpointId} in the caller's transaction,
     * holding the key's lock until it ends; it waits if an unfinished delivery of the key exists.
     */
    static Place place(Connection c, String endpointId, String key) throws SQLException {
        for (int tries = 1; !numbered(c, endpointId, key); tries++) {
            // the retention purge deleted the key's row, unused, between our insert (which found
            // it) and our update (which waited for the purge's lock): no delivery of the key is
            // left, so the row starts again from 0 (Purger)
            if (tries == MAX_TRIES) {
                throw new SQLException("the ordering key's row of endpoint " + endpointId + " was deleted " + MAX_TRIES
                        + " times while it was being numbered");
            }
        }
        long seq;
        try (PreparedStatement s = c.prepareStatement(SELECT_SEQ)) {
            s.setString(1, endpointId);
            s.setString(2, key);
            try (ResultSet r = s.executeQuery()) {
                r.next();
                seq = r.getLong(1);
            }
        }
        try (PreparedStatement s = c.prepareStatement(OPEN_OF_KEY)) {
            s.setString(1, endpointId);
            s.setString(2, key);
            try (ResultSet r = s.executeQuery()) {
                return new Place(seq, r.next());
            }
        }
    }

    /** Times {@link #place} makes the key's row again when a purge deletes it under it. */
    private static final int MAX_TRIES = 3;

    /** Makes the key's row if it is missing and takes its lock and next number; false if it vanished. */
    private static boolean numbered(Connection c, String endpointId, String key) throws SQLException {
        try (PreparedStatement s = c.prepareStatement(INSERT_KEY)) {
            s.setString(1, endpointId);
            s.setString(2, key);
            s.executeUpdate();
        } catch (SQLException e) {
            if (!Jdbc.isUniqueViolation(e) || Jdbc.isPostgres(c)) {
                throw e;
            }
        }
        try (PreparedStatement s = c.prepareStatement(NEXT_SEQ)) {
            s.setString(1, endpointId);
            s.setString(2, key);
            return s.executeUpdate() == 1;
        }
    }

    /**
     * A numbered delivery of {@code key} finished (succeeded or failed for good) in the caller's
     * transaction: unless another of the key is still scheduled (a manual retry of an older one),
     * the lowest-numbered held one becomes due at {@code now}. It does so even while the endpoint
     * is paused: the claim leaves paused endpoints alone, and resume finds it due.
     */
    static void finished(Connection c, String endpointId, String key, Instant now) throws SQLException {
        try (PreparedStatement s = c.prepareStatement(LOCK_KEY)) {
            s.setString(1, endpointId);
            s.setString(2, key);
            s.executeUpdate();
        }
        String next = null;
        try (PreparedStatement s = c.prepareStatement(OPEN_OF_KEY)) {
            s.setString(1, endpointId);
            s.setString(2, key);
            try (ResultSet r = s.executeQuery()) {
                while (r.next()) {
                    r.getLong(2);
                    if (!r.wasNull()) {
                        return; // one is scheduled already: it is the head
                    }
                    if (next == null) {
                        next = r.getString(1);
                    }
                }
            }
        }
        if (next != null) {
            try (PreparedStatement s = c.prepareStatement(MAKE_DUE)) {
                s.setLong(1, now.toEpochMilli());
                s.setString(2, next);
                s.executeUpdate();
            }
        }
    }
}
