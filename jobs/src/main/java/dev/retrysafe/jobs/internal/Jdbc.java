package dev.retrysafe.jobs.internal;

import dev.retrysafe.jobs.JobStoreException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Instant;
import java.util.List;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;

/** Connections, transactions with retries of transient conflicts, and nullable columns. Threadsafe. */
final class Jdbc {

    /**
     * SQLStates of lock waits that gave up without changing anything: serialization failure and
     * deadlock (both databases), H2's lock timeout and its concurrent update.
     */
    private static final List<String> TRANSIENT_CONFLICTS = List.of("40001", "40P01", "HYT00", "90131");
    /** Tries of one transaction that keeps meeting transient conflicts. */
    private static final int MAX_TRIES = 5;

    private final DataSource dataSource;

    /** Work over one connection. */
    @FunctionalInterface
    interface Work<T> {
        /** Runs the work. */
        T run(Connection connection) throws SQLException;
    }

    Jdbc(DataSource dataSource) {
        this.dataSource = dataSource;
    }

    /** A connection in auto-commit mode; the caller closes it. */
    Connection autocommitConnection() throws SQLException {
        Connection c = dataSource.getConnection();
        try {
            if (!c.getAutoCommit()) {
                c.setAutoCommit(true);
            }
            return c;
        } catch (SQLException | RuntimeException e) {
            c.close();
            throw e;
        }
    }

    /** Runs {@code work} on an auto-commit connection. */
    <T> T autocommit(String operation, Work<T> work) {
        try (Connection c = dataSource.getConnection()) {
            if (!c.getAutoCommit()) {
                c.setAutoCommit(true);
            }
            return work.run(c);
        } catch (SQLException e) {
            throw new JobStoreException(operation + " failed", e);
        }
    }

    /**
     * Runs {@code work} in one transaction and commits; rolls back and runs it again (a few times)
     * when the database reports a transient conflict, so {@code work} must not have effects
     * outside the transaction. A runtime exception of {@code work} rolls back and propagates.
     */
    <T> T transaction(String operation, Work<T> work) {
        SQLException last = null;
        for (int attempt = 0; attempt < MAX_TRIES; attempt++) {
            try (Connection c = dataSource.getConnection()) {
                c.setAutoCommit(false);
                try {
                    T result = work.run(c);
                    c.commit();
                    return result;
                } catch (SQLException | RuntimeException e) {
                    rollbackQuietly(c, e);
                    throw e;
                } finally {
                    c.setAutoCommit(true);
                }
            } catch (SQLException e) {
                if (!isTransientConflict(e)) {
                    throw new JobStoreException(operation + " failed", e);
                }
                last = e;
            }
        }
        throw new JobStoreException(operation + " failed after " + MAX_TRIES + " transient conflicts", last);
    }

    private static void rollbackQuietly(Connection c, Exception cause) {
        try {
            c.rollback();
        } catch (SQLException e) {
            cause.addSuppressed(e);
        }
    }

    /** Whether {@code e} is a lock conflict after which the transaction may simply run again. */
    static boolean isTransientConflict(SQLException e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            // a driver or a listener may throw without a SQLState (and List.of rejects null lookups)
            if (t instanceof SQLException sql && sql.getSQLState() != null
                    && TRANSIENT_CONFLICTS.contains(sql.getSQLState())) {
                return true;
            }
        }
        return false;
    }

    /** Whether {@code e} is a unique-key violation. */
    static boolean isUniqueViolation(SQLException e) {
        return "23505".equals(e.getSQLState());
    }

    /** Binds text or SQL NULL. */
    static void setText(PreparedStatement s, int index, @Nullable String value) throws SQLException {
        if (value == null) {
            s.setNull(index, Types.VARCHAR);
        } else {
            s.setString(index, value);
        }
    }

    /** The instant in column {@code column}, or {@code null}. */
    static @Nullable Instant millis(ResultSet r, String column) throws SQLException {
        long value = r.getLong(column);
        return r.wasNull() ? null : Instant.ofEpochMilli(value);
    }
}
