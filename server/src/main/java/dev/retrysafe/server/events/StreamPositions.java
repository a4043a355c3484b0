package dev.retrysafe.server.events;

import dev.retrysafe.liveevents.PositionedEvent;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;

/**
 * The positions of events in each account's live stream, and the reads by position. An event is
 * stored without a position; {@link #assign} numbers an account's committed events that have
 * none after the account's last position, in the order they were written ({@code written_seq},
 * from a sequence). Numbering after the commit (rather than in the transaction that records the
 * event) keeps an account's payments from waiting for each other's commits. The order it gives:
 * an event whose transaction began after another's committed comes after it (it was written
 * later, and no numbering can see it without seeing the other); events of transactions that ran
 * at the same time come in either order. Every method runs in the caller's transaction. Stateless.
 */
public final class StreamPositions {

    private static final String ANY_UNNUMBERED = "SELECT 1 FROM events WHERE account_id = ? AND seq IS NULL LIMIT 1";
    private static final String LAST = "SELECT last_seq FROM event_streams WHERE account_id = ?";
    private static final String LOCK_LAST = LAST + " FOR UPDATE";
    private static final String CREATE_LAST = "INSERT INTO event_streams (account_id, last_seq) VALUES (?, 0)";
    private static final String UNNUMBERED =
            "SELECT id FROM events WHERE account_id = ? AND seq IS NULL ORDER BY written_seq LIMIT ?";
    private static final String NUMBER = "UPDATE events SET seq = ? WHERE id = ? AND seq IS NULL";
    private static final String SET_LAST = "UPDATE event_streams SET last_seq = ? WHERE account_id = ?";
    private static final String AFTER = "SELECT id, type, created_at, data, ordering_key, seq FROM events"
            + " WHERE account_id = ? AND seq > ? ORDER BY seq LIMIT ?";
    private static final String POSITION_OF = "SELECT seq FROM events WHERE account_id = ? AND id = ?";
    /** Keeps IN lists well below every driver's limit on parameters. */
    private static final int IN_CHUNK = 500;

    private StreamPositions() {}

    /**
     * What {@link #assign} did.
     *
     * @param last     the account's last position now (0 before its first event)
     * @param numbered how many events it numbered; {@code max} means more may be waiting
     */
    public record Assigned(long last, int numbered) {}

    /**
     * Numbers up to {@code max} of the account's committed events without a position, in the
     * order they were written. Takes the lock of the account's {@code event_streams} row only when there is
     * something to number, so that a stream watching an account without news costs one read. The
     * caller commits; concurrent callers for one account wait for each other on that row.
     *
     * @throws SQLException also when two callers made the account's row at the same moment (the
     *                      loser's transaction must be rolled back and may simply be retried)
     */
    public static Assigned assign(Connection c, String accountId, int max) throws SQLException {
        if (!exists(c, ANY_UNNUMBERED, accountId)) {
            return new Assigned(last(c, LAST, accountId).orElse(0), 0);
        }
        OptionalLong locked = last(c, LOCK_LAST, accountId);
        long last = 0;
        if (locked.isPresent()) {
            last = locked.getAsLong();
        } else {
            try (PreparedStatement s = c.prepareStatement(CREATE_LAST)) {
                s.setString(1, accountId);
                s.executeUpdate();
            }
        }
        List<String> ids = new ArrayList<>();
        try (PreparedStatement s = c.prepareStatement(UNNUMBERED)) {
            s.setString(1, accountId);
            s.setInt(2, max);
            try (ResultSet r = s.executeQuery()) {
                while (r.next()) {
                    ids.add(r.getString(1));
                }
            }
        }
        if (ids.isEmpty()) {
            return new Assigned(last, 0);
        }
        try (PreparedStatement s = c.prepareStatement(NUMBER)) {
            for (String id : ids) {
                s.setLong(1, ++last);
                s.setString(2, id);
                s.addBatch();
            }
            s.executeBatch();
        }
        try (PreparedStatement s = c.prepareStatement(SET_LAST)) {
            s.setLong(1, last);
            s.setString(2, accountId);
            s.executeUpdate();
        }
        return new Assigned(last, ids.size());
    }

    /** The account's events positioned after {@code seq}, in order, at most {@code limit}. */
    public static List<PositionedEvent> after(Connection c, String accountId, long seq, int limit) throws SQLException {
        try (PreparedStatement s = c.prepareStatement(AFTER)) {
            s.setString(1, accountId);
            s.setLong(2, seq);
            s.setInt(3, limit);
            List<PositionedEvent> out = new ArrayList<>();
            try (ResultSet r = s.executeQuery()) {
                while (r.next()) {
                    out.add(new PositionedEvent(r.getLong("seq"), r.getString("type"), EventStore.read(r)));
                }
            }
            return out;
        }
    }

    /**
     * The position of the account's event {@code eventId}; empty if the account has no such event
     * (another account's id included) or it has no position yet.
     */
    public static OptionalLong positionOf(Connection c, String accountId, String eventId) throws SQLException {
        try (PreparedStatement s = c.prepareStatement(POSITION_OF)) {
            s.setString(1, accountId);
            s.setString(2, eventId);
            try (ResultSet r = s.executeQuery()) {
                if (r.next()) {
                    long seq = r.getLong(1);
                    return r.wasNull() ? OptionalLong.empty() : OptionalLong.of(seq);
                }
                return OptionalLong.empty();
            }
        }
    }

    /**
     * Of {@code accounts}, those with news for a stream at {@code positions}: an event without a
     * position, or a last position beyond the one given. Two reads, whatever the number of accounts.
     */
    public static Set<String> withNews(Connection c, Map<String, Long> positions) throws SQLException {
        Set<String> news = new HashSet<>();
        List<String> accounts = new ArrayList<>(positions.keySet());
        for (int from = 0; from < accounts.size(); from += IN_CHUNK) {
            List<String> chunk = accounts.subList(from, Math.min(accounts.size(), from + IN_CHUNK));
            String in = String.join(", ", Collections.nCopies(chunk.size(), "?"));
            try (PreparedStatement s = c.prepareStatement(
                    "SELECT DISTINCT account_id FROM events WHERE seq IS NULL AND account_id IN (" + in + ")")) {
                bind(s, chunk);
                try (ResultSet r = s.executeQuery()) {
                    while (r.next()) {
                        news.add(r.getString(1));
                    }
                }
            }
            try (PreparedStatement s = c.prepareStatement(
                    "SELECT account_id, last_seq FROM event_streams WHERE account_id IN (" + in + ")")) {
                bind(s, chunk);
                try (ResultSet r = s.executeQuery()) {
                    while (r.next()) {
                        if (r.getLong(2) > positions.get(r.getString(1))) {
                            news.add(r.getString(1));
                        }
                    }
                }
            }
        }
        return news;
    }

    private static void bind(PreparedStatement s, Collection<String> values) throws SQLException {
        int i = 1;
        for (String v : values) {
            s.setString(i++, v);
        }
    }

    private static boolean exists(Connection c, String sql, String accountId) throws SQLException {
        try (PreparedStatement s = c.prepareStatement(sql)) {
            s.setString(1, accountId);
            try (ResultSet r = s.executeQuery()) {
                return r.next();
            }
        }
    }

    private static OptionalLong last(Connection c, String sql, String accountId) throws SQLException {
        try (PreparedStatement s = c.prepareStatement(sql)) {
            s.setString(1, accountId);
            try (ResultSet r = s.executeQuery()) {
                return r.next() ? OptionalLong.of(r.getLong(1)) : OptionalLong.empty();
            }
        }
    }
}
