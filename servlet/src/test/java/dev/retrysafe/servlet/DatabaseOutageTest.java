package dev.retrysafe.servlet;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.SQLException;
import org.junit.jupiter.api.Test;

/**
 * The filter's public classifier answers as the shared one (whose cases are in common's
 * {@code DatabaseOutagesTest}): a restart's ended session is an outage, a constraint violation is
 * not.
 */
class DatabaseOutageTest {

    @Test
    void aRestartIsAnOutageAndABugIsNot() {
        assertThat(DatabaseOutage.causedBy(new RuntimeException(
                        "store failed",
                        new SQLException("terminating connection due to administrator command", "57P01"))))
                .isTrue();
        assertThat(DatabaseOutage.causedBy(new SQLException("duplicate key value", "23505")))
                .isFalse();
        assertThat(DatabaseOutage.causedBy(null)).isFalse();
    }
}
