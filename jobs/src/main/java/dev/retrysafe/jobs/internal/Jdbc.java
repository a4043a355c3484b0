package dev.retrysafe.jobs.internal;

import dev.retrysafe.common.Transactions;
import dev.retrysafe.jobs.JobStoreException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Instant;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;

/**
 * Connections, transactions with retries of transient conflicts (shared with the other JDBC
 * modules through {@link Transactions}), and nullable columns. Threadsafe.
 */
final class Jdbc {

    private final DataSource dataSource;
    private final Transactions transactions;

    /** Work over one connection. */
    @FunctionalInterface
    interface Work<T> extends Transactions.Work<T> {
    }

    Jdbc(DataSource dataSource) {
        this.dataSource = dataSource;
        this.transactions = new Transactions(dataSource, JobStoreException::new);
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
        return transactions.autocommit(operation, work);
    }

    /**
     * Runs {@code work} in one transaction and commits; rolls back and runs it again (a few times)
     * when the database reports a transient conflict, so {@code work} must not have effects
     * outside the transaction. A runtime exception of {@code work} rolls back and propagates.
     */
    <T> T transaction(String operation, Work<T> work) {
        return transactions.transaction(operation, work);
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
