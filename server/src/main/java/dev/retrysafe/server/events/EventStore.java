package dev.retrysafe.server.events;

import com.fasterxml.jackson.core.JsonProcessingException;
import dev.retrysafe.leasedwork.Pipeline;
import dev.retrysafe.server.http.Json;
import dev.retrysafe.server.http.ListQuery;
import dev.retrysafe.server.http.Page;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/** The SQL of the {@code events} table, every read scoped to one account. */
final class EventStore {

    private static final String INSERT =
            "INSERT INTO events (id, account_id, type, created_at, data, ordering_key, traceparent)"
                    + " VALUES (?, ?, ?, ?, ?, ?, ?)";
    private static final String COLUMNS = "id, type, created_at, data, ordering_key";
    private static final String FIND = "SELECT " + COLUMNS + " FROM events WHERE account_id = ? AND id = ?";

    private EventStore() {}

    /**
     * Inserts an event through {@code p} (held back with the writes before the next query on
     * PostgreSQL), with its ordering key and the {@code traceparent} of the request that caused it
     * (each null for none).
     */
    static void insert(
            Pipeline p,
            String id,
            String accountId,
            String type,
            Instant at,
            String data,
            @Nullable String orderingKey,
            @Nullable String traceparent)
            throws SQLException {
        p.write(
                INSERT,
                b -> b.string(id)
                        .string(accountId)
                        .string(type)
                        .object(OffsetDateTime.ofInstant(at, ZoneOffset.UTC))
                        .string(data)
                        .string(orderingKey)
                        .string(traceparent));
    }

    static Optional<Map<String, Object>> find(Connection c, String accountId, String id) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(FIND)) {
            ps.setString(1, accountId);
            ps.setString(2, id);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? Optional.of(read(rs)) : Optional.empty();
            }
        }
    }

    /** A page of the account's events, newest first, only of {@code type} when given. */
    static Page<Map<String, Object>> list(Connection c, String accountId, @Nullable String type, ListQuery q)
            throws SQLException {
        StringBuilder sql = new StringBuilder("SELECT " + COLUMNS + " FROM events WHERE account_id = ?");
        if (type != null) {
            sql.append(" AND type = ?");
        }
        if (q.startingAfter() != null) {
            sql.append(" AND id < ?");
        }
        sql.append(" ORDER BY id DESC LIMIT ?");
        try (PreparedStatement ps = c.prepareStatement(sql.toString())) {
            int i = 1;
            ps.setString(i++, accountId);
            if (type != null) {
                ps.setString(i++, type);
            }
            if (q.startingAfter() != null) {
                ps.setString(i++, q.startingAfter());
            }
            ps.setInt(i, q.limit() + 1); // one more than asked tells whether more follow
            List<Map<String, Object>> out = new ArrayList<>();
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.add(read(rs));
                }
            }
            boolean more = out.size() > q.limit();
            return new Page<>(more ? out.subList(0, q.limit()) : out, more);
        }
    }

    static Map<String, Object> read(ResultSet rs) throws SQLException {
        Instant at = rs.getObject("created_at", OffsetDateTime.class).toInstant();
        try {
            return EventLog.envelope(
                    rs.getString("id"),
                    rs.getString("type"),
                    at,
                    rs.getString("ordering_key"),
                    Json.MAPPER.readTree(rs.getString("data")));
        } catch (JsonProcessingException e) {
            throw new SQLException("event " + rs.getString("id") + " holds no JSON", e);
        }
    }
}
