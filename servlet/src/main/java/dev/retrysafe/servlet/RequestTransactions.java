package dev.retrysafe.servlet;

import java.sql.Connection;
import java.sql.SQLException;

/**
 * Who begins, commits and rolls back the transaction of a keyed request, for an application that
 * already has a transaction manager (a framework integration: the Spring Boot starter begins it
 * through Spring's, so that the application's own transactional code joins it). Without one,
 * {@link IdempotencyFilter} takes a connection of its own from its data source.
 *
 * <p>The idempotency step begins one transaction per keyed request, claims the key in it, runs
 * the operation, writes the stored answer in it and commits; or it rolls back. (With a store that
 * {@linkplain dev.retrysafe.idempotency.IdempotencyStore#claimsOnOwnConnection() claims on a
 * connection of its own} it claims first and begins a transaction only for a claim it acquired,
 * so a keyed request never holds the transaction's connection and the claim's at once.) It never commits,
 * rolls back or closes the {@linkplain Transaction#connection() connection} itself, and it ends
 * each transaction on the thread that began it. Implementations are threadsafe.
 */
@FunctionalInterface
public interface RequestTransactions {

    /**
     * Begins a transaction (not in auto-commit mode) on the database of the idempotency store.
     *
     * @throws SQLException if no connection can be had; a {@link RuntimeException} counts the same
     */
    Transaction begin() throws SQLException;

    /** One begun transaction, used by the thread that began it, once. */
    interface Transaction {

        /** The transaction's connection: the claim, the operation's effects and the stored answer go through it. */
        Connection connection();

        /**
         * Whether the operation asked for its work to be rolled back although it answered below
         * 500 (for example a transactional method that threw, whose exception the framework
         * turned into a 4xx answer). Then nothing is stored: the transaction rolls back, the key
         * is let go and the answer is sent as it is. Default: never.
         */
        default boolean rollbackOnly() {
            return false;
        }

        /**
         * Commits and ends the transaction.
         *
         * @throws SQLException if the commit failed (a {@link RuntimeException} counts the same);
         *     nothing was committed, and {@link #rollback()} is still called
         */
        void commit() throws SQLException;

        /** Rolls back and ends the transaction; does nothing if it already ended. Never throws. */
        void rollback();
    }
}
