package dev.retrysafe.webhooks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.retrysafe.testkit.PooledDataSource;
import dev.retrysafe.testkit.ThrowawayDatabase;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/** The de-duplicator contract plus the JDBC store's own behaviour, on one database per subclass. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class JdbcWebhookDeduplicatorContract extends WebhookDeduplicatorContract {

    private ThrowawayDatabase database;
    private PooledDataSource pool;

    /** A new, empty database of this test class's own. */
    protected abstract ThrowawayDatabase openDatabase();

    @BeforeAll
    void createSchema() throws SQLException {
        database = openDatabase();
        try (Connection c = database.dataSource().getConnection();
                Statement s = c.createStatement()) {
            // the whole script in one execute, as a Flyway Java migration would run it
            s.execute(JdbcWebhookDeduplicator.schemaSql());
        }
        pool = new PooledDataSource(database.dataSource(), 16);
    }

    @AfterAll
    void dropDatabase() throws SQLException {
        if (pool != null) {
            pool.close();
        }
        if (database != null) {
            database.close();
        }
    }

    @BeforeEach
    void emptyTable() throws SQLException {
        try (Connection c = pool.getConnection();
                Statement s = c.createStatement()) {
            s.execute("DELETE FROM received_webhooks");
        }
    }

    @AfterEach
    void everyConnectionWasReturned() {
        assertThat(pool.borrowed()).as("connections not returned").isZero();
    }

    @Override
    protected JdbcWebhookDeduplicator deduplicator() {
        return JdbcWebhookDeduplicator.builder(pool).ttl(TTL).clock(clock).build();
    }

    @Test
    void purgeDeletesExactlyTheExpiredRowsInBatches() throws SQLException {
        JdbcWebhookDeduplicator dedup = JdbcWebhookDeduplicator.builder(pool)
                .ttl(TTL)
                .clock(clock)
                .purgeBatchSize(2)
                .build();
        for (int i = 0; i < 5; i++) {
            dedup.firstTime("old_" + i);
        }
        clock.advance(Duration.ofHours(1));
        dedup.firstTime("recent");
        clock.advance(TTL.minusMinutes(30));

        assertThat(dedup.purgeExpired()).isEqualTo(5);

        assertThat(rows()).isEqualTo(1);
        assertThat(dedup.firstTime("recent")).isFalse();
        assertThat(dedup.purgeExpired()).isZero();
    }

    @Test
    void idRecordedInTheHandlersTransactionIsForgottenOnRollbackAndKeptOnCommit() throws SQLException {
        JdbcWebhookDeduplicator dedup = deduplicator();

        try (Connection tx = pool.getConnection()) {
            tx.setAutoCommit(false);
            assertThat(dedup.firstTime(tx, "msg_1")).isTrue();
            assertThat(dedup.firstTime(tx, "msg_1"))
                    .as("seen within the same transaction")
                    .isFalse();
            tx.rollback(); // the handler failed
            tx.setAutoCommit(true);
        }
        assertThat(dedup.firstTime("msg_1")).as("the rollback forgot it").isTrue();

        try (Connection tx = pool.getConnection()) {
            tx.setAutoCommit(false);
            assertThat(dedup.firstTime(tx, "msg_2")).isTrue();
            tx.commit();
            tx.setAutoCommit(true);
        }
        assertThat(dedup.firstTime("msg_2")).isFalse();
    }

    @Test
    void expiredRowIsTakenOverByExactlyOneClaim() {
        JdbcWebhookDeduplicator dedup = deduplicator();
        dedup.firstTime("msg_1");
        clock.advance(TTL);

        assertThat(dedup.firstTime("msg_1")).isTrue();
        assertThat(dedup.firstTime("msg_1")).isFalse();
    }

    @Test
    void databaseFailureIsAStoreExceptionWithoutTheId() throws SQLException {
        try (Connection c = pool.getConnection();
                Statement s = c.createStatement()) {
            s.execute("ALTER TABLE received_webhooks RENAME TO received_webhooks_away");
        }
        try {
            assertThatThrownBy(() -> deduplicator().firstTime("msg_secretive"))
                    .isInstanceOf(WebhookStoreException.class)
                    .hasMessageNotContaining("msg_secretive")
                    .hasCauseInstanceOf(SQLException.class);
        } finally {
            try (Connection c = pool.getConnection();
                    Statement s = c.createStatement()) {
                s.execute("ALTER TABLE received_webhooks_away RENAME TO received_webhooks");
            }
        }
    }

    private int rows() throws SQLException {
        try (Connection c = pool.getConnection();
                Statement s = c.createStatement();
                ResultSet r = s.executeQuery("SELECT COUNT(*) FROM received_webhooks")) {
            r.next();
            return r.getInt(1);
        }
    }
}
