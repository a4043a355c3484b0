package dev.retrysafe.spring.internal;

import dev.retrysafe.servlet.RequestTransactions;
import java.sql.Connection;
import javax.sql.DataSource;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.DataSourceUtils;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.TransactionStatus;
import org.springframework.transaction.support.DefaultTransactionDefinition;

/**
 * Keyed requests' transactions begun and ended by the application's transaction manager, so that
 * the controller's {@code @Transactional} methods and its {@code JdbcTemplate} join them, and
 * {@code TransactionSynchronization#afterCommit} callbacks run only after the real commit (which
 * writes the stored answer too). Each request gets a new transaction ({@code REQUIRES_NEW}): an
 * outer one the request may already be in is suspended, so that the commit here is the real one.
 * Threadsafe.
 */
public final class SpringRequestTransactions implements RequestTransactions {

    private final PlatformTransactionManager transactionManager;
    private final DataSource dataSource;
    private final TransactionDefinition definition;

    /**
     * Transactions of {@code transactionManager} on {@code dataSource}, which must be the data
     * source it manages.
     *
     * @throws IllegalStateException if the transaction manager does not manage {@code dataSource}
     *     (a JPA or JTA one, or one on another data source)
     */
    public SpringRequestTransactions(PlatformTransactionManager transactionManager, DataSource dataSource) {
        if (!(transactionManager instanceof DataSourceTransactionManager managed)
                || managed.getDataSource() != dataSource) {
            throw new IllegalStateException("Retrysafe idempotency needs a DataSourceTransactionManager (or"
                    + " JdbcTransactionManager) on the application's DataSource, so that the stored answer"
                    + " commits with the controller's work; found "
                    + transactionManager.getClass().getName()
                    + ". Set retrysafe.idempotency.enabled=false or define such a transaction manager.");
        }
        this.transactionManager = transactionManager;
        this.dataSource = dataSource;
        DefaultTransactionDefinition definition =
                new DefaultTransactionDefinition(TransactionDefinition.PROPAGATION_REQUIRES_NEW);
        definition.setName("retrysafe idempotent request");
        this.definition = definition;
    }

    @Override
    public Transaction begin() {
        TransactionStatus status = transactionManager.getTransaction(definition);
        try {
            return new SpringTransaction(status, DataSourceUtils.getConnection(dataSource));
        } catch (RuntimeException e) {
            transactionManager.rollback(status);
            throw e;
        }
    }

    private final class SpringTransaction implements Transaction {
        private final TransactionStatus status;
        private final Connection connection;

        SpringTransaction(TransactionStatus status, Connection connection) {
            this.status = status;
            this.connection = connection;
        }

        @Override
        public Connection connection() {
            return connection;
        }

        @Override
        public boolean rollbackOnly() {
            return status.isRollbackOnly();
        }

        @Override
        public void commit() {
            DataSourceUtils.releaseConnection(connection, dataSource);
            transactionManager.commit(status);
        }

        @Override
        public void rollback() {
            if (!status.isCompleted()) {
                DataSourceUtils.releaseConnection(connection, dataSource);
                transactionManager.rollback(status);
            }
        }
    }
}
