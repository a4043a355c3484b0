package dev.retrysafe.delivery.internal;

import dev.retrysafe.delivery.DeliveryStoreException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Instant;
import java.util.List;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;

/** Connections, transactions with retries of transient conflicts, and nullable columns. Threadsafe. */
public final class Jdbc {

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
    public interface Work<T> {
        /** Runs the work. */
        T run(Connection connection) throws SQLException;
    }

    /** Connections from {@code dataSource}. */
    public Jdbc(DataSource dataSource) {
        this.dataSource = dataSource;
    }

    /** Runs {@code work} on an auto-commit connection. */
    public <T> T autocommit(String operation, Work<T> work) {
        try (Connection c = dataSource.getConnection()) {
            if (!c.getAutoCommit()) {
                c.setAutoCommit(true);
            }
            return work.run(c);
        } catch (SQLException e) {
            throw new DeliveryStoreException(operation + " failed", e);
        }
    }

    /**
     * Runs {@code work} in one transaction and commits; rolls back and runs it again (a few times)
     * when the database reports a transient conflict, so {@code work} must not have effects
     * outside the transaction.
     */
    public <T> T transaction(String operation, Work<T> work) {
        SQLException last = null;
        for (int attempt = 0; attempt < MAX_TRIES; attempt++) {
            try (Connection c = dataSource.getConnection()) {
                c.setAutoCommit(false);
                try {
                    T result = work.run(c);
                    c.commit();
                    return result;
                } catch (SQLException | RuntimeException e) {
                    c.rollback();
                    throw e;
                } finally {
                    c.setAutoCommit(true);
                }
            } catch (SQLException e) {
                if (!isTransientConflict(e)) {
                    throw new DeliveryStoreException(operation + " failed", e);
                }
                last = e;
            }
        }
        throw new DeliveryStoreException(operation + " failed after " + MAX_TRIES + " transient conflicts", last);
    }

    /** Whether {@code e} is a lock conflict after which the transaction may simply run again. */
    public static boolean isTransientConflict(SQLException e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof SQLException sql && sql.getSQLState() != null
                    && TRANSIENT_CONFLICTS.contains(sql.getSQLState())) {
                return true;
            }
        }
        return false;
    }

    /** Binds epoch milliseconds or SQL NULL. */
    public static void setMillis(PreparedStatement s, int index, @Nullable Instant at) throws SQLException {
        if (at == null) {
            s.setNull(index, java.sql.Types.BIGINT);
        } else {
            s.setLong(index, at.toEpochMilli());
        }
    }

    /** Binds an integer or SQL NULL. */
    public static void setInteger(PreparedStatement s, int index, @Nullable Integer value) throws SQLException {
        if (value == null) {
            s.setNull(index, java.sql.Types.INTEGER);
        } else {
            s.setInt(index, value);
        }
    }

    /** The instant in column {@code column}, or {@code null}. */
    public static @Nullable Instant millis(java.sql.ResultSet r, String column) throws SQLException {
        long value = r.getLong(column);
        return r.wasNull() ? null : Instant.ofEpochMilli(value);
    }

    /** The integer in column {@code column}, or {@code null}. */
    public static @Nullable Integer integer(java.sql.ResultSet r, String column) throws SQLException {
        int value = r.getInt(column);
        return r.wasNull() ? null : value;
    }
}
