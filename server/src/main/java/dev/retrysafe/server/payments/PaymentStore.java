package dev.retrysafe.server.payments;

import dev.retrysafe.leasedwork.Pipeline;
import dev.retrysafe.server.http.ListQuery;
import dev.retrysafe.server.http.Page;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/** The SQL of payments. Every query names the account, so one account never sees another's rows. */
final class PaymentStore {

    private static final String COLUMNS =
            "id, account_id, amount, amount_refunded, currency, status, description, created_at";
    private static final String INSERT =
            "INSERT INTO payments (" + COLUMNS + ", idempotency_key) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)";
    private static final String FIND = "SELECT " + COLUMNS + " FROM payments WHERE account_id = ? AND id = ?";
    /** Locks the row so that concurrent refunds of one payment run one after the other. */
    private static final String FIND_FOR_UPDATE = FIND + " FOR UPDATE";

    private static final String ADD_REFUNDED = """
            UPDATE payments SET amount_refunded = amount_refunded + ?
            WHERE account_id = ? AND id = ? AND amount_refunded + ? <= amount""";
    private static final String LIST_FIRST =
            "SELECT " + COLUMNS + " FROM payments WHERE account_id = ? ORDER BY id DESC LIMIT ?";
    private static final String LIST_AFTER =
            "SELECT " + COLUMNS + " FROM payments WHERE account_id = ? AND id < ? ORDER BY id DESC LIMIT ?";

    private PaymentStore() {}

    /** Inserts a payment through {@code pipeline} (held back with the writes before the next query on PostgreSQL). */
    static void insert(Pipeline pipeline, Payment p, @Nullable String idempotencyKey) throws SQLException {
        pipeline.write(
                INSERT,
                b -> b.string(p.id())
                        .string(p.accountId())
                        .longValue(p.amount())
                        .longValue(p.amountRefunded())
                        .string(p.currency())
                        .string(p.status())
                        .string(p.description())
                        .object(Times.sql(p.createdAt()))
                        .string(idempotencyKey));
    }

    static Optional<Payment> find(Connection c, String accountId, String id) throws SQLException {
        return one(c, FIND, accountId, id);
    }

    static Optional<Payment> lock(Connection c, String accountId, String id) throws SQLException {
        return one(c, FIND_FOR_UPDATE, accountId, id);
    }

    /** Adds {@code amount} to what was refunded; false if that would exceed the payment. */
    static boolean addRefunded(Connection c, String accountId, String id, long amount) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(ADD_REFUNDED)) {
            ps.setLong(1, amount);
            ps.setString(2, accountId);
            ps.setString(3, id);
            ps.setLong(4, amount);
            return ps.executeUpdate() == 1;
        }
    }

    static Page<Payment> list(Connection c, String accountId, ListQuery q) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(q.startingAfter() == null ? LIST_FIRST : LIST_AFTER)) {
            int i = 1;
            ps.setString(i++, accountId);
            if (q.startingAfter() != null) {
                ps.setString(i++, q.startingAfter());
            }
            ps.setInt(i, q.limit() + 1); // one more than asked tells whether more follow
            List<Payment> out = new ArrayList<>();
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.add(read(rs));
                }
            }
            boolean more = out.size() > q.limit();
            return new Page<>(more ? out.subList(0, q.limit()) : out, more);
        }
    }

    private static Optional<Payment> one(Connection c, String sql, String accountId, String id) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            ps.setString(1, accountId);
            ps.setString(2, id);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? Optional.of(read(rs)) : Optional.empty();
            }
        }
    }

    static Payment read(ResultSet rs) throws SQLException {
        return new Payment(
                rs.getString("id"),
                rs.getString("account_id"),
                rs.getLong("amount"),
                rs.getLong("amount_refunded"),
                rs.getString("currency"),
                rs.getString("status"),
                rs.getString("description"),
                Times.read(rs, "created_at"));
    }
}
