package dev.retrysafe.idempotency.internal;

import dev.retrysafe.common.Transactions;
import dev.retrysafe.idempotency.Claim;
import dev.retrysafe.idempotency.ClaimLostException;
import dev.retrysafe.idempotency.ClaimOutcome;
import dev.retrysafe.idempotency.Fingerprint;
import dev.retrysafe.idempotency.IdempotencyStore;
import dev.retrysafe.idempotency.IdempotencyStoreException;
import dev.retrysafe.idempotency.Scope;
import dev.retrysafe.idempotency.StoredResponse;
import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.HexFormat;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;

/**
 * The JDBC store. Claims are single autocommit statements whose atomicity comes from the primary
 * key (first claim) and from conditional updates naming the expected token (takeover,
 * replacement, completion, release), so it needs no locks held across statements and behaves the
 * same on PostgreSQL and H2. Threadsafe.
 */
public final class JdbcStore implements IdempotencyStore {

    /**
     * Rounds of insert-then-read before giving up. Another round is needed only when the row
     * changed between two of our statements, which takes a concurrent release, purge or takeover.
     */
    private static final int MAX_ROUNDS = 8;

    private static final SecureRandom TOKENS = new SecureRandom();

    private final DataSource dataSource;
    private final StoreConfig config;

    /** A store over {@code dataSource} with {@code config}. */
    public JdbcStore(DataSource dataSource, StoreConfig config) {
        this.dataSource = dataSource;
        this.config = config;
    }

    @Override
    public ClaimOutcome claim(Scope scope, Fingerprint fingerprint, Instant now, Duration lease) {
        if (lease.isNegative() || lease.isZero()) {
            throw new IllegalArgumentException("lease must be positive: " + lease);
        }
        long nowMillis = now.toEpochMilli();
        long retentionCutoff = nowMillis - config.retention().toMillis();
        Instant leaseExpiresAt = now.plus(lease);
        try (Connection c = autocommitConnection()) {
            for (int round = 0; round < MAX_ROUNDS; round++) {
                Claim candidate = new Claim(scope, fingerprint, newToken(), leaseExpiresAt);
                Boolean inserted = insert(c, candidate, nowMillis);
                if (inserted == null) {
                    continue; // a lock wait gave up under contention: read the key afresh
                }
                if (inserted) {
                    return new ClaimOutcome.Acquired(candidate, false);
                }
                StoredRow row = read(c, scope);
                switch (RowVerdict.of(row, fingerprint, nowMillis, retentionCutoff)) {
                    case FREE -> {
                        continue; // released or purged since our insert failed: try to insert again
                    }
                    case REPLAY -> {
                        return new ClaimOutcome.Replay(row.response());
                    }
                    case MISMATCH -> {
                        return new ClaimOutcome.Mismatch();
                    }
                    case IN_FLIGHT -> {
                        return new ClaimOutcome.InFlight(Duration.ofMillis(row.leaseExpiresAt() - nowMillis));
                    }
                    case EXPIRED_ANSWER -> {
                        if (replace(c, StoreSql.REPLACE_EXPIRED_ANSWER, candidate, nowMillis, row, retentionCutoff)) {
                            return new ClaimOutcome.Acquired(candidate, false);
                        }
                    }
                    case ABANDONED -> {
                        if (replace(c, StoreSql.TAKE_OVER_EXPIRED_LEASE, candidate, nowMillis, row, nowMillis)) {
                            return new ClaimOutcome.Acquired(candidate, true);
                        }
                    }
                }
            }
            // the row kept changing under us: someone else is actively working on this key
            return new ClaimOutcome.InFlight(lease);
        } catch (SQLException e) {
            throw new IdempotencyStoreException("claim failed for " + scope.account() + " / " + scope.route(), e);
        }
    }

    /** Every claim is a short autocommit transaction on a connection of its own. */
    @Override
    public boolean claimsOnOwnConnection() {
        return true;
    }

    @Override
    public void complete(Connection transaction, Claim claim, StoredResponse response, Instant now) {
        int updated;
        try (PreparedStatement s = transaction.prepareStatement(StoreSql.COMPLETE)) {
            s.setLong(1, now.toEpochMilli());
            s.setInt(2, response.status());
            s.setString(3, HeaderCodec.encode(response.headers()));
            s.setBytes(4, response.body());
            bindScopeAndToken(s, 5, claim.scope(), claim.token());
            updated = s.executeUpdate();
        } catch (SQLException e) {
            throw new IdempotencyStoreException(
                    "complete failed for " + claim.scope().account() + " / "
                            + claim.scope().route(),
                    e);
        }
        if (updated != 1) {
            throw new ClaimLostException(claim.scope());
        }
    }

    @Override
    public boolean release(Claim claim) {
        try (Connection c = autocommitConnection();
                PreparedStatement s = c.prepareStatement(StoreSql.RELEASE)) {
            bindScopeAndToken(s, 1, claim.scope(), claim.token());
            return s.executeUpdate() == 1;
        } catch (SQLException e) {
            throw new IdempotencyStoreException(
                    "release failed for " + claim.scope().account() + " / "
                            + claim.scope().route(),
                    e);
        }
    }

    @Override
    public int purge(Instant cutoff) {
        long cutoffMillis = cutoff.toEpochMilli();
        int total = 0;
        try (Connection c = autocommitConnection();
                PreparedStatement s = c.prepareStatement(StoreSql.PURGE_BATCH)) {
            int deleted;
            do {
                s.setLong(1, cutoffMillis);
                s.setLong(2, cutoffMillis);
                s.setInt(3, config.purgeBatchSize());
                s.setLong(4, cutoffMillis);
                s.setLong(5, cutoffMillis);
                deleted = s.executeUpdate();
                total += deleted;
            } while (deleted >= config.purgeBatchSize());
            return total;
        } catch (SQLException e) {
            throw new IdempotencyStoreException("purge failed after deleting " + total + " keys", e);
        }
    }

    /** True if inserted, false if the key exists, null if a transient lock conflict says "try again". */
    private @Nullable Boolean insert(Connection c, Claim claim, long nowMillis) throws SQLException {
        try (PreparedStatement s = c.prepareStatement(StoreSql.INSERT_CLAIM)) {
            bindClaim(s, claim, nowMillis);
            s.executeUpdate();
            return true;
        } catch (SQLException e) {
            if (hasState(e, StoreSql.UNIQUE_VIOLATION)) {
                return false;
            }
            if (isTransientConflict(e)) {
                return null;
            }
            throw e;
        }
    }

    /** Runs a takeover or replacement; true if the row still was the one we read. */
    private static boolean replace(Connection c, String sql, Claim claim, long nowMillis, StoredRow old, long threshold)
            throws SQLException {
        try (PreparedStatement s = c.prepareStatement(sql)) {
            s.setString(1, claim.fingerprint().hex());
            s.setString(2, claim.token());
            s.setLong(3, claim.leaseExpiresAt().toEpochMilli());
            s.setLong(4, nowMillis);
            bindScopeAndToken(s, 5, claim.scope(), old.leaseToken());
            s.setLong(9, threshold);
            return s.executeUpdate() == 1;
        }
    }

    /** The key's row as {@code c} sees it now, or null. */
    static @Nullable StoredRow read(Connection c, Scope scope) throws SQLException {
        try (PreparedStatement s = c.prepareStatement(StoreSql.SELECT_ROW)) {
            bindScope(s, 1, scope);
            try (ResultSet r = s.executeQuery()) {
                return r.next() ? StoredRow.from(r) : null;
            }
        }
    }

    static void bindScopeAndToken(PreparedStatement s, int first, Scope scope, String token) throws SQLException {
        bindScope(s, first, scope);
        s.setString(first + 3, token);
    }

    /** Binds account, route and key from parameter {@code first} on. */
    static void bindScope(PreparedStatement s, int first, Scope scope) throws SQLException {
        s.setString(first, scope.account());
        s.setString(first + 1, scope.route());
        s.setString(first + 2, scope.key().value());
    }

    /**
     * Binds the first seven columns of a key's row, as {@link StoreSql#INSERT_CLAIM} and
     * {@link StoreSql#INSERT_COMPLETED} list them: scope, fingerprint, token, lease, created at.
     */
    static void bindClaim(PreparedStatement s, Claim claim, long createdAtMillis) throws SQLException {
        bindScope(s, 1, claim.scope());
        s.setString(4, claim.fingerprint().hex());
        s.setString(5, claim.token());
        s.setLong(6, claim.leaseExpiresAt().toEpochMilli());
        s.setLong(7, createdAtMillis);
    }

    private Connection autocommitConnection() throws SQLException {
        Connection c = dataSource.getConnection();
        try {
            if (!c.getAutoCommit()) {
                c.setAutoCommit(true);
            }
            return c;
        } catch (SQLException e) {
            c.close();
            throw e;
        }
    }

    /**
     * Lock waits that give up (H2's lock timeout, its "concurrent update", a deadlock or
     * serialization failure): two inserts of one new key can meet these instead of a clean
     * unique violation when the machine is loaded. They change nothing, so another round is safe.
     */
    private static boolean isTransientConflict(SQLException e) {
        return Transactions.isTransientConflict(e);
    }

    static boolean hasState(SQLException e, String sqlState) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof SQLException sql && sqlState.equals(sql.getSQLState())) {
                return true;
            }
        }
        return false;
    }

    static String newToken() {
        byte[] bytes = new byte[16];
        TOKENS.nextBytes(bytes);
        return HexFormat.of().formatHex(bytes);
    }
}
