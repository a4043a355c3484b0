package dev.retrysafe.server.payments;

import dev.retrysafe.server.db.Ids;
import dev.retrysafe.server.http.Json;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Instant;
import java.util.Map;

/**
 * Appends events to the outbox table. Always called with the connection of the change the event
 * describes, so the event exists if and only if the change committed. This class is threadsafe.
 */
final class Events {

    static final String PAYMENT_SUCCEEDED = "payment.succeeded";
    static final String PAYMENT_FAILED = "payment.failed";
    static final String REFUND_CREATED = "refund.created";

    private static final String INSERT = "INSERT INTO events (id, account_id, type, created_at, data) VALUES (?, ?, ?, ?, ?)";

    private final Ids ids;

    Events(Ids ids) {
        this.ids = ids;
    }

    void append(Connection c, String accountId, String type, Instant at, Map<String, ?> data) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(INSERT)) {
            ps.setString(1, ids.next("evt_"));
            ps.setString(2, accountId);
            ps.setString(3, type);
            ps.setObject(4, Times.sql(at));
            ps.setString(5, new String(Json.bytes(data), StandardCharsets.UTF_8));
            ps.executeUpdate();
        }
    }
}
