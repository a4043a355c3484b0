package dev.retrysafe.server.payments;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;

/**
 * Reads an account's payments created in a time range, oldest first, for reports. The rows are
 * streamed from the database in batches (the connection must not be in auto-commit mode, which
 * PostgreSQL's driver needs to use a cursor), so a report of millions of payments never sits in
 * memory. This class is threadsafe.
 */
public final class PaymentExport {

    /** Rows fetched per round trip. */
    private static final int FETCH_SIZE = 500;

    private static final String RANGE = " FROM payments WHERE account_id = ? AND created_at >= ? AND created_at < ?";
    private static final String COUNT = "SELECT COUNT(*)" + RANGE;
    private static final String SELECT =
            "SELECT id, account_id, amount, amount_refunded, currency, status, description," + " created_at" + RANGE
                    + " ORDER BY created_at, id";

    /** Receives the payments one by one. */
    @FunctionalInterface
    public interface Rows {
        /** Takes the next payment; an exception stops the export. */
        void accept(Payment payment) throws Exception;
    }

    private PaymentExport() {}

    /** How many of the account's payments were created in {@code [from, to)}. */
    public static long count(Connection c, String accountId, Instant from, Instant to) throws SQLException {
        try (PreparedStatement ps = range(c, COUNT, accountId, from, to);
                ResultSet rs = ps.executeQuery()) {
            rs.next();
            return rs.getLong(1);
        }
    }

    /** Hands every payment of the account created in {@code [from, to)} to {@code rows}, oldest first. */
    public static void forEach(Connection c, String accountId, Instant from, Instant to, Rows rows) throws Exception {
        try (PreparedStatement ps = range(c, SELECT, accountId, from, to)) {
            ps.setFetchSize(FETCH_SIZE);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    rows.accept(PaymentStore.read(rs));
                }
            }
        }
    }

    private static PreparedStatement range(Connection c, String sql, String accountId, Instant from, Instant to)
            throws SQLException {
        PreparedStatement ps = c.prepareStatement(sql);
        ps.setString(1, accountId);
        ps.setObject(2, Times.sql(from));
        ps.setObject(3, Times.sql(to));
        return ps;
    }
}
