package dev.retrysafe.webhooks.internal;

import dev.retrysafe.webhooks.WebhookStoreException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.util.Objects;
import javax.sql.DataSource;

/**
 * The JDBC de-duplicator. "First time" is one insert that the primary key makes atomic, plus a
 * conditional update that takes over an expired row; neither holds locks across statements, so
 * it behaves the same on PostgreSQL and H2. Threadsafe.
 */
public final class JdbcDedup {

    /**
     * Rounds before giving up. Another round is needed only when H2 gives up a lock wait between
     * two racing inserts of one id, which changes nothing.
     */
    private static final int MAX_ROUNDS = 8;

    private final DataSource dataSource;
    private final long ttlMillis;
    private final int purgeBatchSize;
    private final Clock clock;

    /** A de-duplicator over {@code dataSource}. */
    public JdbcDedup(DataSource dataSource, Duration ttl, int purgeBatchSize, Clock clock) {
        this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
        this.ttlMillis = TtlIdSet.checkTtl(ttl).toMillis();
        this.purgeBatchSize = purgeBatchSize;
        this.clock = Objects.requireNonNull(clock, "clock");
    }

    /** {@code firstTime} in a connection of its own, in autocommit mode. */
    public boolean firstTime(String id) {
        try (Connection c = autocommitConnection()) {
            for (int round = 0; round < MAX_ROUNDS; round++) {
                try {
                    return claim(c, id);
                } catch (SQLException e) {
                    if (hasState(e, DedupSql.UNIQUE_VIOLATION)) {
                        // H2 may report a lost race as a violation despite ON CONFLICT: the id exists
                        return false;
                    }
                    if (!isTransientConflict(e)) {
                        throw e;
                    }
                }
            }
            throw new SQLException("gave up after " + MAX_ROUNDS + " rounds of lock conflicts on one id", "40001");
        } catch (SQLException e) {
            throw new WebhookStoreException("recording a webhook id failed", e);
        }
    }

    /** {@code firstTime} in the caller's transaction, which it neither commits nor rolls back. */
    public boolean firstTime(Connection transaction, String id) {
        try {
            return claim(transaction, id);
        } catch (SQLException e) {
            throw new WebhookStoreException("recording a webhook id in the caller's transaction failed", e);
        }
    }

    /** Deletes the id's row, if any. */
    public void forget(String id) {
        try (Connection c = autocommitConnection();
                PreparedStatement s = c.prepareStatement(DedupSql.DELETE)) {
            s.setString(1, id);
            s.executeUpdate();
        } catch (SQLException e) {
            throw new WebhookStoreException("forgetting a webhook id failed", e);
        }
    }

    /** Deletes every expired row, in batches of autocommit deletes; how many were deleted. */
    public int purgeExpired() {
        long cutoff = clock.millis() - ttlMillis;
        int total = 0;
        try (Connection c = autocommitConnection();
                PreparedStatement s = c.prepareStatement(DedupSql.PURGE_BATCH)) {
            int deleted;
            do {
                s.setLong(1, cutoff);
                s.setInt(2, purgeBatchSize);
                s.setLong(3, cutoff);
                deleted = s.executeUpdate();
                total += deleted;
            } while (deleted >= purgeBatchSize);
            return total;
        } catch (SQLException e) {
            throw new WebhookStoreException("purge failed after deleting " + total + " webhook ids", e);
        }
    }

    private boolean claim(Connection c, String id) throws SQLException {
        long now = clock.millis();
        try (PreparedStatement insert = c.prepareStatement(DedupSql.INSERT)) {
            insert.setString(1, id);
            insert.setLong(2, now);
            if (insert.executeUpdate() == 1) {
                return true;
            }
        }
        try (PreparedStatement renew = c.prepareStatement(DedupSql.RENEW_EXPIRED)) {
            renew.setLong(1, now);
            renew.setString(2, id);
            renew.setLong(3, now - ttlMillis);
            return renew.executeUpdate() == 1;
        }
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

    private static boolean isTransientConflict(SQLException e) {
        for (String state : DedupSql.TRANSIENT_CONFLICTS) {
            if (hasState(e, state)) {
                return true;
            }
        }
        return false;
    }

    private static boolean hasState(SQLException e, String sqlState) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof SQLException sql && sqlState.equals(sql.getSQLState())) {
                return true;
            }
        }
        return false;
    }
}
