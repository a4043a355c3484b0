package dev.retrysafe.common;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.SQLException;
import java.sql.SQLNonTransientConnectionException;
import java.sql.SQLTransientConnectionException;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Regression test for the fault-injection suite's first finding: during a PostgreSQL restart the
 * server answered {@code 500 internal-error} to payments, refunds and job reads, because only
 * Hikari's own timeout was seen as the database being down, not a connection the restart ended
 * ({@code 57P01}) or broke ({@code 08006}), nor either wrapped in a store's exception. The
 * same test now guards the job workers, which run a job again after such a failure (the
 * fault-injection suite's report that failed during a PostgreSQL restart).
 */
class DatabaseOutagesTest {

    static Stream<Throwable> outages() {
        return Stream.of(
                new SQLTransientConnectionException("pool timed out"),
                new SQLNonTransientConnectionException("connection closed"),
                new SQLException("terminating connection due to administrator command", "57P01"),
                new SQLException("the database system is starting up", "57P03"),
                new SQLException("the database system is shutting down", "57P02"),
                new SQLException("sorry, too many clients already", "53300"),
                new SQLException("terminating connection due to idle-in-transaction timeout", "25P03"),
                new SQLException("An I/O error occurred while sending to the backend.", "08006"),
                new SQLException("Connection refused", "08001"),
                new RuntimeException("store failed", new SQLException("connection failure", "08006")),
                new IllegalStateException(
                        "store failed",
                        new RuntimeException("claim failed", new SQLTransientConnectionException("timed out"))));
    }

    static Stream<Throwable> bugs() {
        return Stream.of(
                new IllegalStateException("a bug"),
                new SQLException("duplicate key value violates unique constraint", "23505"),
                new SQLException("syntax error", "42601"),
                new SQLException("no state"),
                new RuntimeException("wrapped", new SQLException("deadlock detected", "40P01")));
    }

    @ParameterizedTest
    @MethodSource("outages")
    void aDatabaseThatCannotBeReachedIsAnOutage(Throwable failure) {
        assertThat(DatabaseOutages.causedBy(failure)).isTrue();
    }

    @ParameterizedTest
    @MethodSource("bugs")
    void otherFailuresAreNot(Throwable failure) {
        assertThat(DatabaseOutages.causedBy(failure)).isFalse();
    }
}
