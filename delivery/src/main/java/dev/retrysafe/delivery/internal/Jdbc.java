package dev.retrysafe.delivery.internal;

import dev.retrysafe.common.Transactions;
import dev.retrysafe.delivery.DeliveryStoreException;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Instant;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;

/**
 * Connections, transactions with retries of transient conflicts (shared with the other JDBC
 * modules through {@link Transactions}), and nullable columns. Threadsafe.
 */
public final class Jdbc {

    private final Transactions transactions;

    /** Work over one connection. */
    @FunctionalInterface
    public interface Work<T> extends Transactions.Work<T> {
    }

    /** Connections from {@code dataSource}. */
    public Jdbc(DataSource dataSource) {
        this.transactions = new Transactions(dataSource, DeliveryStoreException::new);
    }

    /** Runs {@code work} on an auto-commit connection. */
    public <T> T autocommit(String operation, Work<T> work) {
        return transactions.autocommit(operation, work);
    }

    /**
     * Runs {@code work} in one transaction and commits; rolls back and runs it again (a few times)
     * when the database reports a transient conflict, so {@code work} must not have effects
     * outside the transaction.
     */
    public <T> T transaction(String operation, Work<T> work) {
        return transactions.transaction(operation, work);
    }

    /** Whether {@code e} is a lock conflict after which the transaction may simply run again. */
    public static boolean isTransientConflict(SQLException e) {
        return Transactions.isTransientConflict(e);
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
