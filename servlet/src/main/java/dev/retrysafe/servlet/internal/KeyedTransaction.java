package dev.retrysafe.servlet.internal;

import dev.retrysafe.idempotency.Claim;
import dev.retrysafe.idempotency.IdempotencyStore;
import dev.retrysafe.idempotency.StoredResponse;
import dev.retrysafe.servlet.RequestTransactions;
import java.lang.System.Logger.Level;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Instant;
import javax.sql.DataSource;

/**
 * The transaction of one keyed request: a connection of the filter's own, or one that the
 * application's {@link RequestTransactions} began. Used by one request, on its thread.
 */
abstract sealed class KeyedTransaction {

    private static final System.Logger LOG = System.getLogger("dev.retrysafe.servlet");

    private boolean committed;
    private boolean closed;

    /** Begins the transaction of a keyed request as {@code settings} say. */
    static KeyedTransaction begin(FilterSettings settings) throws SQLException {
        RequestTransactions transactions = settings.transactions();
        if (transactions != null) {
            try {
                return new Managed(transactions.begin());
            } catch (RuntimeException e) {
                throw new SQLException("the transaction could not begin", e);
            }
        }
        DataSource dataSource = settings.dataSource();
        if (dataSource == null) {
            throw new IllegalStateException("neither a data source nor request transactions were set");
        }
        Connection connection = dataSource.getConnection();
        try {
            connection.setAutoCommit(false);
        } catch (SQLException e) {
            Own.close(connection);
            throw e;
        }
        return new Own(connection);
    }

    abstract Connection connection();

    abstract boolean rollbackOnly();

    /**
     * Stores the answer of {@code claim} and commits, as {@link IdempotencyStore#completeAndCommit}
     * says; once this returns, {@link #committed()} is true.
     */
    final void completeAndCommit(IdempotencyStore store, Claim claim, StoredResponse answer, Instant now)
            throws SQLException {
        storeAndCommit(store, claim, answer, now);
        committed = true;
    }

    /** Whether the answer and the effects committed (the claim's {@link IdempotencyStore#finished} says so). */
    final boolean committed() {
        return committed;
    }

    /** Rolls back; never throws. */
    abstract void rollback();

    /** Gives the connection back, the first time only; never throws. */
    final void close() {
        if (!closed) {
            closed = true;
            end();
        }
    }

    abstract void storeAndCommit(IdempotencyStore store, Claim claim, StoredResponse answer, Instant now)
            throws SQLException;

    /** Ends the transaction's hold on its connection (called once). */
    abstract void end();

    /** A connection of the filter's own data source, committed through the store (one round trip where it can). */
    private static final class Own extends KeyedTransaction {
        private final Connection connection;

        Own(Connection connection) {
            this.connection = connection;
        }

        @Override
        Connection connection() {
            return connection;
        }

        @Override
        boolean rollbackOnly() {
            return false;
        }

        @Override
        void storeAndCommit(IdempotencyStore store, Claim claim, StoredResponse answer, Instant now)
                throws SQLException {
            store.completeAndCommit(connection, claim, answer, now);
        }

        @Override
        void rollback() {
            try {
                connection.rollback();
            } catch (SQLException e) {
                LOG.log(Level.WARNING, "rollback failed; closing the connection discards the transaction", e);
            }
        }

        @Override
        void end() {
            close(connection);
        }

        static void close(Connection connection) {
            try {
                connection.close();
            } catch (SQLException e) {
                LOG.log(Level.WARNING, "closing the request's connection failed", e);
            }
        }
    }

    /** A transaction the application's transaction manager began and ends. */
    private static final class Managed extends KeyedTransaction {
        private final RequestTransactions.Transaction transaction;

        Managed(RequestTransactions.Transaction transaction) {
            this.transaction = transaction;
        }

        @Override
        Connection connection() {
            return transaction.connection();
        }

        @Override
        boolean rollbackOnly() {
            return transaction.rollbackOnly();
        }

        @Override
        void storeAndCommit(IdempotencyStore store, Claim claim, StoredResponse answer, Instant now)
                throws SQLException {
            store.complete(transaction.connection(), claim, answer, now);
            try {
                transaction.commit();
            } catch (RuntimeException e) {
                throw new SQLException("the commit failed", e);
            }
        }

        @Override
        void rollback() {
            try {
                transaction.rollback();
            } catch (RuntimeException e) {
                LOG.log(Level.WARNING, "rollback failed", e);
            }
        }

        @Override
        void end() {
            rollback(); // ends it if nothing did (it does nothing once committed or rolled back)
        }
    }
}
