package com.example.payments.payments;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Optional;
import org.jspecify.annotations.Nullable;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Repository;

/**
 * The SQL of payments, on the application's {@code JdbcTemplate} (so it joins the request's
 * Spring transaction). Every query names the account: one account never sees another's rows.
 */
@Repository
class PaymentStore {

    private static final String COLUMNS = "id, account_id, amount, currency, status, description, created_at";
    private static final String INSERT =
            "INSERT INTO payments (" + COLUMNS + ", idempotency_key) VALUES (?, ?, ?, ?, ?, ?, ?, ?)";
    private static final String FIND = "SELECT " + COLUMNS + " FROM payments WHERE account_id = ? AND id = ?";
    private static final String LIST_FIRST =
            "SELECT " + COLUMNS + " FROM payments WHERE account_id = ? ORDER BY id DESC LIMIT ?";
    private static final String LIST_AFTER =
            "SELECT " + COLUMNS + " FROM payments WHERE account_id = ? AND id < ? ORDER BY id DESC LIMIT ?";

    private final JdbcTemplate jdbc;

    PaymentStore(JdbcTemplate jdbc) {
        this.jdbc = jdbc;
    }

    void insert(Payment p, @Nullable String idempotencyKey) {
        jdbc.update(
                INSERT,
                p.id(),
                p.accountId(),
                p.amount(),
                p.currency(),
                p.status(),
                p.description(),
                OffsetDateTime.ofInstant(p.createdAt(), ZoneOffset.UTC),
                idempotencyKey);
    }

    Optional<Payment> find(String accountId, String id) {
        return jdbc.query(FIND, PaymentStore::read, accountId, id).stream().findFirst();
    }

    /** Up to {@code limit + 1} payments, newest first: one more than asked tells whether more follow. */
    List<Payment> page(String accountId, int limit, @Nullable String startingAfter) {
        return startingAfter == null
                ? jdbc.query(LIST_FIRST, PaymentStore::read, accountId, limit + 1)
                : jdbc.query(LIST_AFTER, PaymentStore::read, accountId, startingAfter, limit + 1);
    }

    private static Payment read(ResultSet rs, int row) throws SQLException {
        return new Payment(
                rs.getString("id"),
                rs.getString("account_id"),
                rs.getLong("amount"),
                rs.getString("currency"),
                rs.getString("status"),
                rs.getString("description"),
                rs.getObject("created_at", OffsetDateTime.class).toInstant());
    }
}
