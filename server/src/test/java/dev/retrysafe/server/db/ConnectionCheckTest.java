package dev.retrysafe.server.db;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.retrysafe.server.config.DatabaseConfig;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.sql.SQLException;
import org.junit.jupiter.api.Test;

/** The one line a failed first connection turns into, per cause. */
class ConnectionCheckTest {

    private static final Path DATA = Path.of("/srv/retrysafe/data");

    @Test
    void anEmbeddedFileInUseNamesTheFolderAndWhatToDo() {
        DatabaseConfig embedded = new DatabaseConfig(null, "", "", 4);
        SQLException inUse = new SQLException(
                "Database may be already in use: \"/srv/retrysafe/data/retrysafe.mv.db\". Possible solutions:\n"
                        + "close all other connection(s); use the server mode [90020-232]",
                "90020",
                ConnectionCheck.H2_FILE_IN_USE);

        String line = ConnectionCheck.explain(inUse, embedded, DATA);

        assertThat(line)
                .doesNotContain("\n")
                .startsWith("the embedded database in /srv/retrysafe/data is in use by another process")
                .contains("stop it")
                .contains("RETRYSAFE_DATA_DIR");
    }

    @Test
    void aLoginRefusedByPostgresNamesTheUserAndTheSettings() {
        DatabaseConfig pg = new DatabaseConfig("jdbc:postgresql://db.internal:6543/shop", "app", "pw-secret", 4);

        String line = ConnectionCheck.explain(
                new SQLException("FATAL: password authentication failed for user \"app\"", "28P01"), pg, DATA);

        assertThat(line)
                .startsWith("PostgreSQL on db.internal:6543 refused the login of user 'app'")
                .contains("RETRYSAFE_DATABASE_PASSWORD")
                .doesNotContain("pw-secret");
    }

    @Test
    void aMissingDatabaseWithAnUnusualNameIsQuotedInTheSqlToRun() {
        DatabaseConfig pg = new DatabaseConfig("jdbc:postgresql://127.0.0.1/Shop-1", "", "", 4);

        String line = ConnectionCheck.explain(
                new SQLException("FATAL: database \"Shop-1\" does not exist", "3D000"), pg, DATA);

        assertThat(line)
                .isEqualTo("the PostgreSQL database 'Shop-1' does not exist on 127.0.0.1:5432; create it, then start"
                        + " again: createdb -h 127.0.0.1 -p 5432 Shop-1 (or in psql: CREATE DATABASE \"Shop-1\";)");
    }

    @Test
    void aPostgresThatDoesNotAnswerIsNamedByHostAndPort() throws IOException {
        int closedPort;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            closedPort = s.getLocalPort();
        }
        DatabaseConfig pg = new DatabaseConfig("jdbc:postgresql://127.0.0.1:" + closedPort + "/shop", "app", "", 4);

        assertThatThrownBy(() -> ConnectionCheck.connect(pg, DATA))
                .isInstanceOf(DatabaseUnavailableException.class)
                .message()
                .doesNotContain("\n")
                .startsWith("cannot reach PostgreSQL on 127.0.0.1:" + closedPort + ": is it running");
    }
}
