package dev.retrysafe.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.retrysafe.server.db.ConnectionCheck;
import dev.retrysafe.server.db.DatabaseUnavailableException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A second server on the data folder of a running one ends its start with one line that says so
 * (issue 33, the server's first hour). H2's file lock is per process, so the start itself is shown
 * with two processes by the acceptance {@code FirstHourTest}; here, how the lock's failure is said.
 */
class FirstStartProblemsTest {

    @TempDir
    Path dataDir;

    private static DatabaseUnavailableException failure(int h2ErrorCode) {
        return new DatabaseUnavailableException(
                "the embedded database is in use by another process",
                new SQLException("Database may be already in use", "90020", h2ErrorCode));
    }

    @Test
    void aHeldFileOfAFolderWhoseServerAnswersNamesThatServer() throws Exception {
        try (ServerSocket running = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            Files.writeString(
                    dataDir.resolve(EmbeddedH2.PORT_FILE),
                    Integer.toString(running.getLocalPort()),
                    StandardCharsets.US_ASCII);

            DatabaseUnavailableException said = EmbeddedH2.explain(dataDir, failure(ConnectionCheck.H2_FILE_IN_USE));

            assertThat(said.getMessage())
                    .doesNotContain("\n")
                    .startsWith("another Retrysafe server is running on the data folder "
                            + dataDir.toAbsolutePath().normalize() + " (its database answers on 127.0.0.1:"
                            + running.getLocalPort() + ")")
                    .contains("stop it first")
                    .contains("RETRYSAFE_DATA_DIR");
        }
    }

    @Test
    void aPortFileAloneNeverRefusesAndOtherFailuresStayAsTheyAre() throws Exception {
        // a killed server's port file, its port closed: the lock's own message stands
        int closed;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            closed = s.getLocalPort();
        }
        Files.writeString(dataDir.resolve(EmbeddedH2.PORT_FILE), Integer.toString(closed), StandardCharsets.US_ASCII);
        DatabaseUnavailableException held = failure(ConnectionCheck.H2_FILE_IN_USE);
        assertThat(EmbeddedH2.explain(dataDir, held)).isSameAs(held);

        // another failure with a server answering: not about the lock, not rewritten
        try (ServerSocket running = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            Files.writeString(
                    dataDir.resolve(EmbeddedH2.PORT_FILE),
                    Integer.toString(running.getLocalPort()),
                    StandardCharsets.US_ASCII);
            DatabaseUnavailableException other = failure(90_000);
            assertThat(EmbeddedH2.explain(dataDir, other)).isSameAs(other);
        }
    }
}
