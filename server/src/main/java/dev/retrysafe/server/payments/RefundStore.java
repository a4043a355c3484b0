package dev.retrysafe.server.payments;

import dev.retrysafe.server.http.ListQuery;
import dev.retrysafe.server.http.Page;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/** The SQL of refunds. Every query names the account. */
final class RefundStore {

    private static final String COLUMNS = "id, account_id, payment_id, amount, status, created_at";
    private static final String INSERT = "INSERT INTO refunds (" + COLUMNS + ") VALUES (?, ?, ?, ?, ?, ?)";
    private static final String FIND = "SELECT " + COLUMNS + " FROM refunds WHERE account_id = ? AND id = ?";
    private static final String LIST_FIRST =
            "SELECT " + COLUMNS + " FROM refunds WHERE account_id = ? ORDER BY id DESC LIMIT ?";
    private static final String LIST_AFTER =
            "SELECT " + COLUMNS + " FROM refunds WHERE account_id = ? AND id < ? ORDER BY id DESC LIMIT ?";

    private RefundStore() {}

    static void insert(Connection c, Refund r) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(INSERT)) {
            ps.setString(1, r.id());
            ps.setString(2, r.accountId());
            ps.setString(3, r.paymentId());
            ps.setLong(4, r.amount());
            ps.setString(5, r.status());
            ps.setObject(6, Times.sql(r.createdAt()));
            ps.executeUpdate();
        }
    }

    static Optional<Refund> find(Connection c, String accountId, String id) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(FIND)) {
            ps.setString(1, accountId);
            ps.setString(2, id);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? Optional.of(read(rs)) : Optional.empty();
            }
        }
    }

    static Page<Refund> list(Connection c, String accountId, ListQuery q) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(q.startingAfter() == null ? LIST_FIRST : LIST_AFTER)) {
            int i = 1;
            ps.setString(i++, accountId);
            if (q.startingAfter() != null) {
                ps.setString(i++, q.startingAfter());
            }
            ps.setInt(i, q.limit() + 1);
            List<Refund> out = new ArrayList<>();
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.add(read(rs));
                }
            }
            boolean more = out.size() > q.limit();
            return new Page<>(more ? out.subList(0, q.limit()) : out, more);
        }
    }

    private static Refund read(ResultSet rs) throws SQLException {
        return new Refund(
                rs.getString("id"),
                rs.getString("account_id"),
                rs.getString("payment_id"),
                rs.getLong("amount"),
                rs.getString("status"),
                Times.read(rs, "created_at"));
    }
}
