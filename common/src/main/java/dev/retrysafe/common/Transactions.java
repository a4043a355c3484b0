package dev.retrysafe.common;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import javax.sql.DataSource;

/**
 * Work over connections of one data source: in auto-commit mode, or in one transaction that runs
 * again when the database reports a transient lock conflict. A failure is reported as the
 * module's own store exception, made by the {@link Failure} it passes in. Threadsafe.
 */
public final class Transactions {

    /**
     * SQLStates of lock waits that gave up without changing anything: serialization failure and
     * deadlock (both databases), H2's lock timeout and its concurrent update.
     */
    private static final List<String> TRANSIENT_CONFLICTS = List.of("40001", "40P01", "HYT00", "90131");
    /** Tries of one transaction that keeps meeting transient conflicts. */
    public static final int MAX_TRIES = 5;

    private final DataSource dataSource;
    private final Failure failure;

    /** Work over one connection. */
    @FunctionalInterface
    public interface Work<T> {
        /** Runs the work. */
        T run(Connection connection) throws SQLException;
    }

    /** Makes the exception that reports a failed operation (the module's own store exception). */
    @FunctionalInterface
    public interface Failure {
        /** The exception for {@code message} caused by {@code cause}. */
        RuntimeException of(String message, SQLException cause);
    }

    /** Connections from {@code dataSource}; failures reported through {@code failure}. */
    public Transactions(DataSource dataSource, Failure failure) {
        this.dataSource = dataSource;
        this.failure = failure;
    }

    /** Runs {@code work} on an auto-commit connection. */
    public <T> T autocommit(String operation, Work<T> work) {
        try (Connection c = dataSource.getConnection()) {
            if (!c.getAutoCommit()) {
                c.setAutoCommit(true);
            }
            return work.run(c);
        } catch (SQLException e) {
            throw failure.of(operation + " failed", e);
        }
    }

    /**
     * Runs {@code work} in one transaction and commits; rolls back and runs it again (up to
     * {@link #MAX_TRIES} times in all) when the database reports a transient conflict, so
     * {@code work} must not have effects outside the transaction. A runtime exception of
     * {@code work} rolls back and propagates; a failed rollback is added to what caused it.
     */
    public <T> T transaction(String operation, Work<T> work) {
        for (int attempt = 1; ; attempt++) {
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
                    throw failure.of(operation + " failed", e);
                }
                if (attempt == MAX_TRIES) {
                    throw failure.of(operation + " failed after " + MAX_TRIES + " transient conflicts", e);
                }
            }
        }
    }

    private static void rollbackQuietly(Connection c, Exception cause) {
        try {
            c.rollback();
        } catch (SQLException e) {
            cause.addSuppressed(e);
        }
    }

    /**
     * Whether {@code e}, or an exception among its causes, is a lock conflict after which the
     * transaction may simply run again: it changed nothing.
     */
    public static boolean isTransientConflict(SQLException e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            // a driver or a listener may throw without a SQLState (and List.of rejects null lookups)
            if (t instanceof SQLException sql
                    && sql.getSQLState() != null
                    && TRANSIENT_CONFLICTS.contains(sql.getSQLState())) {
                return true;
            }
        }
        return false;
    }
}
