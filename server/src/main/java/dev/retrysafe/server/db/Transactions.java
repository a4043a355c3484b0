package dev.retrysafe.server.db;

import dev.retrysafe.servlet.RequestTransaction;
import jakarta.servlet.http.HttpServletRequest;
import java.sql.Connection;
import java.sql.SQLException;
import javax.sql.DataSource;

/**
 * Runs a handler's database work in a transaction. When the idempotency filter bound a
 * transaction to the request, the work joins it, because the stored answer must commit or roll
 * back together with the effects; the filter then owns commit, rollback and close. Otherwise the
 * work gets a transaction of its own. This class is threadsafe.
 */
public final class Transactions {

    /** Work against one connection. */
    @FunctionalInterface
    public interface Work<T> {
        /** Does the work; an exception rolls back a transaction this class opened. */
        T run(Connection connection) throws SQLException;
    }

    private final DataSource dataSource;

    /** Transactions on {@code dataSource}. */
    public Transactions(DataSource dataSource) {
        this.dataSource = dataSource;
    }

    /** Runs {@code work} in the request's bound transaction, or in a new one committed here. */
    public <T> T inTransaction(HttpServletRequest request, Work<T> work) throws SQLException {
        Connection bound = RequestTransaction.connection(request);
        if (bound != null) {
            return work.run(bound);
        }
        return inNewTransaction(work);
    }

    /** Runs {@code work} in a new transaction, committed on success and rolled back on failure. */
    public <T> T inNewTransaction(Work<T> work) throws SQLException {
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(false);
            try {
                T result = work.run(c);
                c.commit();
                return result;
            } catch (SQLException | RuntimeException e) {
                try {
                    c.rollback();
                } catch (SQLException suppressed) {
                    e.addSuppressed(suppressed);
                }
                throw e;
            }
        }
    }
}
