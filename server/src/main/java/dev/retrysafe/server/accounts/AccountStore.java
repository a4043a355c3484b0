package dev.retrysafe.server.accounts;

import dev.retrysafe.server.db.Ids;
import dev.retrysafe.server.db.Transactions;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/** Accounts and API keys in the database. This class is threadsafe. */
public final class AccountStore {

    private static final String FIND_BY_KEY_HASH = """
            SELECT a.id, a.name, a.plan, a.created_at, a.rate_limit_version
            FROM api_keys k JOIN accounts a ON a.id = k.account_id
            WHERE k.key_hash = ?""";
    private static final String FIND_BY_NAME = "SELECT id, name, plan, created_at, rate_limit_version FROM accounts"
            + " WHERE name = ? ORDER BY id LIMIT 1";
    private static final String INSERT_ACCOUNT =
            "INSERT INTO accounts (id, name, plan, created_at, rate_limit_version) VALUES (?, ?, ?, ?, ?)";
    private static final String INSERT_KEY = "INSERT INTO api_keys (key_hash, account_id, created_at) VALUES (?, ?, ?)";

    private final Transactions transactions;
    private final Ids ids;
    private final Clock clock;

    /** A store writing through {@code transactions}. */
    public AccountStore(Transactions transactions, Ids ids, Clock clock) {
        this.transactions = transactions;
        this.ids = ids;
        this.clock = clock;
    }

    /** The account owning the key whose hash is {@code keyHash}, if any. */
    public Optional<Account> findByKeyHash(String keyHash) throws SQLException {
        return transactions.inNewTransaction(c -> one(c, FIND_BY_KEY_HASH, keyHash));
    }

    /** The oldest account called {@code name}, if any. */
    public Optional<Account> findByName(String name) throws SQLException {
        return transactions.inNewTransaction(c -> one(c, FIND_BY_NAME, name));
    }

    /** Creates an account with {@code key} as its API key (the key itself is not stored). */
    public Account create(String name, String plan, String key) throws SQLException {
        return create(name, plan, key, null);
    }

    /**
     * Creates an account with {@code key} as its API key, pinned to the rate-limit policy set
     * {@code rateLimitVersion} (or not, {@code null}); the caller checks the version exists.
     */
    public Account create(String name, String plan, String key, @Nullable String rateLimitVersion) throws SQLException {
        return transactions.inNewTransaction(c -> {
            Instant created = clock.instant();
            Account account = new Account(ids.next("acct_"), name, plan, created, rateLimitVersion);
            OffsetDateTime now = OffsetDateTime.ofInstant(created, ZoneOffset.UTC);
            try (PreparedStatement ps = c.prepareStatement(INSERT_ACCOUNT)) {
                ps.setString(1, account.id());
                ps.setString(2, name);
                ps.setString(3, plan);
                ps.setObject(4, now);
                ps.setString(5, rateLimitVersion);
                ps.executeUpdate();
            }
            try (PreparedStatement ps = c.prepareStatement(INSERT_KEY)) {
                ps.setString(1, ApiKeys.hash(key));
                ps.setString(2, account.id());
                ps.setObject(3, now);
                ps.executeUpdate();
            }
            return account;
        });
    }

    /**
     * Makes sure {@code key} belongs to an account, creating one called {@code name} when it does
     * not. Two instances starting at once may both try; the loser's insert fails on the key's
     * primary key and it then finds the winner's account.
     */
    public Account ensure(String key, String name, String plan) throws SQLException {
        Optional<Account> existing = findByKeyHash(ApiKeys.hash(key));
        if (existing.isPresent()) {
            return existing.get();
        }
        try {
            return create(name, plan, key);
        } catch (SQLException e) {
            return findByKeyHash(ApiKeys.hash(key)).orElseThrow(() -> e);
        }
    }

    private static Optional<Account> one(Connection c, String sql, String param) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            ps.setString(1, param);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    return Optional.empty();
                }
                OffsetDateTime created = rs.getObject(4, OffsetDateTime.class);
                return Optional.of(new Account(
                        rs.getString(1),
                        rs.getString(2),
                        rs.getString(3),
                        created == null ? null : created.toInstant(),
                        rs.getString(5)));
            }
        }
    }
}
