package dev.retrysafe.common;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.retrysafe.testkit.ThrowawayDatabase;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class TransactionsTest {

    /** The store exception of a module, as {@link Transactions.Failure} makes it. */
    static final class StoreException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        StoreException(String message, SQLException cause) {
            super(message, cause);
        }
    }

    private ThrowawayDatabase database;
    private Transactions transactions;

    @BeforeEach
    void createTable() throws SQLException {
        database = ThrowawayDatabase.h2("transactions");
        transactions = new Transactions(database.dataSource(), StoreException::new);
        try (Connection c = database.dataSource().getConnection();
                Statement s = c.createStatement()) {
            s.execute("CREATE TABLE t (n INT)");
        }
    }

    @AfterEach
    void connectionsAreReleased() {
        assertThat(database.dataSource().openConnections()).isZero();
        database.close();
    }

    @Test
    void commitsTheWork() {
        // when
        int inserted = transactions.transaction("insert", c -> insert(c, 1));

        // then
        assertThat(inserted).isEqualTo(1);
        assertThat(count()).isEqualTo(1);
    }

    @Test
    void runsTheWorkAgainAfterATransientConflictWithoutItsEarlierEffects() {
        // given
        AtomicInteger tries = new AtomicInteger();

        // when
        String result = transactions.transaction("insert", c -> {
            insert(c, 1);
            if (tries.incrementAndGet() < Transactions.MAX_TRIES) {
                throw new SQLException("deadlock", "40P01");
            }
            return "done";
        });

        // then
        assertThat(result).isEqualTo("done");
        assertThat(tries).hasValue(Transactions.MAX_TRIES);
        assertThat(count()).isEqualTo(1);
    }

    @Test
    void givesUpAfterTheLastTryWithTheLastConflictAsCause() {
        // given
        AtomicInteger tries = new AtomicInteger();

        // when / then
        assertThatThrownBy(() -> transactions.transaction("claim", c -> {
                    insert(c, tries.incrementAndGet());
                    throw new SQLException("conflict " + tries.get(), "40001");
                }))
                .isInstanceOf(StoreException.class)
                .hasMessage("claim failed after " + Transactions.MAX_TRIES + " transient conflicts")
                .cause()
                .hasMessage("conflict " + Transactions.MAX_TRIES);
        assertThat(tries).hasValue(Transactions.MAX_TRIES);
        assertThat(count()).isZero();
    }

    @Test
    void anyOtherSqlFailureIsReportedAtOnce() {
        // given
        AtomicInteger tries = new AtomicInteger();

        // when / then
        assertThatThrownBy(() -> transactions.transaction("insert", c -> {
                    tries.incrementAndGet();
                    insert(c, 1);
                    throw new SQLException("unique", "23505");
                }))
                .isInstanceOf(StoreException.class)
                .hasMessage("insert failed")
                .cause()
                .hasMessage("unique");
        assertThat(tries).hasValue(1);
        assertThat(count()).isZero();
    }

    @Test
    void aRuntimeExceptionRollsBackAndPropagatesUnwrapped() {
        // given
        IllegalStateException bug = new IllegalStateException("bug");

        // when / then
        assertThatThrownBy(() -> transactions.transaction("insert", c -> {
                    insert(c, 1);
                    throw bug;
                }))
                .isSameAs(bug);
        assertThat(count()).isZero();
    }

    @Test
    void autocommitKeepsEachStatementAndWrapsFailures() {
        // when
        transactions.autocommit("insert", c -> insert(c, 7));

        // then
        assertThat(count()).isEqualTo(1);
        assertThatThrownBy(() -> transactions.autocommit("select", c -> {
                    throw new SQLException("no such table", "42S02");
                }))
                .isInstanceOf(StoreException.class)
                .hasMessage("select failed");
    }

    @Test
    void transientConflictsAreTheLockStatesOfBothDatabasesAnywhereInTheCauses() {
        for (String state : new String[] {"40001", "40P01", "HYT00", "90131"}) {
            assertThat(Transactions.isTransientConflict(new SQLException("x", state)))
                    .as(state)
                    .isTrue();
        }
        SQLException wrapped = new SQLException(
                "batch failed", (String) null, new RuntimeException(new SQLException("deadlock", "40P01")));
        assertThat(Transactions.isTransientConflict(wrapped)).isTrue();
    }

    @Test
    void otherStatesAndMissingStatesAreNotTransient() {
        assertThat(Transactions.isTransientConflict(new SQLException("unique", "23505")))
                .isFalse();
        assertThat(Transactions.isTransientConflict(new SQLException("no state")))
                .isFalse();
        assertThat(Transactions.isTransientConflict(new SQLException("outer", "08006", new SQLException("inner"))))
                .isFalse();
    }

    private static int insert(Connection c, int n) throws SQLException {
        try (Statement s = c.createStatement()) {
            return s.executeUpdate("INSERT INTO t VALUES (" + n + ")");
        }
    }

    private int count() {
        try (Connection c = database.dataSource().getConnection();
                Statement s = c.createStatement();
                ResultSet r = s.executeQuery("SELECT COUNT(*) FROM t")) {
            r.next();
            return r.getInt(1);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }
}
