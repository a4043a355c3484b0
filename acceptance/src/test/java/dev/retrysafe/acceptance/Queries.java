package dev.retrysafe.acceptance;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HashMap;
import java.util.Map;

/**
 * The queries the acceptance tests make to count what a server stored, on a connection the caller
 * opened and closes: a {@link Deployment} opens one per query, a test with a shared database keeps
 * one open for several.
 */
final class Queries {

    private Queries() {}

    /** The single number {@code sql} (a {@code SELECT COUNT(*) ...}) returns. */
    static long count(Connection c, String sql) throws SQLException {
        try (Statement s = c.createStatement();
                ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    /** Idempotency key to the number of payments made with it. */
    static Map<String, Long> paymentsPerKey(Connection c) throws SQLException {
        Map<String, Long> counts = new HashMap<>();
        try (Statement s = c.createStatement();
                ResultSet rs =
                        s.executeQuery("SELECT idempotency_key, COUNT(*) FROM payments GROUP BY idempotency_key")) {
            while (rs.next()) {
                counts.put(rs.getString(1), rs.getLong(2));
            }
        }
        return counts;
    }

    /**
     * Idempotency key to payment id; fails if a key has more than one payment, since a map of one
     * id per key would otherwise hide the very double payment the tests look for.
     */
    static Map<String, String> paymentIdsByKey(Connection c) throws SQLException {
        Map<String, String> ids = new HashMap<>();
        try (Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT idempotency_key, id FROM payments")) {
            while (rs.next()) {
                String previous = ids.put(rs.getString(1), rs.getString(2));
                assertThat(previous)
                        .as("a second payment for key %s", rs.getString(1))
                        .isNull();
            }
        }
        return ids;
    }
}
