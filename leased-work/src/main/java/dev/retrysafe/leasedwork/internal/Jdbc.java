package dev.retrysafe.leasedwork.internal;

import dev.retrysafe.common.Transactions;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Instant;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;

/**
 * Connections, transactions with retries of transient conflicts (shared with the other JDBC
 * modules through {@link Transactions}), and binders of nullable parameters. A failure is
 * reported as the owning module's own exception. Threadsafe.
 */
public final class Jdbc {

    private final DataSource dataSource;
    private final Transactions transactions;

    /** Work over one connection. */
    @FunctionalInterface
    public interface Work<T> extends Transactions.Work<T> {}

    /** Connections from {@code dataSource}; a failure becomes {@code failure}'s exception. */
    public Jdbc(DataSource dataSource, Transactions.Failure failure) {
        this.dataSource = dataSource;
        this.transactions = new Transactions(dataSource, failure);
    }

    /** A connection in auto-commit mode; the caller closes it. */
    public Connection autocommitConnection() throws SQLException {
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
    public <T> T autocommit(String operation, Work<T> work) {
        return transactions.autocommit(operation, work);
    }

    /**
     * Runs {@code work} in one transaction and commits; rolls back and runs it again (a few times)
     * when the database reports a transient conflict, so {@code work} must not have effects
     * outside the transaction. A runtime exception of {@code work} rolls back and propagates.
     */
    public <T> T transaction(String operation, Work<T> work) {
        return transactions.transaction(operation, work);
    }

    /** Whether {@code e} is a lock conflict after which the transaction may simply run again. */
    public static boolean isTransientConflict(SQLException e) {
        return Transactions.isTransientConflict(e);
    }

    /** Whether {@code e} is a unique-key violation. */
    public static boolean isUniqueViolation(SQLException e) {
        return "23505".equals(e.getSQLState());
    }

    /** Whether {@code c} talks to PostgreSQL (else H2, which runs in process). */
    public static boolean isPostgres(Connection c) throws SQLException {
        return "PostgreSQL".equals(c.getMetaData().getDatabaseProductName());
    }

    /**
     * {@code select} taking an update lock on the rows it returns, skipping (not waiting for) rows
     * another transaction holds; the same words on PostgreSQL and H2 2.x. Built here, beside the
     * lease SQL, so that the modules on the engine hold no lock clause of their own.
     */
    public static String forUpdateSkipLocked(String select) {
        return select + " FOR UPDATE SKIP LOCKED";
    }

    /** Binds epoch milliseconds or SQL NULL. */
    public static void setMillis(PreparedStatement s, int index, @Nullable Instant at) throws SQLException {
        if (at == null) {
            s.setNull(index, Types.BIGINT);
        } else {
            s.setLong(index, at.toEpochMilli());
        }
    }

    /** Binds an integer or SQL NULL. */
    public static void setInteger(PreparedStatement s, int index, @Nullable Integer value) throws SQLException {
        if (value == null) {
            s.setNull(index, Types.INTEGER);
        } else {
            s.setInt(index, value);
        }
    }

    /** Binds text or SQL NULL. */
    public static void setText(PreparedStatement s, int index, @Nullable String value) throws SQLException {
        if (value == null) {
            s.setNull(index, Types.VARCHAR);
        } else {
            s.setString(index, value);
        }
    }
}
